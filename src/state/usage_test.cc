#include "state/usage.h"

#include <gtest/gtest.h>

#include <cmath>

#include "state/cluster_state.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using model::JobBaseState;
using namespace testing;  // NOLINT(google-build-using-namespace): the builders

// alice in team (under lab), one job of hers in team that ran 10 minutes on 8 CPUs.
class UsageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = MakeCluster(2);
    ApplyAccountingChange(DefaultAccounting(), &s_.accounting);
    ApplyAccountingChange(LabTeamAlice(), &s_.accounting);
    ASSERT_TRUE(CheckAccounting(s_.accounting).ok());
  }

  void RunJob(uint32_t id, int64_t start, int64_t end) {
    v1::Job job = PendingJob(id);
    job.mutable_request()->set_account("team");
    job.mutable_request()->set_qos("normal");
    MustApply(&s_, SubmitEvent(job, start));
    MustApply(&s_, StartEvent(id, {"n1"}, start, 8, 1000));
    MustApply(&s_, EndEvent(id, JobBaseState::kCompleted, end));
  }

  double CpuSeconds(uint32_t association, int64_t at) const {
    const auto it = s_.accounting.association_usage.find(association);
    if (it == s_.accounting.association_usage.end()) return 0;
    const v1::UsageTally now = DecayedUsage(it->second, at, s_.accounting.usage_half_life_sec);
    const auto cpu = now.tres_sec().find("cpu");
    return cpu == now.tres_sec().end() ? 0 : cpu->second;
  }

  ClusterState s_;
};

TEST_F(UsageTest, AJobThatEndsCountsForItsAssociationItsAccountsAndItsQos) {
  RunJob(1, kNow, kNow + 600);
  for (uint32_t id : {kLabAssociation, kTeamAssociation, kAliceAssociation}) {
    EXPECT_DOUBLE_EQ(CpuSeconds(id, kNow + 600), 8 * 600) << "association " << id;
    EXPECT_DOUBLE_EQ(s_.accounting.association_usage[id].wall_sec(), 600);
  }
  EXPECT_DOUBLE_EQ(s_.accounting.qos_usage["normal"].tres_sec().at("mem"), 1000.0 * 600);
  // root's own association counts everything too.
  EXPECT_EQ(s_.accounting.association_usage.count(1), 1u);
  // A job that never ran adds nothing.
  MustApply(&s_, SubmitEvent(PendingJob(2), kNow));
  MustApply(&s_, EndEvent(2, JobBaseState::kCancelled, kNow + 700));
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 600), 8 * 600);
}

TEST_F(UsageTest, TheQosUsageFactorScalesWhatAJobCountsFor) {
  s_.accounting.qos["normal"].set_usage_factor(2.0);
  RunJob(1, kNow, kNow + 600);
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 600), 2 * 8 * 600);
  EXPECT_DOUBLE_EQ(s_.accounting.association_usage[kAliceAssociation].wall_sec(), 2 * 600);
  s_.accounting.qos["normal"].set_usage_factor(0);  // a free QOS
  RunJob(2, kNow + 600, kNow + 1200);
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 600), 2 * 8 * 600);  // nothing added
}

TEST_F(UsageTest, UsageHalvesEveryHalfLife) {
  RunJob(1, kNow, kNow + 600);
  const int64_t half_life = s_.accounting.usage_half_life_sec;
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 600 + half_life), 8 * 600 / 2.0);
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 600 + 2 * half_life), 8 * 600 / 4.0);
  // A later job adds to what is left.
  RunJob(2, kNow + 600 + half_life, kNow + 1200 + half_life);
  const double first = 8 * 600 * std::exp2(-static_cast<double>(half_life + 600) / half_life);
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 1200 + half_life), first + 8 * 600);
  s_.accounting.usage_half_life_sec = 0;  // no decay
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 100 * half_life), first + 8 * 600);
}

TEST_F(UsageTest, RawUsageZeroResetsTheAssociationAndTakesItOffTheAccountsAbove) {
  RunJob(1, kNow, kNow + 600);
  v1::AccountingChange reset_user;
  reset_user.add_reset_usage(kAliceAssociation);
  ApplyAccountingChange(reset_user, &s_.accounting);
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 600), 0);
  EXPECT_DOUBLE_EQ(CpuSeconds(kTeamAssociation, kNow + 600), 0);
  EXPECT_DOUBLE_EQ(CpuSeconds(kLabAssociation, kNow + 600), 0);

  RunJob(2, kNow + 600, kNow + 1200);
  v1::AccountingChange reset_team;
  reset_team.add_reset_usage(kTeamAssociation);  // team's, and alice's under it
  reset_team.add_reset_qos_usage("normal");
  ApplyAccountingChange(reset_team, &s_.accounting);
  EXPECT_DOUBLE_EQ(CpuSeconds(kAliceAssociation, kNow + 1200), 0);
  EXPECT_DOUBLE_EQ(CpuSeconds(kTeamAssociation, kNow + 1200), 0);
  EXPECT_DOUBLE_EQ(CpuSeconds(kLabAssociation, kNow + 1200), 0);
  EXPECT_EQ(s_.accounting.qos_usage.count("normal"), 0u);
}

TEST_F(UsageTest, UsageSurvivesASnapshot) {
  RunJob(1, kNow, kNow + 600);
  Result<ClusterState> back = FromSnapshot(ToSnapshot(s_));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->accounting.association_usage.size(), s_.accounting.association_usage.size());
  EXPECT_DOUBLE_EQ(back->accounting.association_usage[kAliceAssociation].tres_sec().at("cpu"),
                   8 * 600);
}

}  // namespace
}  // namespace gantry::state
