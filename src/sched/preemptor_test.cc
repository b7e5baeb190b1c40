#include "sched/preemptor.h"

#include <gtest/gtest.h>

#include <optional>

#include "state/testing.h"

namespace gantry::sched {
namespace {

using state::testing::kNow;
using state::testing::MakePartition;

constexpr int64_t kSlice = 30;

class PreemptorTest : public ::testing::Test {
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
    return MakePreemptor(s_, o, kSlice)->ActionOn(preemptor_, from, victim_, of, kNow);
  }

  state::ClusterState s_;
  v1::Partition low_;
  v1::Partition high_;
  v1::Job victim_;
  v1::Job preemptor_;
};

TEST_F(PreemptorTest, PartitionPrioNeedsAHigherTierAndAPreemptingMode) {
  const PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kSuspend, true, 0};
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kSuspend);
  EXPECT_EQ(Of(o, low_, low_), std::nullopt);  // equal tiers never
  EXPECT_EQ(Of(o, low_, high_), std::nullopt);
  low_.set_preempt_mode("REQUEUE");
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kRequeue);
  low_.set_preempt_mode("OFF");
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);
}

TEST_F(PreemptorTest, ExemptTimeComesFromTheVictimsQosElseTheCluster) {
  const PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kCancel, false, 900};
  EXPECT_EQ(Of(o, high_, low_), std::nullopt);  // ran 600 s of 900
  s_.accounting.qos["normal"].set_preempt_exempt_time_sec(300);
  EXPECT_EQ(Of(o, high_, low_), PreemptAction::kCancel);
}

TEST_F(PreemptorTest, QosPreemptsWhatItsPreemptListNames) {
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

TEST_F(PreemptorTest, PriorityAndWithinModifiers) {
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

TEST_F(PreemptorTest, MayPreemptLooksAtTiersOrTheQosBeforeAnyNode) {
  s_.partitions = {low_, high_};
  PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kRequeue, false, 0};
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->MayPreempt(preemptor_, 0));  // nothing below low
  EXPECT_TRUE(MakePreemptor(s_, o, kSlice)->MayPreempt(preemptor_, 1));
  s_.partitions[0].set_preempt_mode("OFF");
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->MayPreempt(preemptor_, 1));

  o.type = PreemptType::kQos;
  EXPECT_TRUE(MakePreemptor(s_, o, kSlice)->MayPreempt(preemptor_, 0));  // urgent lists normal
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->MayPreempt(victim_, 1));    // normal lists none
  o.type = PreemptType::kNone;
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->MayPreempt(preemptor_, 1));
}

TEST_F(PreemptorTest, CandidatesRankByTierAndSizeOrByQosPriority) {
  s_.partitions = {low_, high_};
  v1::Job wide = victim_;
  wide.add_nodes("n1");
  wide.add_nodes("n2");
  v1::Job upper = victim_;
  upper.set_partition("high");
  PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kRequeue, false, 0};
  auto by_tier = MakePreemptor(s_, o, kSlice);
  EXPECT_LT(by_tier->CandidateRank(victim_), by_tier->CandidateRank(wide));
  EXPECT_LT(by_tier->CandidateRank(wide), by_tier->CandidateRank(upper));

  o.type = PreemptType::kQos;
  s_.accounting.qos["normal"].set_priority(5);
  s_.accounting.qos["urgent"].set_priority(9);
  upper.mutable_request()->set_qos("urgent");
  auto by_qos = MakePreemptor(s_, o, kSlice);
  EXPECT_EQ(by_qos->CandidateRank(victim_), by_qos->CandidateRank(wide));
  EXPECT_LT(by_qos->CandidateRank(wide), by_qos->CandidateRank(upper));
}

TEST_F(PreemptorTest, SuspendsOnlyWhenEveryPreemptableTierSuspends) {
  s_.partitions = {low_, high_};
  PreemptOptions o{PreemptType::kPartitionPrio, PreemptAction::kSuspend, true, 0};
  EXPECT_TRUE(MakePreemptor(s_, o, kSlice)->SuspendsOnly());
  s_.partitions[0].set_preempt_mode("REQUEUE");
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->SuspendsOnly());
  o.type = PreemptType::kQos;  // each QOS says its own: never known ahead
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->SuspendsOnly());
}

TEST_F(PreemptorTest, GangSuspendsJobsOfItsOwnTimeSlicedPartitionAfterASlice) {
  v1::Partition shared = MakePartition("shared", {"n1"});
  shared.set_oversubscribe("FORCE:2");
  s_.partitions = {shared, low_};
  const v1::Partition& part = s_.partitions[0];
  PreemptOptions o{PreemptType::kNone, PreemptAction::kOff, true, 0};
  auto gang = MakePreemptor(s_, o, kSlice);
  EXPECT_TRUE(gang->MayPreempt(preemptor_, 0));
  EXPECT_FALSE(gang->MayPreempt(preemptor_, 1));  // not time-sliced, no plugin
  victim_.set_partition("shared");
  victim_.set_start_time(kNow - kSlice + 1);
  EXPECT_EQ(gang->ActionOn(preemptor_, part, victim_, part, kNow), std::nullopt);
  victim_.set_start_time(kNow - kSlice);
  EXPECT_EQ(gang->ActionOn(preemptor_, part, victim_, part, kNow), PreemptAction::kSuspend);
  // Resumed since: its slice counts from the resume.
  victim_.set_suspend_time(kNow - 5);
  EXPECT_EQ(gang->ActionOn(preemptor_, part, victim_, part, kNow), std::nullopt);
  // Another partition's jobs are the plugin's (none here).
  EXPECT_EQ(gang->ActionOn(preemptor_, part, victim_, s_.partitions[1], kNow), std::nullopt);
  // Without GANG the partition is not time-sliced.
  o.gang = false;
  EXPECT_FALSE(MakePreemptor(s_, o, kSlice)->MayPreempt(preemptor_, 0));
}

}  // namespace
}  // namespace gantry::sched
