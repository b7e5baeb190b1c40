#include "sys/system_time.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include "text/begin_time.h"

namespace gantry::sys {
namespace {

// Runs before any conversion in this binary: LocalTimeZone reads TZ once.
class NewYorkTime : public ::testing::Environment {
 public:
  void SetUp() override { setenv("TZ", "America/New_York", 1); }
};
const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new NewYorkTime);

TEST(LocalTimeZoneTest, ConvertsWithTheZonesOffset) {
  const LocalTimeZone& ny = LocalTimeZone::Get();
  // 2026-12-02T11:43:07Z is 06:43:07 EST (UTC-5).
  EXPECT_EQ(ny.ToCivil(1796211787), (CivilTime{2026, 12, 2, 6, 43, 7}));
  EXPECT_EQ(ny.FromCivil({2026, 12, 2, 6, 43, 7}), 1796211787);
  // Summer time: 2026-07-01T12:00:00Z is 08:00 EDT (UTC-4).
  EXPECT_EQ(ny.ToCivil(1782907200), (CivilTime{2026, 7, 1, 8, 0, 0}));
}

TEST(LocalTimeZoneTest, NormalisesOutOfRangeFields) {
  const LocalTimeZone& ny = LocalTimeZone::Get();
  EXPECT_EQ(ny.FromCivil({2026, 12, 32, 0, 0, 0}), ny.FromCivil({2027, 1, 1, 0, 0, 0}));
}

TEST(LocalTimeZoneTest, BeginTimesResolveInLocalTime) {
  // "midnight" from 06:43 local is the next local 00:00, 05:00Z.
  const Result<UnixTime> t = text::ParseBeginTime("midnight", 1796211787, LocalTimeZone::Get());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t, 1796274000);  // 2026-12-03T05:00:00Z
  EXPECT_EQ(text::FormatIsoTime(*t, LocalTimeZone::Get()), "2026-12-03T00:00:00");
}

TEST(SystemClockTest, IsAfterThisCodeWasWritten) {
  EXPECT_GT(SystemClock::Get().Now(), 1796211787 - 86400);
}

}  // namespace
}  // namespace gantry::sys
