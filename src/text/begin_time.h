// Slurm's --begin / StartTime= / sacct -S -E time syntax (Slurm's parse_time()).
//
// Forms: HH:MM[:SS] [AM|PM], midnight, noon, elevenses (11:00), fika (15:00), teatime (16:00),
// now[{+|-}N[seconds|minutes|hours|days|weeks]] (unit defaults to seconds; units are whole
// words, singular or plural, any case), today, tomorrow, MMDD[YY], MM/DD[/YY], MM.DD[.YY],
// YYYY-MM-DD[THH:MM[:SS]], uts<unix seconds>, and combinations Slurm allows (pieces separated by
// blanks, '-' or 'T', e.g. "tomorrow noon", "12/24-10:00", "2026-12-24 10:00").
//
// Resolution, as parse_time does it:
//  * A time of day without a date is today if it is still ahead (hour and minute compared, not
//    seconds), else tomorrow: at 11:43:07 "11:43" is tomorrow, "11:44" today. So "midnight" is
//    always the next 00:00.
//  * A date without a time is 00:00 that day: "today" is 00:00 today (already past), "tomorrow"
//    is 00:00 tomorrow.
//  * A month/day without a year is this year if still ahead, else next year. A two-digit year
//    means 20YY ("00" counts as no year, as in Slurm).
//  * Out-of-range days roll over like mktime: "02/31" is 3 March (2 in a leap year).
//  * "now+N" keeps the seconds of now.
// Slurm quirks kept: matching is case-insensitive except that an upper-case 'T' is skipped as the
// date/time separator before words are matched, so "TODAY", "Tomorrow" and "Teatime" are
// rejected while "NOW" and "Noon" are fine; text after a newline is ignored.
// Gantry refuses what Slurm would turn into garbage: results at or before the epoch (Slurm
// returns 0 for "invalid" and lets other pre-1970 times through), results after
// 9999-12-31T23:59:59Z, offsets that overflow, and NUL bytes.
//
// Everything is resolved against the injected `now` and time zone: no clock or environment is
// read. Pure functions; thread-safe.
#ifndef GANTRY_TEXT_BEGIN_TIME_H_
#define GANTRY_TEXT_BEGIN_TIME_H_

#include <string>
#include <string_view>

#include "base/status.h"
#include "base/time.h"

namespace gantry::text {

// The latest time accepted or produced: 9999-12-31T23:59:59Z.
inline constexpr UnixTime kMaxBeginTime = 253402300799;

// Returns the absolute time (Slurm's parse_time(text, 0): times resolve into the future).
// Errors name the text and the rule. `now` must be in (0, kMaxBeginTime].
Result<UnixTime> ParseBeginTime(std::string_view text, UnixTime now, const TimeZone& tz);

// Slurm's parse_time(text, 1), used by sacct -S/-E and sreport: a time of day without a date is
// always today, and a month/day without a year is this year unless that month is later than the
// current one (then last year). Otherwise the same as ParseBeginTime.
Result<UnixTime> ParsePastTime(std::string_view text, UnixTime now, const TimeZone& tz);

// "YYYY-MM-DDTHH:MM:SS" in tz, as Slurm prints times (scontrol, sacct, squeue %S). Callers print
// Slurm's special values themselves ("Unknown" for 0, "None", "N/A").
std::string FormatIsoTime(UnixTime t, const TimeZone& tz);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_BEGIN_TIME_H_
