// gantry sim's replays on a small cluster whose answers can be worked out by hand.
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/report.h"
#include "state/testing.h"

namespace gantry::sim {
namespace {

using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

// Two nodes of 4 CPUs in partition batch, Slurm's defaults otherwise.
SimulationInput Cluster() {
  SimulationInput in;
  const std::vector<std::string> names = {"n1", "n2"};
  for (const std::string& name : names) *in.cluster.add_nodes() = MakeNode(name, 4, 16000, "");
  *in.cluster.add_partitions() = MakePartition("batch", names, /*is_default=*/true);
  return in;
}

WorkloadJob Job(uint64_t id, int64_t submit, int64_t run, uint32_t nodes, uint32_t cpus) {
  WorkloadJob job;
  job.id = id;
  job.submit_s = submit;
  job.run_s = run;
  job.time_limit_s = run;
  job.nodes = nodes;
  job.cpus = cpus;
  job.user = "alice";
  job.account = "ml";
  return job;
}

const JobOutcome& Of(const SimulationResult& r, uint64_t trace_id) {
  for (const JobOutcome& job : r.jobs) {
    if (job.trace_id == trace_id) return job;
  }
  ADD_FAILURE() << "no job " << trace_id;
  static const JobOutcome kNone;
  return kNone;
}

TEST(SimulateTest, JobsStartWhenTheirNodesFreeUp) {
  SimulationInput in = Cluster();
  in.workload.jobs = {Job(1, 0, 100, 2, 8), Job(2, 10, 50, 1, 4), Job(3, 20, 30, 1, 2)};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const JobOutcome& first = Of(*r, 1);
  EXPECT_EQ(first.state, "COMPLETED");
  EXPECT_EQ(first.start, 0);
  EXPECT_EQ(first.end, 100);
  EXPECT_EQ(first.node_list, "n[1-2]");
  EXPECT_EQ(first.cpus, 8u);
  // Both wait for job 1, then share the nodes: 2 on n1, 3 beside it (cons_tres) on n2.
  EXPECT_EQ(Of(*r, 2).start, 100);
  EXPECT_EQ(Of(*r, 2).end, 150);
  EXPECT_EQ(Of(*r, 3).start, 100);
  EXPECT_EQ(Of(*r, 3).node_list, "n2");
  EXPECT_EQ(r->end, 150);
  EXPECT_EQ(r->total_cpus, 8u);
}

TEST(SimulateTest, TimeLimitsAndPrologsAndEpilogsTakeTheirTime) {
  SimulationInput in = Cluster();
  in.agent_times = AgentTimes{.prolog_sec = 2, .epilog_sec = 3};
  WorkloadJob late = Job(1, 0, 600, 2, 8);
  late.time_limit_s = 120;  // 2 minutes: ends TIMEOUT
  WorkloadJob second = Job(2, 0, 60, 1, 1);
  second.time_limit_s = 300;
  in.workload.jobs = {late, second};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const JobOutcome& first = Of(*r, 1);
  EXPECT_EQ(first.state, "TIMEOUT");
  EXPECT_EQ(first.end, 120);  // the limit counts from the start, prolog included
  // Job 2 waits for job 1's nodes, released once both epilogs ran (3 s).
  EXPECT_EQ(Of(*r, 2).start, 123);
  EXPECT_EQ(Of(*r, 2).end, 123 + 2 + 60);  // its script starts after its prolog
}

// Gang scheduling (OverSubscribe=FORCE:2, PreemptMode=GANG): two jobs that each need every CPU
// take turns of SchedulerTimeSlice; the simulated clock goes from turn to turn (the core's
// timers) with nothing else happening.
TEST(SimulateTest, GangTurnsComeEverySlice) {
  SimulationInput in = Cluster();
  in.cluster.mutable_partitions(0)->set_oversubscribe("FORCE:2");
  in.cluster.mutable_partitions(0)->set_def_mem_per_cpu_mb(1000);  // both fit in memory
  in.config.scheduler.preempt.gang = true;
  in.config.scheduler.time_slice_sec = 30;
  WorkloadJob first = Job(1, 0, 60, 2, 8);
  WorkloadJob second = Job(2, 5, 60, 2, 8);
  first.time_limit_s = second.time_limit_s = 600;
  in.workload.jobs = {first, second};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // 1 runs 0-30, 2 runs 30-60, 1 runs 60-90 and ends, 2 runs its last 30 s.
  EXPECT_EQ(Of(*r, 1).start, 0);
  EXPECT_EQ(Of(*r, 1).end, 90);
  EXPECT_EQ(Of(*r, 2).start, 30);
  EXPECT_EQ(Of(*r, 2).end, 120);
}

TEST(SimulateTest, AFollowingJobIsSubmittedItsThinkTimeAfterTheOneBefore) {
  SimulationInput in = Cluster();
  WorkloadJob next = Job(2, 0, 10, 1, 1);
  next.after = 1;
  next.after_delay_s = 5;
  WorkloadJob never = Job(3, 0, 10, 1, 1);
  never.after = 4;
  WorkloadJob refused = Job(4, 0, 10, 1, 1);
  refused.partition = "nope";
  in.workload.jobs = {Job(1, 0, 100, 1, 1), next, never, refused};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Of(*r, 2).submit, 105);
  EXPECT_EQ(Of(*r, 2).start, 105);
  EXPECT_EQ(Of(*r, 4).state, "REFUSED");
  EXPECT_EQ(Of(*r, 4).refusal, "Invalid partition name specified");
  EXPECT_EQ(Of(*r, 3).state, "NOT_SUBMITTED");
}

TEST(SimulateTest, ArrayTasksEachGetARow) {
  SimulationInput in = Cluster();
  WorkloadJob array = Job(1, 0, 100, 1, 4);
  array.array = "0-2";
  in.workload.jobs = {array};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->jobs.size(), 3u);
  EXPECT_EQ(r->jobs[0].job_id, "1_0");
  EXPECT_EQ(r->jobs[0].start, 0);
  EXPECT_EQ(r->jobs[1].start, 0);
  EXPECT_EQ(r->jobs[2].job_id, "1_2");
  EXPECT_EQ(r->jobs[2].start, 100);  // two nodes of 4 CPUs: the third waits
  EXPECT_EQ(r->jobs[2].state, "COMPLETED");
}

TEST(SimulateTest, TheSameInputGivesTheSameOutputs) {
  SimulationInput in = Cluster();
  for (uint64_t id = 1; id <= 200; ++id) {
    WorkloadJob job = Job(id, static_cast<int64_t>(id * 7 % 300),
                          static_cast<int64_t>(id * 13 % 500), 1 + id % 2, 1 + id % 4);
    job.user = "u" + std::to_string(id % 5);
    job.account = "a" + std::to_string(id % 3);
    in.workload.jobs.push_back(job);
  }
  std::stable_sort(
      in.workload.jobs.begin(), in.workload.jobs.end(),
      [](const WorkloadJob& a, const WorkloadJob& b) { return a.submit_s < b.submit_s; });
  in.config.priority.multifactor = true;
  in.config.priority.weight_fairshare = 10000;
  in.config.priority.weight_age = 1000;
  Result<SimulationResult> a = Simulate(in);
  Result<SimulationResult> b = Simulate(in);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(JobsCsv(*a), JobsCsv(*b));
  EXPECT_EQ(SummaryJson(Summarize(*a)), SummaryJson(Summarize(*b)));
  EXPECT_EQ(Summarize(*a).states.at("COMPLETED"), 200u);
}

TEST(ReportTest, SummaryFiguresFromOutcomes) {
  SimulationResult r;
  r.total_cpus = 10;
  r.account_targets = {{"a", 0.25}, {"b", 0.75}};
  JobOutcome one;
  one.account = "a";
  one.state = "COMPLETED";
  one.submit = 0;
  one.start = 0;
  one.end = 100;
  one.cpus = 10;
  JobOutcome two = one;
  two.account = "b";
  two.submit = 50;
  two.start = 100;
  two.end = 200;
  two.cpus = 5;
  r.jobs = {one, two};
  const Summary s = Summarize(r);
  EXPECT_EQ(s.makespan_s, 200);
  EXPECT_DOUBLE_EQ(s.utilization, (1000.0 + 500.0) / 2000.0);
  EXPECT_DOUBLE_EQ(s.wait_mean_s, 25.0);
  EXPECT_EQ(s.wait_p50_s, 0);
  EXPECT_EQ(s.wait_max_s, 50);
  EXPECT_DOUBLE_EQ(s.bounded_slowdown_mean, (1.0 + 1.5) / 2);
  ASSERT_EQ(s.accounts.size(), 2u);
  EXPECT_DOUBLE_EQ(s.accounts[0].usage_share, 1000.0 / 1500.0);
  EXPECT_DOUBLE_EQ(s.accounts[1].target_share, 0.75);
  EXPECT_EQ(JobsCsv(r).substr(0, JobsCsv(r).find('\n')),
            "job_id,trace_id,user,account,partition,state,submit,start,end,wait,run,nodes,cpus,"
            "node_list,preemptions");
}

// A history's pass log: cycles run where the real ones ran and nowhere else, each after the
// submissions and releases it had seen (their orders), not after all of its second's.
TEST(SimulateTest, ReplayRunsCyclesOnlyWhereTheRecordedOnesRan) {
  SimulationInput in = Cluster();
  WorkloadJob whole = Job(1, 0, 100, 2, 8);
  whole.submit_order = 1;
  whole.end_order = 9;
  whole.releases = {{"n1", {{100, 10}}}, {"n2", {{100, 11}}}};
  WorkloadJob second = Job(2, 50, 10, 1, 4);
  second.submit_order = 5;
  WorkloadJob third = Job(3, 104, 10, 1, 4);
  third.submit_order = 12;  // after the cycle at 104 had looked
  in.workload.jobs = {whole, second, third};
  auto mark = [](int64_t time, uint64_t seen) {
    v1::PassMark m;
    m.set_time(time);
    m.set_seen(seen);
    return m;
  };
  // The cycle at 104 had seen n2's release too; the one at 106, the third job.
  in.workload.passes = {mark(0, 1), mark(104, 11), mark(106, 12)};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->cycles, 3u);
  EXPECT_EQ(Of(*r, 1).start, 0);
  EXPECT_EQ(Of(*r, 2).start, 104);  // its own passes would have started it at 100
  EXPECT_EQ(Of(*r, 2).node_list, "n1");
  EXPECT_EQ(Of(*r, 3).start, 106);  // n2 was free at 104, but that cycle had not seen it
  EXPECT_EQ(Of(*r, 3).node_list, "n2");

  in.workload.passes.clear();  // the simulator's own passes
  r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Of(*r, 2).start, 100);
  EXPECT_EQ(Of(*r, 3).start, 104);
}

// Job 1's first run was preempted in the history, so its record's run time is its last run's: a
// replay runs the first until something ends it, as it really ran, and does not end it early.
TEST(SimulateTest, ARunAPreemptionEndedRunsUntilSomethingEndsIt) {
  SimulationInput in = Cluster();
  v1::Partition& lo = *in.cluster.mutable_partitions(0);
  lo.set_priority_tier(1);
  v1::Partition hi = lo;
  hi.set_name("hi");
  hi.set_is_default(false);
  hi.set_priority_tier(10);
  *in.cluster.add_partitions() = hi;
  Result<sched::PreemptOptions> preempt =
      sched::PreemptOptions::FromConfig("preempt/partition_prio", "REQUEUE", "");
  ASSERT_TRUE(preempt.ok()) << preempt.status().ToString();
  in.config.scheduler.preempt = *preempt;
  WorkloadJob requeued = Job(1, 0, 5, 2, 8);
  requeued.time_limit_s = 600;
  requeued.preempted_runs = 1;
  WorkloadJob preemptor = Job(2, 10, 10, 2, 8);
  preemptor.partition = "hi";
  in.workload.jobs = {requeued, preemptor};
  Result<SimulationResult> r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Of(*r, 2).start, 10);
  EXPECT_EQ(Of(*r, 1).preemptions, 1u);
  EXPECT_GE(Of(*r, 1).start, 20);  // its last run, after job 2's

  in.workload.jobs[0].preempted_runs = 0;  // a job that ran once: its run time is its own
  r = Simulate(in);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Of(*r, 1).end, 5);
  EXPECT_EQ(Of(*r, 1).preemptions, 0u);
  EXPECT_EQ(Of(*r, 2).start, 10);
}

}  // namespace
}  // namespace gantry::sim
