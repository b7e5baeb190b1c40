// PriorityUsageResetPeriod: when the usage of every association and QOS starts again from
// nothing, as Slurm's priority/multifactor does it: NONE (never), NOW (at each controller
// start), DAILY (midnight), WEEKLY (Sunday midnight), MONTHLY (the 1st), QUARTERLY (January,
// April, July, October 1st), YEARLY (January 1st), all in the controller's time zone.
// Pure; thread-safe.
#ifndef GANTRY_SCHED_USAGE_RESET_H_
#define GANTRY_SCHED_USAGE_RESET_H_

#include <string_view>

#include "base/status.h"
#include "base/time.h"

namespace gantry::sched {

enum class UsageResetPeriod { kNone, kNow, kDaily, kWeekly, kMonthly, kQuarterly, kYearly };

// Any case. Errors: InvalidArgument "PriorityUsageResetPeriod: invalid value 'X' (NONE, NOW,
// DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY)".
Result<UsageResetPeriod> ParseUsageResetPeriod(std::string_view text);

// The latest reset at or before `now`: the period's last boundary, `start` (the controller's
// start) for kNow, 0 for kNone.
UnixTime LastUsageReset(UsageResetPeriod period, UnixTime now, UnixTime start, const TimeZone& tz);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_USAGE_RESET_H_
