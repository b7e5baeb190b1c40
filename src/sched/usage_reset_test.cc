#include "sched/usage_reset.h"

#include <gtest/gtest.h>

namespace gantry::sched {
namespace {

// Thursday 2026-12-03 14:25:07 UTC.
constexpr UnixTime kThursday = 1796307907;

UnixTime At(int year, int month, int day) {
  return TimeZone::Utc().FromCivil(CivilTime{year, month, day, 0, 0, 0});
}

TEST(UsageResetTest, LastBoundaryOfEachPeriod) {
  const TimeZone& utc = TimeZone::Utc();
  struct Case {
    UsageResetPeriod period;
    UnixTime expected;
  };
  const Case cases[] = {
      {UsageResetPeriod::kNone, 0},
      {UsageResetPeriod::kNow, kThursday - 500},
      {UsageResetPeriod::kDaily, At(2026, 12, 3)},
      {UsageResetPeriod::kWeekly, At(2026, 11, 29)},  // the Sunday before
      {UsageResetPeriod::kMonthly, At(2026, 12, 1)},
      {UsageResetPeriod::kQuarterly, At(2026, 10, 1)},
      {UsageResetPeriod::kYearly, At(2026, 1, 1)},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(LastUsageReset(c.period, kThursday, kThursday - 500, utc), c.expected)
        << static_cast<int>(c.period);
  }
  // On the boundary itself, that boundary.
  EXPECT_EQ(LastUsageReset(UsageResetPeriod::kDaily, At(2026, 12, 3), 0, utc), At(2026, 12, 3));
}

TEST(UsageResetTest, ParsesSlurmsNames) {
  EXPECT_EQ(*ParseUsageResetPeriod("weekly"), UsageResetPeriod::kWeekly);
  EXPECT_EQ(*ParseUsageResetPeriod("NONE"), UsageResetPeriod::kNone);
  EXPECT_EQ(ParseUsageResetPeriod("HOURLY").status().message(),
            "PriorityUsageResetPeriod: invalid value 'HOURLY' (NONE, NOW, DAILY, WEEKLY, MONTHLY, "
            "QUARTERLY or YEARLY)");
}

}  // namespace
}  // namespace gantry::sched
