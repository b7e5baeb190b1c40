// Slurm duration strings (time limits: --time, MaxTime, DefaultTime, PreemptExemptTime...).
//
// Accepted forms (Slurm's time_str2secs): "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", and
// "-1", "INFINITE", "UNLIMITED" (case-insensitive) for no limit. Fields are plain decimal numbers
// without range checks ("90" minutes, "0:90" = 90 seconds, "1:99" = 159 seconds); "D-" alone is D
// days, as in Slurm. Nothing else is allowed: no spaces, signs or units.
//
// Differences from Slurm 22.05, on purpose:
//  * Negative values other than "-1" are refused. Slurm's sscanf reads "-5" as -5 days, and
//    time_str2mins turns that into -7199 minutes, which wraps when stored in the unsigned time
//    limit (sbatch -t -5 was accepted; see anchors errors.txt).
//  * Values over 2147483647 seconds (24855-03:14:07, the largest Slurm's int can hold) are
//    refused instead of wrapping.
//
// Formatting mirrors the helpers Slurm's commands use, so output can be compared byte for byte.
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

// The longest finite duration accepted, in seconds (INT32_MAX, Slurm's limit).
inline constexpr int64_t kMaxDurationSeconds = 2147483647;

// Parses a duration to seconds. Errors name the text and list the accepted forms.
Result<int64_t> ParseDurationSeconds(std::string_view text);

// Parses a duration to whole minutes as Slurm stores time limits (time_str2mins): seconds are
// rounded up to the next minute. Infinite stays kInfiniteDuration.
// Note: sbatch/srun additionally treat a limit of 0 minutes as UNLIMITED; that is the caller's
// business, this returns 0.
Result<int64_t> ParseDurationMinutes(std::string_view text);

// "D-HH:MM:SS" when at least a day, else "HH:MM:SS"; "UNLIMITED" for infinite; "INVALID" for any
// other negative value (Slurm's secs2time_str, used by scontrol show ... RunTime=, sinfo -l,
// show config, and sacct's Elapsed column: "00:00:28").
// Slurm callers print NO_VAL themselves ("Partition_Limit", "NONE"...); secs2time_str would print
// 4294967294 as "49710-06:28:14".
std::string FormatDurationSeconds(int64_t seconds);

// Same, from minutes (Slurm's mins2time_str: scontrol TimeLimit=, MaxTime=).
std::string FormatDurationMinutes(int64_t minutes);

// squeue's %M/%l style: "M:SS", "H:MM:SS", "D-HH:MM:SS" (no leading zero on the first field);
// "UNLIMITED" for infinite; "INVALID" for other negative values and for more than 365 days, as
// squeue's _print_secs does (so squeue shows a 400-day time limit as INVALID).
std::string FormatElapsed(int64_t seconds);
// The same, appended to `out`.
void AppendElapsed(int64_t seconds, std::string* out);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_DURATION_H_
