// Slurm's --begin / StartTime= / sacct -S -E time syntax (Slurm's parse_time()).
//
// Forms: HH:MM[:SS] [AM|PM], midnight, noon, elevenses (11:00), fika (15:00), teatime (16:00),
// now[+N[seconds|minutes|hours|days|weeks]] (unit defaults to seconds), today, tomorrow,
// MMDD[YY], MM/DD[/YY], MM.DD[.YY], YYYY-MM-DD[THH:MM[:SS]], and combinations Slurm allows.
// A time of day that has already passed today means tomorrow. Everything is resolved against the
// injected `now` and time zone: no clock or environment is read.
// Pure function; thread-safe.
#ifndef GANTRY_TEXT_BEGIN_TIME_H_
#define GANTRY_TEXT_BEGIN_TIME_H_

#include <string_view>

#include "base/status.h"
#include "base/time.h"

namespace gantry::text {

// Returns the absolute time. Errors name the text and the rule.
Result<UnixTime> ParseBeginTime(std::string_view text, UnixTime now, const TimeZone& tz);

// "YYYY-MM-DDTHH:MM:SS" in tz, as Slurm prints times (scontrol, sacct, squeue %S).
std::string FormatIsoTime(UnixTime t, const TimeZone& tz);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_BEGIN_TIME_H_
