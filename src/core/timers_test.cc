// When the cycle next has something to do with no event: each timer, and what is overdue.
#include "core/timers.h"

#include <gtest/gtest.h>

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "core/cycle.h"
#include "core/testing.h"
#include "state/testing.h"

namespace gantry::core {
namespace {

using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

class TimersTest : public testing::CoreFixture {
 protected:
  // Submits `job` as gantryd does (the core notes the event), at its submit time.
  void Submit(const v1::Job& job) {
    Effects submitted;
    submitted.events.push_back(SubmitEvent(job, job.submit_time()));
    Carry(std::move(submitted), job.submit_time());
  }
  // A cycle's timer and schedule stages at `now`, carried out.
  void CycleAt(int64_t now) {
    Carry(TimerStage(At(now)), now);
    Carry(ScheduleStage(At(now)), now);
  }
  std::optional<int64_t> DueAfter(int64_t now) { return MsUntilDue(At(now)); }
};

TEST_F(TimersTest, NothingIsDueOnAnIdleCluster) {
  CycleAt(kNow);
  EXPECT_EQ(DueAfter(kNow), std::nullopt);
}

TEST_F(TimersTest, ARunningJobIsDueAtItsTimeLimit) {
  v1::Job job = PendingJob(1);
  job.set_time_limit_min(2);
  Submit(job);
  CycleAt(kNow);
  CycleAt(kNow + 10);
  EXPECT_EQ(DueAfter(kNow + 10), 110'000);
  // Looked at a second early (the limit counts whole seconds): due a second later.
  CycleAt(kNow + 119);
  EXPECT_EQ(DueAfter(kNow + 119), 1'000);
  CycleAt(kNow + 120);
  EXPECT_EQ(state::JobStateOf(*s_.FindJob(1)).base, model::JobBaseState::kTimeout);
}

TEST_F(TimersTest, ASignalWarningIsDueBeforeTheLimit) {
  v1::Job job = PendingJob(1);
  job.set_time_limit_min(10);
  job.mutable_request()->set_warn_signal(SIGUSR1);
  job.mutable_request()->set_warn_seconds(60);
  Submit(job);
  CycleAt(kNow);
  EXPECT_EQ(DueAfter(kNow), 540'000);
}

TEST_F(TimersTest, ASilentNodeIsDueAtSlurmdTimeoutThenAtItsFence) {
  Submit(PendingJob(1));
  CycleAt(kNow);
  memory_.last_heard["n1"] = kNow * 1000;
  EXPECT_EQ(DueAfter(kNow + 100), (config_.node_timeout_sec - 100) * 1000 + 1);
  // Silent now, with a job: its jobs are settled once its agent has surely fenced them.
  const int64_t silent = kNow + config_.node_timeout_sec + 1;
  CycleAt(silent);
  const int64_t fence = config_.node_timeout_sec + config_.kill_wait_sec + kFenceMarginSec;
  EXPECT_EQ(DueAfter(silent), (fence - config_.node_timeout_sec - 1) * 1000 + 1);
}

TEST_F(TimersTest, APendingJobIsDueAtItsBeginTimeOnce) {
  v1::Job job = PendingJob(1);
  job.set_time_limit_min(0);  // none: nothing is due once it runs
  job.mutable_request()->set_begin_time(kNow + 600);
  Submit(job);
  CycleAt(kNow);
  EXPECT_EQ(DueAfter(kNow), 600'000);
  CycleAt(kNow + 600);
  EXPECT_EQ(DueAfter(kNow + 600), std::nullopt);
}

// Events the core did not see (recovery applies the log so): the next timer stage notes every
// pending job's begin time anew.
TEST_F(TimersTest, BeginTimesAreFoundAgainAfterEventsTheCoreDidNotSee) {
  v1::Job job = PendingJob(1);
  job.mutable_request()->set_begin_time(kNow + 600);
  MustApply(&s_, SubmitEvent(job));  // not noted
  EXPECT_EQ(DueAfter(kNow), std::nullopt);
  CycleAt(kNow);
  EXPECT_EQ(DueAfter(kNow), 600'000);
}

TEST_F(TimersTest, AGangTurnIsDueWhenARunningJobHasHadItsSlice) {
  config_.scheduler.preempt.gang = true;
  config_.scheduler.time_slice_sec = 30;
  v1::Partition shared = MakePartition("batch", NodeNames(4), true);
  shared.set_oversubscribe("FORCE:2");
  std::vector<v1::Node> nodes;
  for (const std::string& name : NodeNames(4)) nodes.push_back(MakeNode(name));
  s_ = state::ClusterState();
  MustApply(&s_, ConfigEvent(nodes, {shared}));
  for (const std::string& name : NodeNames(4)) MustApply(&s_, RegisterEvent(name));
  Submit(PendingJob(1));
  CycleAt(kNow);
  EXPECT_EQ(DueAfter(kNow + 5), 25'000);
}

TEST_F(TimersTest, BackfillIsDueAtItsIntervalWhileJobsWait) {
  config_.scheduler.bf_interval_sec = 30;
  for (uint32_t id : {1u, 2u, 3u, 4u, 5u}) Submit(PendingJob(id, "batch", 2));
  CycleAt(kNow);
  EXPECT_EQ(DueAfter(kNow + 10), 20'000);
}

}  // namespace
}  // namespace gantry::core
