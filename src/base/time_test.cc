#include "base/time.h"

#include <gtest/gtest.h>

namespace gantry {
namespace {

TEST(UtcTimeZoneTest, RoundTripsKnownInstants) {
  const TimeZone& utc = TimeZone::Utc();
  // 2026-12-02T11:43:07Z
  const UnixTime t = 1796211787;
  EXPECT_EQ(utc.ToCivil(t), (CivilTime{2026, 12, 2, 11, 43, 7}));
  EXPECT_EQ(utc.FromCivil({2026, 12, 2, 11, 43, 7}), t);
  EXPECT_EQ(utc.ToCivil(0), (CivilTime{1970, 1, 1, 0, 0, 0}));
  EXPECT_EQ(utc.ToCivil(-1), (CivilTime{1969, 12, 31, 23, 59, 59}));
}

TEST(UtcTimeZoneTest, NormalisesOutOfRangeFields) {
  const TimeZone& utc = TimeZone::Utc();
  EXPECT_EQ(utc.FromCivil({2026, 13, 1, 0, 0, 0}), utc.FromCivil({2027, 1, 1, 0, 0, 0}));
  EXPECT_EQ(utc.FromCivil({2026, 12, 32, 0, 0, 0}), utc.FromCivil({2027, 1, 1, 0, 0, 0}));
  EXPECT_EQ(utc.FromCivil({2026, 12, 31, 24, 0, 0}), utc.FromCivil({2027, 1, 1, 0, 0, 0}));
  EXPECT_EQ(utc.FromCivil({2024, 2, 29, 0, 0, 0}) + 86400, utc.FromCivil({2024, 3, 1, 0, 0, 0}));
}

TEST(WeekdayTest, KnownDays) {
  EXPECT_EQ(WeekdayFromDays(0), 4);                           // Thursday
  EXPECT_EQ(WeekdayFromDays(DaysFromCivil(2026, 12, 2)), 3);  // Wednesday
  EXPECT_EQ(WeekdayFromDays(DaysFromCivil(2026, 12, 6)), 0);  // Sunday
}

}  // namespace
}  // namespace gantry
