// Time types shared by every layer. The pure layers receive `now` as a parameter; only shells
// read a real Clock (see sys/). Seconds since the Unix epoch are the one absolute time unit.
#ifndef GANTRY_BASE_TIME_H_
#define GANTRY_BASE_TIME_H_

#include <cstdint>

namespace gantry {

using UnixTime = int64_t;  // seconds since 1970-01-01T00:00:00Z

// A wall-clock reading in some time zone. Fields are not normalised unless a function says so.
struct CivilTime {
  int year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;

  friend bool operator==(const CivilTime&, const CivilTime&) = default;
};

// Converts between absolute and wall-clock time. Implementations are immutable and thread-safe.
class TimeZone {
 public:
  virtual ~TimeZone() = default;
  virtual CivilTime ToCivil(UnixTime t) const = 0;
  // Accepts out-of-range fields (month 13, day 32, hour 24...) and normalises them, like mktime.
  virtual UnixTime FromCivil(const CivilTime& c) const = 0;

  // UTC; pure arithmetic, no tz database.
  static const TimeZone& Utc();
};

// The source of `now` for shells; tests use a fake.
class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock seconds: timestamps users see (submit, start and end times).
  virtual UnixTime Now() const = 0;
  // Milliseconds of a clock that never steps (CLOCK_MONOTONIC), for durations that must not
  // jump with the wall clock: node liveness, time limits. Only differences mean anything. The
  // default follows Now() (a fake that never steps its wall clock needs nothing else).
  virtual int64_t MonotonicMs() const { return Now() * 1000; }
};

// Days since 1970-01-01 for a proleptic Gregorian date; month/day may be out of range.
int64_t DaysFromCivil(int64_t year, int64_t month, int64_t day);
// Day of week, 0 = Sunday, for a day number from DaysFromCivil.
int WeekdayFromDays(int64_t days);

}  // namespace gantry

#endif  // GANTRY_BASE_TIME_H_
