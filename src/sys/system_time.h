// The real clock and the machine's local time zone, for the shells (commands and daemons).
// The pure layers take `now` and a TimeZone as parameters; main() builds these and passes them.
#ifndef GANTRY_SYS_SYSTEM_TIME_H_
#define GANTRY_SYS_SYSTEM_TIME_H_

#include "base/time.h"

namespace gantry::sys {

// Wall-clock seconds (CLOCK_REALTIME); CLOCK_MONOTONIC for MonotonicMs. Thread-safe.
class SystemClock final : public Clock {
 public:
  UnixTime Now() const override;
  int64_t MonotonicMs() const override;
  static const SystemClock& Get();
};

// The process's local time zone as the C library sees it (TZ, /etc/localtime), as Slurm's
// commands use it for --begin and for printing times. Conversions use localtime_r/mktime;
// FromCivil normalises out-of-range fields and, for a wall time that occurs twice or not at all
// around a daylight-saving change, picks what mktime picks with tm_isdst = -1.
// Thread-safe after the first use (tzset runs once).
class LocalTimeZone final : public TimeZone {
 public:
  CivilTime ToCivil(UnixTime t) const override;
  UnixTime FromCivil(const CivilTime& c) const override;
  static const LocalTimeZone& Get();
};

}  // namespace gantry::sys

#endif  // GANTRY_SYS_SYSTEM_TIME_H_
