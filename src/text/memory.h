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

// "<digits>[K|M|G|T]" (case-insensitive suffix; none means M), as Slurm's str_to_mbytes:
// K rounds up to whole MiB, G and T multiply. Errors name the text and the rule; values that
// overflow are refused.
Result<int64_t> ParseMemoryMiB(std::string_view text);

// MiB to Slurm's compact form as used in TRES strings and scontrol ("2000M", "250G", "1T"):
// divides by 1024 while the value divides evenly, with the matching suffix.
std::string FormatMemoryMiB(int64_t mib);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_MEMORY_H_
