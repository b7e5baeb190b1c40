#include "base/time.h"

namespace gantry {

namespace {

struct YearMonthDay {
  int64_t year;
  int month;
  int day;
};

// Howard Hinnant's civil-from-days algorithm (public domain description).
YearMonthDay CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

class UtcTimeZone final : public TimeZone {
 public:
  CivilTime ToCivil(UnixTime t) const override {
    const int64_t days = FloorDiv(t, 86400);
    const int64_t rem = t - days * 86400;
    const YearMonthDay ymd = CivilFromDays(days);
    return {static_cast<int>(ymd.year),
            ymd.month,
            ymd.day,
            static_cast<int>(rem / 3600),
            static_cast<int>(rem % 3600 / 60),
            static_cast<int>(rem % 60)};
  }
  UnixTime FromCivil(const CivilTime& c) const override {
    return DaysFromCivil(c.year, c.month, c.day) * 86400 + int64_t{c.hour} * 3600 +
           int64_t{c.minute} * 60 + c.second;
  }
};

}  // namespace

int64_t DaysFromCivil(int64_t year, int64_t month, int64_t day) {
  // Normalise the month first so that month 13 or 0 roll into neighbouring years.
  year += FloorDiv(month - 1, 12);
  month = month - 1 - FloorDiv(month - 1, 12) * 12 + 1;
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t yoe = year - era * 400;
  const int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468 + (day - 1);
}

int WeekdayFromDays(int64_t days) {
  const int64_t w = (days + 4) % 7;  // 1970-01-01 was a Thursday
  return static_cast<int>(w < 0 ? w + 7 : w);
}

const TimeZone& TimeZone::Utc() {
  static const UtcTimeZone kUtc;
  return kUtc;
}

}  // namespace gantry
