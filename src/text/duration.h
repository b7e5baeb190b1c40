// Slurm duration strings (time limits: --time, MaxTime, DefaultTime, PreemptExemptTime...).
//
// Accepted forms (Slurm's time_str2secs): "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", and
// "-1", "INFINITE", "UNLIMITED" (case-insensitive) for no limit. Formatting mirrors the helpers
// Slurm's commands use, so output can be compared byte for byte.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_DURATION_H_
#define GANTRY_TEXT_DURATION_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::text {

// Seconds; kInfiniteDuration means "no limit".
inline constexpr int64_t kInfiniteDuration = -1;

// Parses a duration to seconds. Errors name the text and list the accepted forms.
Result<int64_t> ParseDurationSeconds(std::string_view text);

// Parses a duration to whole minutes as Slurm stores time limits (time_str2mins): seconds are
// rounded up to the next minute. Infinite stays kInfiniteDuration.
Result<int64_t> ParseDurationMinutes(std::string_view text);

// "D-HH:MM:SS" when at least a day, else "HH:MM:SS"; "UNLIMITED" for infinite
// (Slurm's secs2time_str, used by scontrol show ... TimeLimit=, sinfo -l, show config).
std::string FormatDurationSeconds(int64_t seconds);

// Same, from minutes (Slurm's mins2time_str).
std::string FormatDurationMinutes(int64_t minutes);

// squeue's %M/%l style: "M:SS", "H:MM:SS", "D-HH:MM:SS" (no leading zero on the first field);
// "UNLIMITED" for infinite (Slurm's _print_secs / print_fields_time_from_secs).
std::string FormatElapsed(int64_t seconds);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_DURATION_H_
