#include "sys/system_time.h"

#include <ctime>
#include <mutex>

namespace gantry::sys {

namespace {

void InitTimeZoneOnce() {
  static std::once_flag once;
  std::call_once(once, [] { tzset(); });
}

}  // namespace

UnixTime SystemClock::Now() const {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec;
}

int64_t SystemClock::MonotonicMs() const {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

const SystemClock& SystemClock::Get() {
  static const SystemClock kClock;
  return kClock;
}

CivilTime LocalTimeZone::ToCivil(UnixTime t) const {
  InitTimeZoneOnce();
  const time_t tt = static_cast<time_t>(t);
  tm parts{};
  localtime_r(&tt, &parts);
  return {parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
          parts.tm_hour,        parts.tm_min,     parts.tm_sec};
}

UnixTime LocalTimeZone::FromCivil(const CivilTime& c) const {
  InitTimeZoneOnce();
  tm parts{};
  parts.tm_year = c.year - 1900;
  parts.tm_mon = c.month - 1;
  parts.tm_mday = c.day;
  parts.tm_hour = c.hour;
  parts.tm_min = c.minute;
  parts.tm_sec = c.second;
  parts.tm_isdst = -1;
  return static_cast<UnixTime>(mktime(&parts));
}

const LocalTimeZone& LocalTimeZone::Get() {
  static const LocalTimeZone kZone;
  return kZone;
}

}  // namespace gantry::sys
