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

class PreemptionOfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    low_ = MakePartition("low", {"n1"});
    low_.set_priority_tier(1);
    high_ = MakePartition("high", {"n1"});
    high_.set_priority_tier(10);
    for (const char* name : {"normal", "urgent"}) s_.accounting.qos[name].set_name(name);
    s_.accounting.qos["urgent"].add_preempt("normal");
    victim_ = state::testing::PendingJob(1, "low");
    victim_.set_start_time(kNow - 600);
    victim_.mutable_request()->set_qos("normal");
    preemptor_ = state::testing::PendingJob(2, "high");
    preemptor_.mutable_request()->set_qos("urgent");
  }

  std::optional<PreemptAction> Of(const PreemptOptions& o, const v1::Partition& from,
                                  const v1::Partition& of) {
    return PreemptionOf(s_, o, preemptor_, from, victim_, of, kNow);
  }

  state::ClusterState s_;
  v1::Partition low_;
  v1::Partition high_;
  v1::Job victim_;
  v1::Job preemptor_;
};

TEST_F(PreemptionOfTest, PartitionPrioNeedsAHigherTierAndAPreemptingMode) {
  const PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kSuspend, true, 0};
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kSuspend);
  EXPECT_EQ(Of(o, low_, low_), std::nullopt);  // equal tiers never
  EXPECT_EQ(Of(o, low_, high_), std::nullopt);
  low_.set_preempt_mode("REQUEUE");
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kRequeue);
  low_.set_preempt_mode("OFF");
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);
}

TEST_F(PreemptionOfTest, ExemptTimeComesFromTheVictimsQosElseTheCluster) {
  const PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kCancel, false, 900};
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);  // ran 600 s of 900
  s_.accounting.qos["normal"].set_preempt_exempt_time_sec(300);
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kCancel);
}

TEST_F(PreemptionOfTest, QosPreemptsWhatItsPreemptListNames) {
  const PreemptOptions o{PreemptType::kQos, PreemptAction::kRequeue, false, 0};
  EXPECT_EQ(Of(o, low_, low_), PreemptAction::kRequeue);  // same partition: fine
  s_.accounting.qos["normal"].set_preempt_mode("CANCEL");
  EXPECT_EQ(Of(o, low_, low_), PreemptAction::kCancel);
  // SUSPEND only from the same partition or a higher tier.
  s_.accounting.qos["normal"].set_preempt_mode("SUSPEND");
  v1::Partition other = MakePartition("other", {"n1"});
  other.set_priority_tier(1);
  EXPECT_EQ(Of(o, other, low_), std::nullopt);
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kSuspend);
  preemptor_.mutable_request()->set_qos("normal");
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);  // normal preempts no one
}

TEST_F(PreemptionOfTest, PriorityAndWithinModifiers) {
  PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kSuspend, true, 0};
  victim_.set_priority(500);
  preemptor_.set_priority(100);
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kSuspend);
  low_.set_preempt_mode("SUSPEND,PRIORITY");  // the victim's partition says so
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);
  low_.clear_preempt_mode();
  o.priority = true;  // the cluster says so
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);
  preemptor_.set_priority(500);
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kSuspend);  // equal is enough

  // WITHIN: a QOS's jobs preempt its own jobs of a lower priority.
  PreemptOptions q{PreemptType::kQos, PreemptAction::kRequeue, false, 0};
  victim_.mutable_request()->set_qos("urgent");
  victim_.set_priority(100);
  EXPECT_EQ(Of(q, low_, low_), std::nullopt);  // urgent does not list itself
  s_.accounting.qos["urgent"].set_preempt_mode("REQUEUE,WITHIN");
  EXPECT_EQ(Of(q, low_, low_), PreemptAction::kRequeue);
  victim_.set_priority(600);
  EXPECT_EQ(Of(q, low_, low_), std::nullopt);
  EXPECT_TRUE(PreemptOptions::FromConfig("preempt/qos", "REQUEUE,WITHIN", "")->within);
}

}  // namespace
}  // namespace gantry::sched
