// The cycle's stages and the agents' reports, on a state built event by event: what gantryd, the
// scenarios and the simulator all carry out.
#include "core/cycle.h"

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <string>
#include <vector>

#include "core/job_actions.h"
#include "core/reactions.h"
#include "core/testing.h"
#include "model/job_state.h"
#include "state/records.h"
#include "state/testing.h"
#include "state/volatile_updates.h"

namespace gantry::core {
namespace {

using model::JobBaseState;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

class CoreTest : public testing::CoreFixture {
 protected:
  // One schedule stage at `now`, carried out: the started jobs with their array task ids (-1:
  // not a task).
  std::map<uint32_t, int64_t> ScheduleAt(int64_t now) {
    const Effects e = Carry(ScheduleStage(At(now)), now);
    std::map<uint32_t, int64_t> started;
    for (uint32_t id : StartedJobs(e.events)) {
      const v1::Job* job = s_.FindJob(id);
      started[id] = job->has_array_task_id() ? job->array_task_id() : -1;
    }
    return started;
  }

  void Submit(const v1::Job& job) { MustApply(&s_, SubmitEvent(job, job.submit_time())); }

  // The job's batch script ended (its first node's report), then every node ran the epilog.
  void Finish(uint32_t id, int64_t now) {
    const v1::Job job = *s_.FindJob(id);
    v1::JobReport report;
    report.set_job_id(id);
    report.set_epoch(job.agent_epoch());
    report.set_node(job.nodes(0));
    report.set_kind(v1::JobReport::BATCH_ENDED);
    Carry(*OnReport(At(now), report), now);
    for (const std::string& node : job.nodes()) {
      report.set_node(node);
      report.set_kind(v1::JobReport::EPILOG_OK);
      Carry(*OnReport(At(now), report), now);
    }
  }

  JobBaseState Base(uint32_t id) { return state::JobStateOf(*s_.FindJob(id)).base; }
};

// Carries each stage out and keeps the pass marks the cycle leaves.
class MarkRecorder final : public CycleShell {
 public:
  MarkRecorder(state::ClusterState* s, Context ctx) : s_(s), ctx_(ctx) {}
  void Commit(Stage, Effects effects) override {
    for (const v1::Event& e : effects.events) {
      MustApply(s_, e);
      NoteApplied(ctx_, e);
    }
    state::ApplyVolatile(s_, effects.volatile_updates);
    if (effects.mark) marks.push_back(*effects.mark);
  }
  std::vector<v1::PassMark> marks;

 private:
  state::ClusterState* s_;
  Context ctx_;
};

TEST_F(CoreTest, ACycleThatDecidesSomethingLeavesAPassMark) {
  Submit(PendingJob(1));
  const uint64_t seen = s_.events_applied;
  MarkRecorder first(&s_, At(kNow));
  RunCycle(At(kNow), &first);
  ASSERT_EQ(first.marks.size(), 1u);
  EXPECT_EQ(first.marks[0].time(), kNow);
  EXPECT_EQ(first.marks[0].seen(), seen);  // the submission, not the start it made
  EXPECT_TRUE(first.marks[0].backfill());
  EXPECT_FALSE(first.marks[0].gave_way());
  // Nothing waits, nothing to decide: no mark.
  MarkRecorder idle(&s_, At(kNow + 1));
  RunCycle(At(kNow + 1), &idle);
  EXPECT_TRUE(idle.marks.empty());
}

// A pass that gave way to requests midway says so in its mark: a replay cannot see what they
// changed meanwhile.
TEST_F(CoreTest, APassThatGaveWaySaysSoInItsMark) {
  class GiveWayOnce final : public sched::PassYield {
   public:
    bool Due() override { return !yielded; }
    void Yield() override { yielded = true; }
    const sched::Interference& interference() const override { return nothing_; }
    bool yielded = false;

   private:
    sched::Interference nothing_;
  };
  for (uint32_t id = 1; id <= 4; ++id) Submit(PendingJob(id));
  GiveWayOnce yield;
  Context ctx = At(kNow);
  ctx.yield = &yield;
  const Effects effects = ScheduleStage(ctx);
  EXPECT_TRUE(yield.yielded);
  EXPECT_TRUE(effects.mark->gave_way());
  EXPECT_EQ(effects.pass->yields, 1u);
}

TEST_F(CoreTest, AReplayedCycleBackfillsAsItsRecordSays) {
  config_.scheduler.bf_interval_sec = 30;
  Submit(PendingJob(1));
  v1::PassMark recorded;
  recorded.set_backfill(false);
  Context ctx = At(kNow);  // the first pass would backfill
  ctx.replay = &recorded;
  EXPECT_FALSE(ScheduleStage(ctx).mark->backfill());
  memory_.last_backfill = kNow;  // a pass in this second did: the next one would not
  recorded.set_backfill(true);
  Context later = At(kNow + 1);
  later.replay = &recorded;
  EXPECT_TRUE(ScheduleStage(later).mark->backfill());
}

TEST_F(CoreTest, ArrayTasksStartInOrderUnderTheThrottle) {
  Submit(PendingArray(10, {3, 4, 5, 6, 7}, 3));
  // Tasks get new ids in order of start; the record waits on the throttle.
  EXPECT_EQ(ScheduleAt(kNow), (std::map<uint32_t, int64_t>{{11, 3}, {12, 4}, {13, 5}}));
  EXPECT_EQ(s_.FindJob(12)->nodes(0), "n2");
  EXPECT_EQ(s_.FindJob(10)->reason(), "JobArrayTaskLimit");
  // Still three running: nothing more starts though n4 is free.
  EXPECT_TRUE(ScheduleAt(kNow).empty());
  Finish(11, kNow + 5);
  EXPECT_EQ(ScheduleAt(kNow + 6), (std::map<uint32_t, int64_t>{{14, 6}}));
}

TEST_F(CoreTest, LastArrayTaskTakesTheArrayRecord) {
  Submit(PendingArray(10, {1, 2}));
  EXPECT_EQ(ScheduleAt(kNow), (std::map<uint32_t, int64_t>{{10, 2}, {11, 1}}));
  EXPECT_TRUE(ScheduleAt(kNow).empty());
}

TEST_F(CoreTest, DependenciesOnArrays) {
  Submit(PendingArray(10, {1, 2}));
  v1::Job whole = PendingJob(20);
  whole.mutable_request()->set_dependency("afterok:10");
  Submit(whole);
  v1::Job one = PendingJob(21);
  one.mutable_request()->set_dependency("afterany:10_1");
  Submit(one);
  v1::Job corr = PendingArray(30, {1, 2});
  corr.mutable_request()->set_dependency("aftercorr:10");
  Submit(corr);
  // Hold array 10's task 2 back so that only task 1 runs.
  MustApply(&s_, SplitEvent(10, 2, 11));
  MustApply(&s_, HoldEvent(11, true));
  EXPECT_EQ(ScheduleAt(kNow), (std::map<uint32_t, int64_t>{{10, 1}}));
  for (uint32_t id : {20u, 21u, 30u}) EXPECT_EQ(s_.FindJob(id)->reason(), "Dependency") << id;
  Finish(10, kNow + 5);
  // 21 waited for task 1 only; 30's task 1 pairs with 10's task 1; 20 waits for task 2 (held).
  const std::map<uint32_t, int64_t> started = ScheduleAt(kNow + 6);
  EXPECT_EQ(started.count(21), 1u);
  EXPECT_EQ(started.count(20), 0u);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_EQ(started.rbegin()->second, 1);  // 30's task 1, under a new id
}

TEST_F(CoreTest, AnUnsatisfiableDependencyCancelsOnlyWhenAskedTo) {
  Submit(PendingJob(1));
  v1::Job waits = PendingJob(2);
  waits.mutable_request()->set_dependency("afterok:1");
  Submit(waits);
  v1::Job killed = PendingJob(3);
  killed.mutable_request()->set_dependency("afterok:1");
  killed.mutable_request()->set_kill_on_invalid_dep(1);
  Submit(killed);
  ScheduleAt(kNow);
  MustApply(&s_, EndEvent(1, JobBaseState::kFailed, kNow + 1));
  MustApply(&s_, ReleaseEvent(1, "n1", kNow + 1));
  ScheduleAt(kNow + 2);
  EXPECT_EQ(Base(2), JobBaseState::kPending);
  EXPECT_EQ(s_.FindJob(2)->reason(), "DependencyNeverSatisfied");
  EXPECT_EQ(Base(3), JobBaseState::kCancelled);
  EXPECT_EQ(s_.FindJob(3)->reason(), "DependencyNeverSatisfied");
}

TEST_F(CoreTest, APreemptedJobThatMayNotBeRequeuedIsCancelled) {
  s_.partitions.push_back(MakePartition("high", NodeNames(4)));
  s_.partitions.back().set_priority_tier(10);
  s_.partitions.front().set_preempt_mode("REQUEUE");
  state::RebuildIndexes(&s_);
  config_.scheduler.preempt.type = sched::PreemptType::kPartitionPrio;
  config_.scheduler.preempt.action = sched::PreemptAction::kRequeue;
  for (uint32_t id : {1u, 2u, 3u, 4u}) {
    v1::Job job = PendingJob(id);
    job.mutable_request()->set_num_tasks(64);
    job.set_requeue(id != 2);
    Submit(job);
  }
  ASSERT_EQ(ScheduleAt(kNow).size(), 4u);
  v1::Job urgent = PendingJob(9, "high", 2);
  urgent.mutable_request()->set_num_tasks(128);
  Submit(urgent);
  const Effects e = Carry(ScheduleStage(At(kNow + 1)), kNow + 1);
  EXPECT_EQ(Base(1), JobBaseState::kPending);  // requeued, after the requeue delay
  EXPECT_EQ(s_.FindJob(1)->request().begin_time(), kNow + 1 + config_.cred_expire_sec + 1);
  EXPECT_EQ(Base(2), JobBaseState::kPreempted);
  EXPECT_EQ(s_.FindJob(2)->end_cause(), "preempted by job 9");
  int terminations = 0;
  for (const AgentAction& a : e.actions) {
    terminations += a.kind == AgentAction::Kind::kTerminate;
  }
  EXPECT_EQ(terminations, 2);
}

TEST_F(CoreTest, TimeLimitEndsTheJobAndTerminatesItOnEachNode) {
  v1::Job job = PendingJob(1, "batch", 2);
  job.set_time_limit_min(2);
  Submit(job);
  ScheduleAt(kNow);
  EXPECT_TRUE(Carry(TimerStage(At(kNow + 119)), kNow + 119).events.empty());
  const Effects e = Carry(TimerStage(At(kNow + 120)), kNow + 120);
  EXPECT_EQ(Base(1), JobBaseState::kTimeout);
  ASSERT_EQ(e.actions.size(), 2u);
  EXPECT_EQ(e.actions[0].kind, AgentAction::Kind::kTerminate);
  EXPECT_EQ(e.actions[1].node, "n2");
  EXPECT_EQ(e.actions[1].node_index, 1u);
  EXPECT_EQ(e.actions[1].kill_wait_sec, config_.kill_wait_sec);
}

// The timer pass looks only at the jobs due and those events touched (NoteApplied): a time
// limit changed while the job runs counts at once, lowered or raised.
TEST_F(CoreTest, ATimeLimitChangedWhileTheJobRunsCountsAtOnce) {
  for (uint32_t id : {1u, 2u}) {
    v1::Job job = PendingJob(id);
    job.set_time_limit_min(id == 1 ? 10 : 2);
    Submit(job);
  }
  ScheduleAt(kNow);
  EXPECT_TRUE(Carry(TimerStage(At(kNow + 60)), kNow + 60).events.empty());
  Effects update;
  for (uint32_t id : {1u, 2u}) {
    v1::Job changed = *s_.FindJob(id);
    changed.set_time_limit_min(id == 1 ? 2 : 5);
    update.events.push_back(UpdateEvent(changed, kNow + 61));
  }
  Carry(std::move(update), kNow + 61);
  EXPECT_TRUE(Carry(TimerStage(At(kNow + 119)), kNow + 119).events.empty());
  Carry(TimerStage(At(kNow + 120)), kNow + 120);
  EXPECT_EQ(Base(1), JobBaseState::kTimeout);
  EXPECT_EQ(Base(2), JobBaseState::kRunning);
  EXPECT_TRUE(Carry(TimerStage(At(kNow + 299)), kNow + 299).events.empty());
  Carry(TimerStage(At(kNow + 300)), kNow + 300);
  EXPECT_EQ(Base(2), JobBaseState::kTimeout);
}

// An event applied without NoteApplied (recovery applies the log so) makes the next timer
// pass look at every running job: a shortened limit is not missed.
TEST_F(CoreTest, AnEventTheCoreDidNotNoteMakesTheTimersLookAtEveryJob) {
  v1::Job job = PendingJob(1);
  job.set_time_limit_min(10);
  Submit(job);
  ScheduleAt(kNow);
  EXPECT_TRUE(Carry(TimerStage(At(kNow + 60)), kNow + 60).events.empty());
  v1::Job shorter = *s_.FindJob(1);
  shorter.set_time_limit_min(2);
  MustApply(&s_, UpdateEvent(shorter, kNow + 61));  // not noted
  Carry(TimerStage(At(kNow + 120)), kNow + 120);
  EXPECT_EQ(Base(1), JobBaseState::kTimeout);
}

TEST_F(CoreTest, SignalWarningGoesOnceBeforeTheLimit) {
  v1::Job job = PendingJob(1);
  job.set_time_limit_min(10);
  job.mutable_request()->set_warn_signal(SIGUSR1);
  job.mutable_request()->set_warn_seconds(60);
  Submit(job);
  ScheduleAt(kNow);
  EXPECT_TRUE(TimerStage(At(kNow + 539)).actions.empty());
  const Effects warned = TimerStage(At(kNow + 540));
  ASSERT_EQ(warned.actions.size(), 1u);
  EXPECT_EQ(warned.actions[0].kind, AgentAction::Kind::kSignal);
  EXPECT_EQ(warned.actions[0].signal, SIGUSR1);
  EXPECT_TRUE(TimerStage(At(kNow + 541)).actions.empty());
}

TEST_F(CoreTest, ASilentNodeGoesDownThenItsJobsAreRequeuedOnceFenced) {
  Submit(PendingJob(1));
  ScheduleAt(kNow);
  memory_.last_heard["n1"] = kNow * 1000;
  const int64_t down = kNow + config_.node_timeout_sec + 1;
  Effects e = Carry(TimerStage(At(down)), down);
  ASSERT_EQ(e.events.size(), 1u);
  EXPECT_TRUE(e.events[0].has_node_lost());
  EXPECT_EQ(Base(1), JobBaseState::kRunning);  // its agent may still run it
  const int64_t fenced =
      kNow + config_.node_timeout_sec + config_.kill_wait_sec + kFenceMarginSec + 1;
  Carry(TimerStage(At(fenced)), fenced);
  EXPECT_EQ(Base(1), JobBaseState::kPending);
  EXPECT_EQ(s_.FindJob(1)->state_desc(), "node n1 failed");
}

TEST_F(CoreTest, PrologsOnEveryNodeThenTheBatchScriptOnTheFirst) {
  Submit(PendingJob(1, "batch", 2));
  const Effects scheduled = ScheduleStage(At(kNow));
  Carry(scheduled, kNow);
  const Effects prologs = PrologStage(At(kNow), StartedJobs(scheduled.events));
  ASSERT_EQ(prologs.actions.size(), 2u);
  EXPECT_EQ(prologs.actions[1].kind, AgentAction::Kind::kPrepare);
  EXPECT_EQ(prologs.actions[1].node_index, 1u);
  v1::JobReport report;
  report.set_job_id(1);
  report.set_epoch(s_.FindJob(1)->agent_epoch());
  report.set_kind(v1::JobReport::PROLOG_OK);
  report.set_node("n2");
  EXPECT_TRUE(OnReport(At(kNow), report)->events.empty());  // n1's prolog still runs
  report.set_node("n1");
  const Effects configured = Carry(*OnReport(At(kNow), report), kNow);
  ASSERT_EQ(configured.actions.size(), 1u);
  EXPECT_EQ(configured.actions[0].kind, AgentAction::Kind::kLaunchBatch);
  EXPECT_EQ(configured.actions[0].node, "n1");
  EXPECT_FALSE(state::JobStateOf(*s_.FindJob(1)).Has(model::JobFlag::kConfiguring));
}

TEST_F(CoreTest, ReportsAboutAnEarlierLaunchOrAnUnknownKind) {
  Submit(PendingJob(1));
  ScheduleAt(kNow);
  v1::JobReport report;
  report.set_job_id(1);
  report.set_node("n1");
  report.set_epoch(s_.FindJob(1)->agent_epoch() + 1);
  report.set_kind(v1::JobReport::BATCH_ENDED);
  const Result<Effects> stale = OnReport(At(kNow), report);
  ASSERT_TRUE(stale.ok());
  EXPECT_TRUE(stale->events.empty());
  report.set_epoch(s_.FindJob(1)->agent_epoch());
  report.set_kind(static_cast<v1::JobReport::Kind>(77));
  const Result<Effects> unknown = OnReport(At(kNow), report);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "report kind 77 is not known");
}

}  // namespace
}  // namespace gantry::core
