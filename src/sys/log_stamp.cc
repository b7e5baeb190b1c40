#include "sys/log_stamp.h"

#include <cstdio>
#include <ctime>

namespace gantry::sys {

std::string LogStamp() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  tm utc{};
  gmtime_r(&ts.tv_sec, &utc);
  char stamp[64];
  std::snprintf(stamp, sizeof(stamp), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long>(ts.tv_nsec / 1000000));  // NOLINT(google-runtime-int)
  return stamp;
}

}  // namespace gantry::sys
