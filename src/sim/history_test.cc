// A cluster's history as a workload, and its replay.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/job_state.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/workload.h"
#include "state/testing.h"

namespace gantry::sim {
namespace {

using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

// An ended job's record as gantryd archives it.
v1::Job Ended(uint32_t id, int64_t submit, int64_t start, int64_t end) {
  v1::Job job = PendingJob(id, "batch", 1, kNow + submit);
  job.set_start_time(kNow + start);
  job.set_end_time(kNow + end);
  v1::NodeRelease& release = *job.add_node_releases();
  release.set_node("n1");
  release.set_time(kNow + end + 1);
  job.set_user_name("alice");
  job.set_user_id(1001);
  job.mutable_request()->set_num_tasks(1);
  job.mutable_request()->set_work_dir("/");
  job.set_num_cpus(1);
  return job;
}

TEST(WorkloadFromHistoryTest, EachJobAsItWasAcceptedWithItsRealRunTime) {
  v1::Job plain = Ended(3, 0, 5, 65);
  v1::Job suspended = Ended(4, 10, 20, 200);
  suspended.set_suspend_time(kNow + 150);  // resumed at +150 after 30 s of running
  suspended.set_pre_suspend_secs(30);
  v1::Job task = Ended(7, 20, 30, 40);
  task.set_array_job_id(5);
  task.set_array_task_id(1);
  task.mutable_request()->set_array("0-1");
  v1::Job last = Ended(5, 20, 30, 60);
  last.set_array_job_id(5);
  last.set_array_task_id(0);
  last.mutable_request()->set_array("0-1");
  v1::Job cancelled = PendingJob(6);  // never started
  cancelled.set_end_time(kNow + 70);
  const Workload w = WorkloadFromHistory({plain, suspended, task, last, cancelled});
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.never_ran, 1u);
  EXPECT_EQ(w.jobs[0].id, 3u);
  EXPECT_EQ(w.jobs[0].submit_s, 0);
  EXPECT_EQ(w.jobs[0].run_s, 60);
  ASSERT_EQ(w.jobs[0].releases.size(), 1u);
  EXPECT_EQ(w.jobs[0].releases.at("n1"), (std::vector<WorkloadJob::Release>{{66, 0}}));
  EXPECT_EQ(w.jobs[0].uid, 1001u);
  ASSERT_TRUE(w.jobs[0].request.has_value());
  EXPECT_EQ(w.jobs[1].run_s, 30 + 50);  // 30 s before the suspension, 50 after the resume
  EXPECT_EQ(w.jobs[2].id, 5u);          // the array, by its id
  EXPECT_EQ(w.jobs[2].task_run_s, (std::map<uint32_t, int64_t>{{0, 30}, {1, 10}}));
  EXPECT_EQ(w.jobs[2].task_job_ids, (std::map<uint32_t, uint32_t>{{0, 5}, {1, 7}}));
}

TEST(WorkloadFromHistoryTest, AReplayNamesTheJobsADependencyNamed) {
  // Job 2 waited for task 1 of array 1, whose own id was 3 there.
  v1::Job task = Ended(3, 0, 0, 100);
  task.set_array_job_id(1);
  task.set_array_task_id(1);
  task.mutable_request()->set_array("0-1");
  v1::Job last = Ended(1, 0, 0, 10);
  last.set_array_job_id(1);
  last.set_array_task_id(0);
  last.mutable_request()->set_array("0-1");
  v1::Job waiting = Ended(2, 0, 101, 111);
  waiting.mutable_request()->set_dependency("afterok:3");
  SimulationInput in;
  const std::vector<std::string> names = {"n1", "n2", "n3"};
  for (const std::string& name : names) *in.cluster.add_nodes() = MakeNode(name, 1, 16000, "");
  *in.cluster.add_partitions() = MakePartition("batch", names, /*is_default=*/true);
  in.workload = WorkloadFromHistory({task, last, waiting});
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->jobs.size(), 3u);
  // Job 2 starts once task 1 ended (on the third node), not when task 0 did.
  EXPECT_EQ(r->jobs[2].trace_id, 2u);
  EXPECT_EQ(r->jobs[2].start, 100) << JobsCsv(*r);
  EXPECT_EQ(r->jobs[1].run, 100);  // each task its own run time
}

TEST(WorkloadFromHistoryTest, OrdersAndThePassLogComeAlong) {
  v1::Job job = Ended(3, 10, 15, 65);
  job.set_submit_order(7);
  job.set_end_order(40);
  job.mutable_node_releases(0)->set_order(41);
  std::vector<v1::PassMark> passes(3);
  passes[0].set_time(kNow + 5);  // before the first submission: left out
  passes[1].set_time(kNow + 15);
  passes[1].set_seen(8);
  passes[1].set_backfill(true);
  passes[2].set_time(kNow + 66);
  passes[2].set_seen(41);
  const Workload w = WorkloadFromHistory({job}, passes);
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.jobs[0].submit_order, 7u);
  EXPECT_EQ(w.jobs[0].end_order, 40u);
  EXPECT_EQ(w.jobs[0].releases.at("n1"), (std::vector<WorkloadJob::Release>{{56, 41}}));
  ASSERT_EQ(w.passes.size(), 2u);
  EXPECT_EQ(w.passes[0].time(), 5);
  EXPECT_EQ(w.passes[0].seen(), 8u);
  EXPECT_TRUE(w.passes[0].backfill());
  EXPECT_EQ(w.passes[1].time(), 56);
}

TEST(WorkloadFromHistoryTest, ARequeuedJobIsSubmittedAsItFirstCame) {
  v1::Job requeued = Ended(3, 40, 50, 60);  // its record: submitted again at +40 by the requeue
  requeued.mutable_request()->set_begin_time(kNow + 45);  // the requeue's delay
  v1::JobRun& first_run = *requeued.add_earlier_runs();
  first_run.set_submit_time(kNow + 10);
  first_run.set_begin_time(kNow + 20);
  first_run.set_start_time(kNow + 20);
  first_run.set_end_time(kNow + 40);
  first_run.set_state(static_cast<uint32_t>(model::JobBaseState::kPreempted));
  const Workload w = WorkloadFromHistory({requeued});
  ASSERT_EQ(w.jobs.size(), 1u);
  EXPECT_EQ(w.start_time, kNow + 10);
  EXPECT_EQ(w.jobs[0].submit_s, 0);
  EXPECT_EQ(w.jobs[0].request->begin_time(), 10);  // from the workload's start
  EXPECT_EQ(w.jobs[0].run_s, 10);                  // its last run
  EXPECT_EQ(w.jobs[0].preempted_runs, 1u);         // a preemption ended the one before
  // A run that a node's failure ended is not replayed as one: not counted.
  requeued.mutable_earlier_runs(0)->set_state(
      static_cast<uint32_t>(model::JobBaseState::kNodeFail));
  EXPECT_EQ(WorkloadFromHistory({requeued}).jobs[0].preempted_runs, 0u);
}

}  // namespace
}  // namespace gantry::sim
