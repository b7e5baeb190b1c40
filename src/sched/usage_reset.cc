#include "sched/usage_reset.h"

#include <string>
#include <utility>

#include "text/ascii.h"

namespace gantry::sched {

Result<UsageResetPeriod> ParseUsageResetPeriod(std::string_view text) {
  static constexpr std::pair<std::string_view, UsageResetPeriod> kNames[] = {
      {"NONE", UsageResetPeriod::kNone},       {"NOW", UsageResetPeriod::kNow},
      {"DAILY", UsageResetPeriod::kDaily},     {"WEEKLY", UsageResetPeriod::kWeekly},
      {"MONTHLY", UsageResetPeriod::kMonthly}, {"QUARTERLY", UsageResetPeriod::kQuarterly},
      {"YEARLY", UsageResetPeriod::kYearly}};
  for (const auto& [name, period] : kNames) {
    if (text::EqualsIgnoreCase(text, name)) return period;
  }
  return InvalidArgument("PriorityUsageResetPeriod: invalid value '" + std::string(text) +
                         "' (NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY)");
}

UnixTime LastUsageReset(UsageResetPeriod period, UnixTime now, UnixTime start, const TimeZone& tz) {
  if (period == UsageResetPeriod::kNone) return 0;
  if (period == UsageResetPeriod::kNow) return start;
  CivilTime c = tz.ToCivil(now);
  c.hour = c.minute = c.second = 0;
  switch (period) {
    case UsageResetPeriod::kWeekly:
      c.day -= WeekdayFromDays(DaysFromCivil(c.year, c.month, c.day));  // back to Sunday
      break;
    case UsageResetPeriod::kMonthly:
      c.day = 1;
      break;
    case UsageResetPeriod::kQuarterly:
      c.day = 1;
      c.month -= (c.month - 1) % 3;
      break;
    case UsageResetPeriod::kYearly:
      c.day = 1;
      c.month = 1;
      break;
    default:  // daily
      break;
  }
  return tz.FromCivil(c);
}

}  // namespace gantry::sched
