#include "sched/preempt.h"

#include <gtest/gtest.h>

#include <string>

#include "state/testing.h"

namespace gantry::sched {
namespace {

using state::testing::kNow;
using state::testing::MakePartition;

TEST(PreemptOptionsTest, ReadsSlurmConfAndNamesBadValues) {
  Result<PreemptOptions> o =
      PreemptOptions::FromConfig("preempt/partition_prio", "SUSPEND,GANG", "00:05:00");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->type, PreemptType::kPartitionPrio);
  EXPECT_EQ(o->action, PreemptAction::kSuspend);
  EXPECT_TRUE(o->gang);
  EXPECT_EQ(o->exempt_sec, 300);
  EXPECT_TRUE(PreemptOptions::FromConfig("", "", "").ok());
  o = PreemptOptions::FromConfig("", "GANG", "-1");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->type, PreemptType::kNone);
  EXPECT_EQ(o->action, PreemptAction::kOff);
  EXPECT_EQ(o->exempt_sec, 0);
  EXPECT_EQ(PreemptOptions::FromConfig("preempt/fancy", "", "").status().message(),
            "PreemptType: invalid value 'preempt/fancy' (preempt/none, preempt/partition_prio or "
            "preempt/qos)");
  EXPECT_EQ(PreemptOptions::FromConfig("preempt/qos", "SUSPEND,BOUNCE", "").status().message(),
            "PreemptMode: invalid value 'SUSPEND,BOUNCE' (OFF, CANCEL, REQUEUE, SUSPEND, GANG, "
            "WITHIN, PRIORITY)");
  EXPECT_EQ(PreemptOptions::FromConfig("preempt/qos", "REQUEUE", "soon").status().message(),
            "PreemptExemptTime: invalid value 'soon' (a duration, e.g. 00:10:00, or -1)");
  EXPECT_EQ(ActionOfMode("requeue", PreemptAction::kSuspend), PreemptAction::kRequeue);
  EXPECT_EQ(ActionOfMode("", PreemptAction::kSuspend), PreemptAction::kSuspend);
  EXPECT_EQ(ActionOfMode("OFF", PreemptAction::kSuspend), PreemptAction::kOff);
}

}  // namespace
}  // namespace gantry::sched
