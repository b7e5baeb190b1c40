// Memory sizes as Slurm reads and prints them (--mem, --mem-per-cpu, RealMemory, DefMemPerCPU,
// TRES mem=...). Internally memory is an integer number of MiB.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_MEMORY_H_
#define GANTRY_TEXT_MEMORY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::text {

// "<digits>[K|M|G|T][B]" (case-insensitive suffix; none means M), as Slurm's str_to_mbytes:
// K rounds up to whole MiB ("512K" is 1), G and T multiply by 1024 and 1024^2, a trailing "B" is
// allowed ("4GB"). Like strtoll, leading white space and a '+' are accepted and "-0" is 0.
// Errors name the text and the rule: empty text, no digits, negative values, decimals ("2.5G",
// which Slurm also refuses), other suffixes or trailing text, and values above INT64_MAX MiB
// (refused instead of overflowing).
Result<int64_t> ParseMemoryMiB(std::string_view text);

// MiB to Slurm's compact form as used in TRES strings and scontrol (convert_num_unit with
// CONVERT_NUM_UNIT_EXACT from megabytes): divides by 1024 while the value is at least 1024 and a
// multiple of 512, so half units count as exact, then prints an integer with its suffix or two
// decimals: 2000 -> "2000M", 1024 -> "1G", 64000 -> "62.50G", 256000 -> "250G",
// 1048576 -> "1T", 0 -> "0". Units go M, G, T, P, then "?" as in Slurm. Output with decimals (or
// P and ?) cannot be parsed back by ParseMemoryMiB, as in Slurm. Negative values (never produced
// by Slurm, whose sizes are unsigned) print as "<n>M".
std::string FormatMemoryMiB(int64_t mib);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_MEMORY_H_
