#include "sched/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/job_state.h"
#include "state/cluster_state.h"
#include "state/events.h"
#include "state/priority.h"
#include "state/testing.h"
#include "state/volatile_updates.h"

namespace gantry::sched {
namespace {

using model::JobBaseState;
using state::ClusterState;
using state::kBasePriority;
using state::kUnlimited;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the builders

// Applies a pass's starts (of jobs, not array tasks: core/cycle_test.cc has those) and keeps its
// reasons on the jobs, as gantryd does (state::ApplyVolatile).
void ApplyDecisions(ClusterState* s, const Decisions& d, int64_t now) {
  for (const Start& start : d.starts) {
    MustApply(s, StartEvent(start.job_id, start.nodes, now, start.num_cpus, start.alloc_mem_mb,
                            start.time_limit_min, start.partition));
  }
  state::VolatileUpdates kept;
  kept.evaluated_at = now;
  for (const ReasonChange& change : d.reasons)
    kept.reasons.emplace_back(change.job_id, change.reason);
  state::ApplyVolatile(s, kept);
}

std::map<uint32_t, std::vector<std::string>> Started(const Decisions& d) {
  std::map<uint32_t, std::vector<std::string>> out;
  for (const Start& s : d.starts) out[s.job_id] = s.nodes;
  return out;
}

std::map<uint32_t, std::string> Reasons(const Decisions& d) {
  std::map<uint32_t, std::string> out;
  for (const ReasonChange& r : d.reasons) out[r.job_id] = r.reason;
  return out;
}

void Submit(ClusterState* s, v1::Job job) { MustApply(s, SubmitEvent(job, job.submit_time())); }

// SchedulerType=sched/builtin: strict priority order, no backfill.
SchedulerOptions Strict() {
  SchedulerOptions o;
  o.backfill = false;
  return o;
}

// Where backfill plans a start that `t` allows: the next multiple of bf_resolution (absolute
// times, as Slurm's node space map rounds them).
int64_t OnGrid(int64_t t, int64_t resolution = 60) {
  return (t + resolution - 1) / resolution * resolution;
}

// Occupies `nodes` with a running job `id` (time limit 60 minutes, started at kNow).
void Occupy(ClusterState* s, uint32_t id, const std::vector<std::string>& nodes) {
  Submit(s, PendingJob(id, "batch", static_cast<uint32_t>(nodes.size())));
  MustApply(s, StartEvent(id, nodes, kNow, 64 * static_cast<uint32_t>(nodes.size()), 0));
}

TEST(ScheduleTest, StartsByPriorityThenSubmitTimeThenId) {
  ClusterState s = MakeCluster(3);
  v1::Job low = PendingJob(1, "batch", 1, kNow - 100);
  low.set_priority(kBasePriority - 10);
  Submit(&s, low);
  Submit(&s, PendingJob(4, "batch", 1, kNow - 50));
  Submit(&s, PendingJob(3, "batch", 1, kNow - 60));
  Submit(&s, PendingJob(2, "batch", 1, kNow - 60));
  const Decisions d = Schedule(s, kNow);
  ASSERT_EQ(d.starts.size(), 3u);
  EXPECT_EQ(d.starts[0].job_id, 2u);  // same time as 3, lower id
  EXPECT_EQ(d.starts[1].job_id, 3u);
  EXPECT_EQ(d.starts[2].job_id, 4u);
  EXPECT_EQ(d.starts[0].nodes, std::vector<std::string>{"n1"});
  EXPECT_EQ(d.starts[1].nodes, std::vector<std::string>{"n2"});
  EXPECT_EQ(d.starts[2].nodes, std::vector<std::string>{"n3"});
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{1, "Resources"}}));
}

TEST(ScheduleTest, MultiNodeJobGetsDistinctWholeNodes) {
  ClusterState s = MakeCluster(4);
  v1::Job job = PendingJob(1, "batch", 3);
  job.set_time_limit_min(120);
  Submit(&s, job);
  v1::Job per_node = PendingJob(2, "batch", 1);
  per_node.mutable_request()->set_mem_per_node_mb(1000);
  Submit(&s, per_node);
  const Decisions d = Schedule(s, kNow);
  ASSERT_EQ(d.starts.size(), 2u);
  const Start& big = d.starts[0];
  EXPECT_EQ(big.job_id, 1u);
  EXPECT_EQ(big.partition, "batch");
  EXPECT_EQ(big.nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(big.num_cpus, 192u);
  EXPECT_EQ(big.alloc_mem_mb, 3u * 256000);  // no memory asked: whole nodes
  EXPECT_EQ(big.time_limit_min, 120u);
  EXPECT_EQ(d.starts[1].nodes, std::vector<std::string>{"n4"});
  EXPECT_EQ(d.starts[1].alloc_mem_mb, 1000u);
  EXPECT_TRUE(d.reasons.empty());
}

TEST(ScheduleTest, TakesUpToMaxNodes) {
  ClusterState s = MakeCluster(4);
  Occupy(&s, 9, {"n2"});
  v1::Job job = PendingJob(1, "batch", 1);
  job.mutable_request()->set_max_nodes(2);
  Submit(&s, job);
  const Decisions d = Schedule(s, kNow);
  ASSERT_EQ(d.starts.size(), 1u);
  EXPECT_EQ(d.starts[0].nodes, (std::vector<std::string>{"n1", "n3"}));
}

TEST(ScheduleTest, SkipsUnusableNodes) {
  ClusterState s = MakeCluster(6);
  MustApply(&s, NodeOpEvent({"n1"}, "DRAIN", "maint"));
  MustApply(&s, LostEvent("n2"));
  MustApply(&s, NodeOpEvent({"n3"}, "DOWN", "broken"));
  Occupy(&s, 9, {"n4"});
  MustApply(&s, EndEvent(9, JobBaseState::kCompleted, kNow));  // n4 completing
  MustApply(&s, NodeOpEvent({"n5"}, "FAIL", "ecc"));
  Submit(&s, PendingJob(1));
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{1, {"n6"}}}));
}

TEST(ScheduleTest, StrictPriorityBlocksPartition) {
  ClusterState s = MakeCluster(4);
  v1::Partition other = MakePartition("other", {"n5"});
  std::vector<v1::Node> nodes;
  for (const std::string& n : NodeNames(5)) nodes.push_back(MakeNode(n));
  MustApply(&s, ConfigEvent(nodes, {MakePartition("batch", NodeNames(4), true), other}));
  MustApply(&s, RegisterEvent("n5"));
  Occupy(&s, 9, {"n1", "n2"});
  Submit(&s, PendingJob(1, "batch", 3));  // needs 3 of the 2 free: Resources
  Submit(&s, PendingJob(2, "batch", 1));  // would fit, but behind job 1: Priority
  Submit(&s, PendingJob(3, "other", 1));  // another partition: starts
  const Decisions d = Schedule(s, kNow, Strict());
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{3, {"n5"}}}));
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{1, "Resources"}, {2, "Priority"}}));
}

TEST(ScheduleTest, OverlappingPartitionCannotTakeKeptNodes) {
  ClusterState s = MakeCluster(4);
  std::vector<v1::Node> nodes;
  for (const std::string& n : NodeNames(4)) nodes.push_back(MakeNode(n));
  MustApply(&s, ConfigEvent(nodes, {MakePartition("batch", {"n1", "n2", "n3"}, true),
                                    MakePartition("wide", NodeNames(4))}));
  Occupy(&s, 9, {"n1"});
  Submit(&s, PendingJob(1, "batch", 3));  // blocked: keeps n2, n3
  Submit(&s, PendingJob(2, "wide", 2));   // n4 alone is not enough without n2/n3: Priority
  Submit(&s, PendingJob(3, "wide", 1));   // wide is now blocked too
  const Decisions d = Schedule(s, kNow, Strict());
  EXPECT_TRUE(d.starts.empty());
  EXPECT_EQ(Reasons(d),
            (std::map<uint32_t, std::string>{{1, "Resources"}, {2, "Priority"}, {3, "Priority"}}));
}

// Backfill: job 1 needs 3 nodes and gets n1-n3 planned from when job 9 ends (kNow + 1 h). A
// one-hour job fits before that plan and starts now; a two-hour job would delay job 1 and
// waits; a job without a time limit can only use n4, which nobody planned for.
TEST(ScheduleTest, BackfillStartsOnlyJobsThatDoNotDelayPlannedOnes) {
  ClusterState s = MakeCluster(4);
  Occupy(&s, 9, {"n1", "n2"});
  Submit(&s, PendingJob(1, "batch", 3));
  v1::Job long_job = PendingJob(2, "batch", 2);
  long_job.set_time_limit_min(120);
  Submit(&s, long_job);
  Submit(&s, PendingJob(3, "batch", 1));  // 60 minutes
  v1::Job unlimited = PendingJob(4, "batch", 1);
  unlimited.set_time_limit_min(kUnlimited);
  Submit(&s, unlimited);
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{3, {"n3"}}, {4, {"n4"}}}));
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{1, "Resources"}, {2, "Priority"}}));
  ASSERT_EQ(d.expected_starts.size(), 2u);
  EXPECT_EQ(d.expected_starts[0].job_id, 1u);
  EXPECT_EQ(d.expected_starts[0].time, OnGrid(kNow + 3600));
  // Job 2 goes after job 1's plan: its two nodes are free from job 1's end (n4 is taken by
  // job 4 for ever, so n1 and n2 or n3 after kNow + 2 h).
  EXPECT_EQ(d.expected_starts[1].job_id, 2u);
  EXPECT_EQ(d.expected_starts[1].time, OnGrid(kNow + 2 * 3600));
  // sdiag's view: 4 jobs tried, 2 of them started past job 1 (backfilled); 2 planned, holding
  // 3 + 2 node reservations.
  EXPECT_EQ(d.stats.queue_length, 4u);
  EXPECT_EQ(d.stats.depth, 4u);
  EXPECT_EQ(d.stats.backfilled, 2u);
  EXPECT_EQ(d.stats.bf_tried, 2u);
  EXPECT_EQ(d.stats.bf_planned, 2u);
  EXPECT_EQ(d.stats.bf_reservations, 5u);
}

// A job asking for part of a node: -n tasks, memory per CPU, GPUs.
v1::Job SharedJob(uint32_t id, uint32_t tasks, uint64_t mem_per_cpu, const std::string& gres) {
  v1::Job job = PendingJob(id, "batch", 1);
  job.mutable_request()->set_num_tasks(tasks);
  job.mutable_request()->set_mem_per_cpu_mb(mem_per_cpu);
  job.mutable_request()->set_gres(gres);
  return job;
}

// Consumable resources: jobs share a node while its CPUs, memory and GPUs last (64 CPUs, 256000
// MB, 8 GPUs each); what the node's running jobs hold counts in the next pass; --exclusive and
// a request for all of a node's memory need an empty node.
TEST(ScheduleTest, JobsShareNodesWhileCpusMemoryAndGpusLast) {
  ClusterState s = MakeCluster(2);
  Submit(&s, SharedJob(1, 16, 2000, "gpu:2"));
  Submit(&s, SharedJob(2, 48, 2000, "gpu:6"));  // the rest of n1's CPUs and GPUs
  Submit(&s, SharedJob(3, 1, 100, "gpu:1"));    // n1 is full
  v1::Job exclusive = SharedJob(4, 1, 100, "");
  exclusive.mutable_request()->set_exclusive(true);
  Submit(&s, exclusive);  // n2 holds job 3
  Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d),
            (std::map<uint32_t, std::vector<std::string>>{{1, {"n1"}}, {2, {"n1"}}, {3, {"n2"}}}));
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{4, "Resources"}}));
  ASSERT_EQ(d.starts.size(), 3u);
  EXPECT_EQ(d.starts[0].num_cpus, 16u);
  EXPECT_EQ(d.starts[0].alloc_mem_mb, 32000u);
  EXPECT_EQ(d.starts[2].num_cpus, 1u);
  ApplyDecisions(&s, d, kNow);
  EXPECT_EQ(state::NodeStateOf(*s.FindNode("n1")).base, model::NodeBaseState::kAllocated);
  EXPECT_EQ(state::NodeStateOf(*s.FindNode("n2")).base, model::NodeBaseState::kMixed);
  EXPECT_EQ(s.FindNode("n2")->alloc_cpus(), 1u);

  // The next pass sees what the nodes hold: 7 GPUs and 63 CPUs left on n2.
  Submit(&s, SharedJob(5, 8, 1000, "gpu:7"));
  Submit(&s, SharedJob(6, 60, 1000, ""));  // 55 CPUs left after job 5
  d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{5, {"n2"}}}));
  EXPECT_EQ(Reasons(d).at(6), "Priority");  // behind the exclusive job 4
}

TEST(ScheduleTest, LowestWeightNodesFirst) {
  ClusterState s = MakeCluster(3);
  s.nodes[0].set_weight(10);
  s.nodes[1].set_weight(1);
  s.nodes[2].set_weight(5);
  Submit(&s, PendingJob(1, "batch", 1));
  Submit(&s, PendingJob(2, "batch", 2));
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d),
            (std::map<uint32_t, std::vector<std::string>>{{1, {"n2"}}, {2, {"n1", "n3"}}}));
}

TEST(ScheduleTest, WholeNodesForExclusivePartitionsAndSelectLinear) {
  ClusterState s = MakeCluster(2);
  s.partitions[0].set_oversubscribe("EXCLUSIVE");
  Submit(&s, SharedJob(1, 1, 100, ""));
  Submit(&s, SharedJob(2, 1, 100, ""));
  Submit(&s, SharedJob(3, 1, 100, ""));
  Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{1, {"n1"}}, {2, {"n2"}}}));
  EXPECT_EQ(d.starts[0].num_cpus, 64u);       // all its CPUs
  EXPECT_EQ(d.starts[0].alloc_mem_mb, 100u);  // the memory it asked for

  s.partitions[0].set_oversubscribe("NO");
  SchedulerOptions linear;
  linear.whole_nodes = true;
  d = Schedule(s, kNow, linear);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{1, {"n1"}}, {2, {"n2"}}}));
  // Without it the three share n1.
  d = Schedule(s, kNow);
  EXPECT_EQ(Started(d),
            (std::map<uint32_t, std::vector<std::string>>{{1, {"n1"}}, {2, {"n1"}}, {3, {"n1"}}}));
}

// Backfill plans whole nodes from when their jobs end; a shared job starts on a planned node
// only if it ends before the plan.
TEST(ScheduleTest, SharedJobsRespectBackfillPlans) {
  ClusterState s = MakeCluster(2);
  Submit(&s, PendingJob(9, "batch", 1));
  MustApply(&s, StartEvent(9, {"n1"}, kNow, 32, 1000, 60));  // half of n1 until kNow + 1 h
  v1::Job wide = PendingJob(1, "batch", 2);                  // needs both nodes whole
  Submit(&s, wide);
  v1::Job long_job = SharedJob(2, 4, 100, "");
  long_job.set_time_limit_min(120);
  Submit(&s, long_job);
  Submit(&s, SharedJob(3, 4, 100, ""));  // 60 minutes
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{3, {"n1"}}}));
  EXPECT_EQ(Reasons(d).at(2), "Priority");
  ASSERT_FALSE(d.expected_starts.empty());
  EXPECT_EQ(d.expected_starts[0].job_id, 1u);
  EXPECT_EQ(d.expected_starts[0].time, OnGrid(kNow + 3600));
}

TEST(ScheduleTest, PlansShareOutNodesThatFreeUpTogether) {
  // Six nodes busy for an hour; four 2-node jobs of an hour wait. The first three are planned
  // side by side when the nodes free up, the fourth after them.
  ClusterState s = MakeCluster(6);
  Occupy(&s, 9, {"n1", "n2", "n3", "n4", "n5", "n6"});
  for (uint32_t id = 1; id <= 4; ++id) Submit(&s, PendingJob(id, "batch", 2));
  const Decisions d = Schedule(s, kNow);
  ASSERT_EQ(d.expected_starts.size(), 4u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(d.expected_starts[k].time, OnGrid(kNow + 3600)) << k;
  EXPECT_EQ(d.expected_starts[3].time, OnGrid(kNow + 3600) + 3600);
  EXPECT_EQ(d.stats.bf_reservations, 8u);
}

// Gives way at the `at`-th time the pass asks: once per job it looks at. `change` is what
// others do meanwhile.
class FakeYield final : public PassYield {
 public:
  FakeYield(int at, std::function<void(Interference*)> change)
      : at_(at), change_(std::move(change)) {}
  bool Due() override { return ++calls_ == at_; }
  void Yield() override {
    ++yields;
    change_(&interference_);
  }
  const Interference& interference() const override { return interference_; }
  int yields = 0;

 private:
  int at_;
  int calls_ = 0;
  std::function<void(Interference*)> change_;
  Interference interference_;
};

TEST(ScheduleTest, APassThatGivesWayDropsWhatChangedMeanwhile) {
  // Four one-node jobs for four free nodes. The pass gives way after starting job 1: job 2 is
  // cancelled and job 3 updated meanwhile; job 4 is untouched.
  ClusterState s = MakeCluster(4);
  for (uint32_t id = 1; id <= 4; ++id) Submit(&s, PendingJob(id, "batch", 1, kNow - 100 + id));
  FakeYield yield(2, [&s](Interference* changed) {  // before job 2
    MustApply(&s, EndEvent(2, model::JobBaseState::kCancelled));
    changed->jobs = {2, 3};
  });
  const Decisions d = Schedule(s, kNow, SchedulerOptions(), &yield);
  EXPECT_EQ(yield.yields, 1);
  EXPECT_EQ(d.stats.yields, 1u);
  // Job 2 no longer waits: skipped. Job 3's start goes (the next pass decides it again).
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{1, {"n1"}}, {4, {"n3"}}}));
}

TEST(ScheduleTest, APassThatGivesWayStopsWhenCapacityMayHaveGone) {
  ClusterState s = MakeCluster(4);
  for (uint32_t id = 1; id <= 4; ++id) Submit(&s, PendingJob(id, "batch", 1, kNow - 100 + id));
  FakeYield yield(3, [](Interference* changed) { changed->capacity = true; });
  const Decisions d = Schedule(s, kNow, SchedulerOptions(), &yield);
  EXPECT_EQ(yield.yields, 1);
  EXPECT_TRUE(d.starts.empty());  // decided before the yield, dropped after it
  EXPECT_EQ(d.stats.depth, 2u);   // jobs 3 and 4 were not looked at
}

TEST(ScheduleTest, BackfillPlansOnTheResolutionGridWithinTheWindow) {
  ClusterState s = MakeCluster(2);
  Occupy(&s, 9, {"n1", "n2"});
  Submit(&s, PendingJob(1, "batch", 2));
  SchedulerOptions o;
  o.bf_resolution_sec = 7 * 60;
  Decisions d = Schedule(s, kNow, o);
  ASSERT_EQ(d.expected_starts.size(), 1u);
  EXPECT_EQ(d.expected_starts[0].time, OnGrid(kNow + 3600, 7 * 60));
  // Later passes plan the same start: the grid does not move with the pass's clock.
  for (int64_t later : {kNow + 1, kNow + 59, kNow + 7 * 60 + 13}) {
    const Decisions again = Schedule(s, later, o);
    ASSERT_EQ(again.expected_starts.size(), 1u);
    EXPECT_EQ(again.expected_starts[0].time, d.expected_starts[0].time) << "pass at " << later;
  }
  o.bf_window_sec = 30 * 60;  // the nodes free after the window: not planned
  d = Schedule(s, kNow, o);
  EXPECT_TRUE(d.expected_starts.empty());
  EXPECT_EQ(d.stats.bf_tried, 1u);  // tried, nothing planned
  EXPECT_EQ(d.stats.bf_planned, 0u);
  o = SchedulerOptions();
  o.bf_max_job_test = 0;
  d = Schedule(s, kNow, o);
  EXPECT_TRUE(d.expected_starts.empty());
  EXPECT_EQ(d.stats.bf_tried, 0u);
}

// bf_max_job_user / bf_max_job_part: one user's (one partition's) jobs past the limit get no
// plan in the pass; other users' still do.
TEST(ScheduleTest, BackfillPlansAtMostSoManyJobsPerUserAndPartition) {
  ClusterState s = MakeCluster(2);
  Occupy(&s, 9, {"n1", "n2"});
  for (uint32_t id = 1; id <= 3; ++id) Submit(&s, PendingJob(id, "batch", 1));  // alice's
  v1::Job bobs = PendingJob(4, "batch", 1);
  bobs.set_user_id(1002);
  Submit(&s, bobs);
  SchedulerOptions o;
  auto planned = [&] {
    std::vector<uint32_t> ids;
    for (const ExpectedStart& e : Schedule(s, kNow, o).expected_starts) ids.push_back(e.job_id);
    return ids;
  };
  EXPECT_EQ(planned(), (std::vector<uint32_t>{1, 2, 3, 4}));
  o.bf_max_job_user = 2;
  EXPECT_EQ(planned(), (std::vector<uint32_t>{1, 2, 4}));
  o.bf_max_job_part = 1;
  EXPECT_EQ(planned(), (std::vector<uint32_t>{1}));
}

TEST(ScheduleTest, SchedulerOptionsFromConfig) {
  Result<SchedulerOptions> o = SchedulerOptions::FromConfig(
      "sched/backfill", "bf_window=2880,bf_resolution=300,bf_max_job_test=50,bf_continue");
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o->backfill);
  EXPECT_EQ(o->bf_window_sec, 2880 * 60);
  EXPECT_EQ(o->bf_resolution_sec, 300);
  EXPECT_EQ(o->bf_max_job_test, 50u);
  EXPECT_EQ(o->bf_max_job_user, 0u);
  EXPECT_EQ(o->bf_yield_interval_us, 5000);  // Gantry's defaults (Slurm: 2 s and 0.5 s)
  EXPECT_EQ(o->bf_yield_sleep_us, 20000);
  o = SchedulerOptions::FromConfig("", "bf_yield_interval=0,bf_yield_sleep=1000");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->bf_yield_interval_us, 0);  // never gives way
  EXPECT_EQ(o->bf_yield_sleep_us, 1000);
  EXPECT_FALSE(SchedulerOptions::FromConfig("", "bf_yield_sleep=0").ok());
  o = SchedulerOptions::FromConfig("", "bf_max_job_user=2,bf_max_job_part=30");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->bf_max_job_user, 2u);
  EXPECT_EQ(o->bf_max_job_part, 30u);
  EXPECT_EQ(o->bf_interval_sec, 0);  // unset: every pass
  EXPECT_EQ(SchedulerOptions::FromConfig("", "bf_interval=300")->bf_interval_sec, 300);
  EXPECT_EQ(SchedulerOptions::FromConfig("", "bf_interval=-1")->bf_interval_sec, -1);
  EXPECT_EQ(SchedulerOptions::FromConfig("", "bf_interval=10801").status().message(),
            "SchedulerParameters: invalid value 'bf_interval=10801' (bf_interval is a whole "
            "number from -1 to 10800)");
  EXPECT_EQ(SchedulerOptions::FromConfig("", "bf_max_job_user=x").status().message(),
            "SchedulerParameters: invalid value 'bf_max_job_user=x' (bf_max_job_user is a whole "
            "number from 0 to 1000000)");
  EXPECT_FALSE(SchedulerOptions::FromConfig("sched/builtin", "")->backfill);
  EXPECT_EQ(SchedulerOptions::FromConfig("sched/fancy", "").status().message(),
            "SchedulerType: invalid value 'sched/fancy' (sched/backfill or sched/builtin)");
  EXPECT_EQ(SchedulerOptions::FromConfig("", "bf_window=0").status().message(),
            "SchedulerParameters: invalid value 'bf_window=0' (bf_window is a whole number from "
            "1 to 43200)");
}

// Slurm evaluates jobs by their partition's PriorityTier before their priority: a job of the
// high-tier partition takes the one free node although a job of the default partition has a
// higher priority.
TEST(ScheduleTest, HigherPriorityTierGoesFirst) {
  ClusterState s;
  s.return_to_service = 2;
  v1::Partition high = MakePartition("high", {"n1"});
  high.set_priority_tier(10);
  MustApply(&s, ConfigEvent({MakeNode("n1")}, {MakePartition("batch", {"n1"}, true), high}));
  MustApply(&s, RegisterEvent("n1"));
  v1::Job low_tier = PendingJob(1, "batch");
  low_tier.set_priority(kBasePriority + 1000);
  Submit(&s, low_tier);
  Submit(&s, PendingJob(2, "high"));
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{2, {"n1"}}}));
}

TEST(ScheduleTest, RequiredAndExcludedNodes) {
  ClusterState s = MakeCluster(4);
  v1::Job want_n3 = PendingJob(1);
  want_n3.mutable_request()->set_req_nodes("n3");
  Submit(&s, want_n3);
  v1::Job not_first = PendingJob(2);
  not_first.mutable_request()->set_exc_nodes("n[1-2]");
  Submit(&s, not_first);
  v1::Job pair = PendingJob(3, "batch", 2);
  pair.mutable_request()->set_req_nodes("n2");
  Submit(&s, pair);
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{
                            {1, {"n3"}}, {2, {"n4"}}, {3, {"n1", "n2"}}}));
}

TEST(ScheduleTest, BusyRequiredNodeBlocks) {
  ClusterState s = MakeCluster(4);
  Occupy(&s, 9, {"n1"});
  v1::Job job = PendingJob(1);
  job.mutable_request()->set_req_nodes("n1");
  Submit(&s, job);
  Submit(&s, PendingJob(2));
  const Decisions d = Schedule(s, kNow, Strict());
  EXPECT_TRUE(d.starts.empty());
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{1, "Resources"}, {2, "Priority"}}));
}

TEST(ScheduleTest, FeaturesAndGres) {
  ClusterState s;
  s.return_to_service = 2;
  MustApply(&s, ConfigEvent({MakeNode("n1", 64, 256000, "", ""),
                             MakeNode("n2", 64, 256000, "gpu:h100:8", "ib")},
                            {MakePartition("batch", {"n1", "n2"}, true)}));
  for (const char* n : {"n1", "n2"}) MustApply(&s, RegisterEvent(n));
  v1::Job gpu = PendingJob(1);
  gpu.mutable_request()->set_gres("gpu:h100:4");
  Submit(&s, gpu);
  v1::Job ib = PendingJob(2);
  ib.mutable_request()->set_features("ib");
  Submit(&s, ib);
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d), (std::map<uint32_t, std::vector<std::string>>{{1, {"n2"}}}));
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{2, "Resources"}}));
}

TEST(ScheduleTest, PendingReasons) {
  struct Case {
    std::string name;
    std::function<void(ClusterState*, v1::Job*)> setup;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"more nodes than the partition has",
       [](ClusterState*, v1::Job* j) { j->mutable_request()->set_min_nodes(10); },
       "PartitionConfig"},
      {"above MaxNodes",
       [](ClusterState* s, v1::Job* j) {
         s->partitions[0].set_max_nodes(2);
         j->mutable_request()->set_min_nodes(3);
       },
       "PartitionNodeLimit"},
      {"below MinNodes", [](ClusterState* s, v1::Job*) { s->partitions[0].set_min_nodes(2); },
       "PartitionNodeLimit"},
      {"above MaxTime",
       [](ClusterState* s, v1::Job* j) {
         s->partitions[0].set_max_time_min(30);
         j->set_time_limit_min(60);
       },
       "PartitionTimeLimit"},
      {"unlimited job, limited partition",
       [](ClusterState* s, v1::Job* j) {
         s->partitions[0].set_max_time_min(30);
         j->set_time_limit_min(kUnlimited);
       },
       "PartitionTimeLimit"},
      {"partition down", [](ClusterState* s, v1::Job*) { s->partitions[0].set_state("DOWN"); },
       "PartitionDown"},
      {"partition inactive",
       [](ClusterState* s, v1::Job*) { s->partitions[0].set_state("INACTIVE"); },
       "PartitionInactive"},
      {"begin time",
       [](ClusterState*, v1::Job* j) { j->mutable_request()->set_begin_time(kNow + 60); },
       "BeginTime"},
      {"every node drained",
       [](ClusterState* s, v1::Job*) {
         ASSERT_TRUE(state::Apply(s, NodeOpEvent(NodeNames(4), "DRAIN", "r")).ok());
       },
       "ReqNodeNotAvail, UNAVAILABLE:n[1-4]"},
      {"required node down",
       [](ClusterState* s, v1::Job* j) {
         ASSERT_TRUE(state::Apply(s, NodeOpEvent({"n2"}, "DOWN", "r")).ok());
         j->mutable_request()->set_req_nodes("n2");
       },
       "ReqNodeNotAvail, UNAVAILABLE:n2"},
      {"not enough nodes fit",
       [](ClusterState*, v1::Job* j) {
         j->mutable_request()->set_min_nodes(2);
         j->mutable_request()->set_mem_per_node_mb(300000);
       },
       "PartitionConfig"},
  };
  for (const Case& c : cases) {
    ClusterState s = MakeCluster(4);
    v1::Job job = PendingJob(1);
    c.setup(&s, &job);
    Submit(&s, job);
    const Decisions d = Schedule(s, kNow);
    EXPECT_TRUE(d.starts.empty()) << c.name;
    EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{1, c.reason}})) << c.name;
  }
}

TEST(ScheduleTest, BeginTimeReached) {
  ClusterState s = MakeCluster(1);
  v1::Job job = PendingJob(1);
  job.mutable_request()->set_begin_time(kNow + 60);
  job.set_reason("BeginTime");
  Submit(&s, job);
  EXPECT_TRUE(Schedule(s, kNow + 59).reasons.empty());  // unchanged: nothing to say
  EXPECT_EQ(Schedule(s, kNow + 60).starts.size(), 1u);
}

TEST(ScheduleTest, DependenciesFollowTheStatesOfTheJobsTheyName) {
  // Targets: 1 running (started at kNow), 2 COMPLETED, 3 FAILED, 4 pending; 99 unknown (long
  // gone). Each case is one pending job with that dependency, alone in a fresh cluster.
  struct Case {
    const char* dependency;
    const char* reason;  // "" = starts
  };
  const Case cases[] = {
      {"afterok:2", ""},
      {"afterok:1", "Dependency"},
      {"afterok:3", "DependencyNeverSatisfied"},
      {"afternotok:3", ""},
      {"afternotok:2", "DependencyNeverSatisfied"},
      {"afterany:2:3", ""},
      {"afterany:1", "Dependency"},
      {"after:1", ""},
      {"after:1+5", "Dependency"},  // started 0 minutes ago
      {"after:4", "Dependency"},
      {"afterok:99", ""},
      {"afterok:2,afterok:3", "DependencyNeverSatisfied"},
      {"afterok:2,afterany:1", "Dependency"},
      {"afterok:3?afterok:2", ""},
      {"afterok:3?afterany:1", "Dependency"},
      {"afterok:3?afternotok:2", "DependencyNeverSatisfied"},
  };
  for (const Case& c : cases) {
    ClusterState s = MakeCluster(3);
    Occupy(&s, 1, {"n1"});
    Occupy(&s, 2, {"n2"});
    MustApply(&s, EndEvent(2, JobBaseState::kCompleted));
    MustApply(&s, ReleaseEvent(2, "n2"));
    Occupy(&s, 3, {"n2"});
    MustApply(&s, EndEvent(3, JobBaseState::kFailed));
    MustApply(&s, ReleaseEvent(3, "n2"));
    v1::Job blocked = PendingJob(4);
    blocked.mutable_request()->set_begin_time(kNow + 3600);
    Submit(&s, blocked);
    v1::Job job = PendingJob(10);
    job.mutable_request()->set_dependency(c.dependency);
    Submit(&s, job);
    const Decisions d = Schedule(s, kNow);
    const std::map<uint32_t, std::string> reasons = Reasons(d);
    if (*c.reason == '\0') {
      EXPECT_EQ(Started(d).count(10), 1u) << c.dependency;
    } else {
      EXPECT_EQ(Started(d).count(10), 0u) << c.dependency;
      ASSERT_EQ(reasons.count(10), 1u) << c.dependency;
      EXPECT_EQ(reasons.at(10), c.reason) << c.dependency;
    }
  }
}

TEST(ScheduleTest, KillOnInvalidDependencyCancelsInsteadOfWaiting) {
  ClusterState s = MakeCluster(2);
  Occupy(&s, 1, {"n1"});
  MustApply(&s, EndEvent(1, JobBaseState::kFailed));
  MustApply(&s, ReleaseEvent(1, "n1"));
  v1::Job kill = PendingJob(2);
  kill.mutable_request()->set_dependency("afterok:1");
  kill.mutable_request()->set_kill_on_invalid_dep(1);
  Submit(&s, kill);
  v1::Job keep = PendingJob(3);
  keep.mutable_request()->set_dependency("afterok:1");
  keep.mutable_request()->set_kill_on_invalid_dep(2);  // --kill-on-invalid-dep=no
  Submit(&s, keep);
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(d.cancels, std::vector<uint32_t>{2});
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{3, "DependencyNeverSatisfied"}}));
  EXPECT_TRUE(d.starts.empty());
}

TEST(ScheduleTest, SingletonWaitsForEarlierJobsOfTheSameNameAndUser) {
  ClusterState s = MakeCluster(3);
  v1::Job first = PendingJob(1);
  first.mutable_request()->set_name("train");
  Submit(&s, first);
  v1::Job other_name = PendingJob(2);
  other_name.mutable_request()->set_dependency("singleton");
  Submit(&s, other_name);
  v1::Job second = PendingJob(3);
  second.mutable_request()->set_name("train");
  second.mutable_request()->set_dependency("singleton");
  Submit(&s, second);
  Decisions d = Schedule(s, kNow);
  EXPECT_EQ(Started(d).count(1), 1u);
  EXPECT_EQ(Started(d).count(2), 1u);
  EXPECT_EQ(Reasons(d).at(3), "Dependency");
  ApplyDecisions(&s, d, kNow);
  MustApply(&s, EndEvent(1, JobBaseState::kCancelled));  // any end will do
  EXPECT_EQ(Started(Schedule(s, kNow)).count(3), 1u);
}

TEST(ScheduleTest, ArrayTasksWaitForResources) {
  ClusterState s = MakeCluster(2);
  Submit(&s, PendingArray(10, {1, 2, 3}));
  const Decisions d = Schedule(s, kNow);
  EXPECT_EQ(d.starts.size(), 2u);
  EXPECT_EQ(Reasons(d), (std::map<uint32_t, std::string>{{10, "Resources"}}));
}

std::map<uint32_t, std::string> DependencyStatus(const Decisions& d) {
  std::map<uint32_t, std::string> out;
  for (const DependencyChange& c : d.dependencies) out[c.job_id] = c.status;
  return out;
}

TEST(ScheduleTest, DependencyStatusListsTheOpenTerms) {
  ClusterState s = MakeCluster(2);
  Occupy(&s, 1, {"n1"});
  Submit(&s, PendingJob(2));
  MustApply(&s, HoldEvent(2, true));
  auto with = [&](uint32_t id, const std::string& dep) {
    v1::Job job = PendingJob(id);
    job.mutable_request()->set_dependency(dep);
    Submit(&s, job);
  };
  with(3, "afterok:1,afterany:99,after:2+5");
  with(4, "afternotok:1?afterok:2");
  with(5, "singleton");
  Decisions d = Schedule(s, kNow);
  EXPECT_EQ(DependencyStatus(d), (std::map<uint32_t, std::string>{
                                     {3, "afterok:1(unfulfilled),after:2+5(unfulfilled)"},
                                     {4, "afternotok:1(unfulfilled)?afterok:2(unfulfilled)"},
                                     {5, ""}}));
  // Job 1 fails: afterok can never hold; afternotok holds, so 4's '?' is met.
  MustApply(&s, EndEvent(1, JobBaseState::kFailed, kNow + 1, 256));
  MustApply(&s, ReleaseEvent(1, "n1", kNow + 1));
  d = Schedule(s, kNow + 2);
  EXPECT_EQ(DependencyStatus(d)[3], "afterok:1(failed),after:2+5(unfulfilled)");
  EXPECT_EQ(DependencyStatus(d)[4], "");
}

TEST(ScheduleTest, LeavesHeldAndCompletingJobsAlone) {
  ClusterState s = MakeCluster(2);
  v1::Job held = PendingJob(1);
  held.set_priority(0);
  held.set_reason("JobHeldUser");
  Submit(&s, held);
  Occupy(&s, 2, {"n1"});
  MustApply(&s, RequeueEvent(2, false, "", kNow));  // pending, still completing on n1
  const Decisions d = Schedule(s, kNow);
  EXPECT_TRUE(d.starts.empty());
  EXPECT_TRUE(d.reasons.empty());
  MustApply(&s, ReleaseEvent(2, "n1", kNow));
  EXPECT_EQ(Started(Schedule(s, kNow)),
            (std::map<uint32_t, std::vector<std::string>>{{2, {"n1"}}}));
}

TEST(ScheduleTest, SecondJobOfSeveralPartitions) {
  ClusterState s = MakeCluster(2);
  std::vector<v1::Node> nodes = {MakeNode("n1"), MakeNode("n2")};
  MustApply(&s, ConfigEvent(nodes, {MakePartition("a", {"n1"}, true), MakePartition("b", {"n2"})}));
  Occupy(&s, 9, {"n1"});
  v1::Job job = PendingJob(1, "a");
  job.mutable_request()->add_partitions("b");
  Submit(&s, job);
  const Decisions d = Schedule(s, kNow);
  ASSERT_EQ(d.starts.size(), 1u);
  EXPECT_EQ(d.starts[0].partition, "b");
  EXPECT_EQ(d.starts[0].nodes, std::vector<std::string>{"n2"});
}

TEST(ScheduleTest, PartitionDefaultTimeWhenJobHasNone) {
  ClusterState s = MakeCluster(1);
  s.partitions[0].set_default_time_min(15);
  v1::Job job = PendingJob(1);
  job.set_time_limit_min(0);
  Submit(&s, job);
  const Decisions d = Schedule(s, kNow);
  ASSERT_EQ(d.starts.size(), 1u);
  EXPECT_EQ(d.starts[0].time_limit_min, 15u);
}

TEST(ScheduleTest, ApplyingDecisionsSettles) {
  ClusterState s = MakeCluster(4);
  for (uint32_t id = 1; id <= 10; ++id) Submit(&s, PendingJob(id, "batch", id % 3 + 1));
  const Decisions first = Schedule(s, kNow);
  ApplyDecisions(&s, first, kNow);
  const Decisions second = Schedule(s, kNow);
  EXPECT_TRUE(second.starts.empty());
  EXPECT_TRUE(second.reasons.empty());
  // Every started job runs on nodes nobody else holds.
  std::map<std::string, int> users;
  for (const Start& start : first.starts) {
    for (const std::string& n : start.nodes) ++users[n];
  }
  for (const auto& [node, count] : users) EXPECT_EQ(count, 1) << node;
}

// 100k pending jobs on 1k nodes: one pass starts 1000 jobs and gives every other job a reason.
// The time is recorded, not asserted.
TEST(ScheduleTest, HundredThousandJobsThousandNodes) {
  ClusterState s;
  s.return_to_service = 2;
  std::vector<v1::Node> nodes;
  const std::vector<std::string> names = NodeNames(1000);
  for (const std::string& n : names) nodes.push_back(MakeNode(n));
  MustApply(&s, ConfigEvent(nodes, {MakePartition("batch", names, true)}));
  for (const std::string& n : names) MustApply(&s, RegisterEvent(n));
  for (uint32_t id = 1; id <= 100000; ++id) {
    Submit(&s, PendingJob(id, "batch", 1, kNow - 100000 + id));
  }
  // The fastest of a few passes, to keep other load on the machine out of the figure.
  Decisions d;
  int64_t best_us = INT64_MAX;
  for (int round = 0; round < 5; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    d = Schedule(s, kNow);
    const auto t1 = std::chrono::steady_clock::now();
    best_us = std::min<int64_t>(
        best_us, std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count());
  }
  RecordProperty("schedule_us", static_cast<int>(best_us));
  ASSERT_EQ(d.starts.size(), 1000u);
  EXPECT_EQ(d.starts.front().job_id, 1u);
  EXPECT_EQ(d.starts.back().job_id, 1000u);
  EXPECT_EQ(d.reasons.size(), 99000u);
  EXPECT_EQ(d.reasons.front().reason, "Resources");
  EXPECT_EQ(d.reasons.back().reason, "Priority");
  ApplyDecisions(&s, d, kNow);
  const auto t2 = std::chrono::steady_clock::now();
  const Decisions again = Schedule(s, kNow);
  const auto t3 = std::chrono::steady_clock::now();
  RecordProperty(
      "settled_schedule_us",
      static_cast<int>(std::chrono::duration_cast<std::chrono::microseconds>(t3 - t2).count()));
  EXPECT_TRUE(again.starts.empty());
  EXPECT_TRUE(again.reasons.empty());
}

}  // namespace
}  // namespace gantry::sched

namespace gantry::sched {
namespace {

// alice in account `team` (under `lab`) on every partition, with `set` applied to her
// association; `lab_grp_jobs` on lab's association when non-zero. Limits enforced.
ClusterState WithLimits(const std::function<void(v1::Association*)>& set,
                        uint32_t lab_grp_jobs = 0) {
  ClusterState s = MakeCluster(4);
  s.enforce_limits = true;
  state::ApplyAccountingChange(state::DefaultAccounting(), &s.accounting);
  v1::AccountingChange change = state::testing::LabTeamAlice();
  for (v1::Association& a : *change.mutable_associations()) {
    if (!a.user().empty()) set(&a);
    if (a.account() == "lab" && lab_grp_jobs != 0) a.set_grp_jobs(lab_grp_jobs);
  }
  state::ApplyAccountingChange(change, &s.accounting);
  EXPECT_TRUE(state::CheckAccounting(s.accounting).ok());
  return s;
}

v1::Job TeamJob(uint32_t id, uint32_t minutes = 60) {
  v1::Job job = PendingJob(id);
  job.mutable_request()->set_account("team");
  job.mutable_request()->set_qos("normal");
  job.set_time_limit_min(minutes);
  return job;
}

TEST(ScheduleLimitsTest, MaxJobsGrpJobsAndMaxWallKeepJobsPendingWithSlurmsReasons) {
  struct Case {
    std::string name;
    ClusterState state;
    std::map<uint32_t, std::string> reasons;  // the jobs left pending
  };
  std::vector<Case> cases;
  cases.push_back({"MaxJobs=1",
                   WithLimits([](v1::Association* a) { a->set_max_jobs(1); }),
                   {{2, "AssocMaxJobsLimit"}, {3, "AssocMaxJobsLimit"}}});
  cases.push_back({"GrpJobs=2 two accounts up",
                   WithLimits([](v1::Association*) {}, 2),
                   {{3, "AssocGrpJobsLimit"}}});
  cases.push_back({"MaxWall=30 minutes",
                   WithLimits([](v1::Association* a) { a->set_max_wall_min(30); }),
                   {{1, "AssocMaxWallDurationPerJobLimit"},
                    {2, "AssocMaxWallDurationPerJobLimit"},
                    {3, "AssocMaxWallDurationPerJobLimit"}}});
  // Nodes have 64 CPUs: whole-node jobs take them all, so two fit 128 and the third waits.
  ClusterState cpus = WithLimits([](v1::Association*) {});
  for (auto& [id, a] : cpus.accounting.associations) {
    if (a.account() == "lab" && a.user().empty()) a.set_grp_tres("cpu=128");
  }
  cases.push_back({"GrpTRES=cpu=128 on lab", cpus, {{3, "AssocGrpCpuLimit"}}});
  ClusterState per_user = WithLimits([](v1::Association*) {});
  per_user.accounting.qos["normal"].set_max_jobs_per_user(2);
  cases.push_back({"QOS MaxJobsPerUser=2", per_user, {{3, "QOSMaxJobsPerUserLimit"}}});
  ClusterState qos = WithLimits([](v1::Association*) {});
  qos.accounting.qos["normal"].set_max_wall_min(30);
  cases.push_back({"QOS MaxWall=30 minutes",
                   qos,
                   {{1, "QOSMaxWallDurationPerJobLimit"},
                    {2, "QOSMaxWallDurationPerJobLimit"},
                    {3, "QOSMaxWallDurationPerJobLimit"}}});
  for (Case& c : cases) {
    for (uint32_t id : {1u, 2u, 3u}) Submit(&c.state, TeamJob(id));
    EXPECT_EQ(Reasons(Schedule(c.state, kNow)), c.reasons) << c.name;
  }

  // Running jobs count too, and a job that ends frees its place.
  ClusterState s = WithLimits([](v1::Association* a) { a->set_max_jobs(1); });
  Submit(&s, TeamJob(1));
  Submit(&s, TeamJob(2));
  ApplyDecisions(&s, Schedule(s, kNow), kNow);
  EXPECT_EQ(s.FindJob(2)->reason(), "AssocMaxJobsLimit");
  MustApply(&s, EndEvent(1, JobBaseState::kCompleted, kNow + 10));
  EXPECT_EQ(Started(Schedule(s, kNow + 10)).count(2), 1u);

  // Not enforced: nothing is limited.
  ClusterState off = WithLimits([](v1::Association* a) { a->set_max_jobs(1); });
  off.enforce_limits = false;
  for (uint32_t id : {1u, 2u}) Submit(&off, TeamJob(id));
  EXPECT_EQ(Schedule(off, kNow).starts.size(), 2u);
}

TEST(ScheduleLimitsTest, GpusCountInEveryTresLimit) {
  // Four nodes of 8 H100s; alice's jobs 1-3 ask for 4 GPUs each for 60 minutes.
  struct Case {
    std::string name;
    std::function<void(ClusterState*)> limits;
    std::map<uint32_t, std::string> reasons;
  };
  auto association = [](ClusterState* s, uint32_t id) { return &s->accounting.associations[id]; };
  const std::vector<Case> cases = {
      {"MaxTRES=gres/gpu=2",
       [&](ClusterState* s) {
         association(s, state::testing::kAliceAssociation)->set_max_tres_per_job("gres/gpu=2");
       },
       {{1, "AssocMaxGRESPerJob"}, {2, "AssocMaxGRESPerJob"}, {3, "AssocMaxGRESPerJob"}}},
      {"GrpTRES=gres/gpu=8 on lab",
       [&](ClusterState* s) {
         association(s, state::testing::kLabAssociation)->set_grp_tres("gres/gpu=8");
       },
       {{3, "AssocGrpGRES"}}},
      {"MaxTRESMins=gres/gpu=100: 4 GPUs x 60 minutes",
       [&](ClusterState* s) {
         association(s, state::testing::kAliceAssociation)
             ->set_max_tres_mins_per_job("gres/gpu=100");
       },
       {{1, "AssocMaxGRESMinutesPerJob"},
        {2, "AssocMaxGRESMinutesPerJob"},
        {3, "AssocMaxGRESMinutesPerJob"}}},
      {"QOS MaxTRESPU=gres/gpu=4",
       [&](ClusterState* s) { s->accounting.qos["normal"].set_max_tres_per_user("gres/gpu=4"); },
       {{2, "QOSMaxGRESPerUser"}, {3, "QOSMaxGRESPerUser"}}},
      {"QOS GrpTRESRunMins=gres/gpu=500: 240 GPU minutes a job",
       [&](ClusterState* s) { s->accounting.qos["normal"].set_grp_tres_run_mins("gres/gpu=500"); },
       {{3, "QOSGrpGRESRunMinutes"}}},
  };
  for (const Case& c : cases) {
    ClusterState s;
    s.return_to_service = 2;
    std::vector<v1::Node> nodes;
    for (const std::string& n : NodeNames(4))
      nodes.push_back(MakeNode(n, 64, 256000, "gpu:h100:8"));
    MustApply(&s, ConfigEvent(nodes, {MakePartition("batch", NodeNames(4), true)}));
    for (const std::string& n : NodeNames(4)) MustApply(&s, RegisterEvent(n));
    s.enforce_limits = true;
    state::ApplyAccountingChange(state::DefaultAccounting(), &s.accounting);
    state::ApplyAccountingChange(state::testing::LabTeamAlice(), &s.accounting);
    c.limits(&s);
    for (uint32_t id : {1u, 2u, 3u}) {
      v1::Job job = TeamJob(id);
      job.mutable_request()->set_gres("gpu:h100:4");
      Submit(&s, job);
    }
    EXPECT_EQ(Reasons(Schedule(s, kNow)), c.reasons) << c.name;
  }
}

// The association `account` has for itself.
v1::Association* AccountAssociation(ClusterState* s, const std::string& account) {
  for (auto& [id, a] : s->accounting.associations) {
    if (a.account() == account && a.user().empty()) return &a;
  }
  return nullptr;
}

TEST(ScheduleLimitsTest, TresLimitsOfTheQosAndTheAssociationWithSlurmsReasons) {
  // Jobs 1-3 of alice in team, 60 minutes, 1 CPU on 1 node unless the case changes job 2; a
  // started job holds its whole node (64 CPUs).
  struct Case {
    std::string name;
    std::function<void(ClusterState*)> limits;
    std::function<void(v1::JobRequest*)> job2;
    std::map<uint32_t, std::string> reasons;  // the jobs left pending
  };
  auto alice = [](ClusterState* s) -> v1::Association& {
    for (auto& [id, a] : s->accounting.associations) {
      if (a.user() == "alice") return a;
    }
    return s->accounting.associations.begin()->second;
  };
  auto normal = [](ClusterState* s) -> v1::Qos& { return s->accounting.qos["normal"]; };
  auto none = [](v1::JobRequest*) {};
  const std::vector<Case> cases = {
      {"MaxTRES=cpu=4, job 2 asks 8 CPUs",
       [&](ClusterState* s) { alice(s).set_max_tres_per_job("cpu=4"); },
       [](v1::JobRequest* r) { r->set_cpus_per_task(8); },
       {{2, "AssocMaxCpuPerJobLimit"}}},
      {"MaxTRESPerNode=mem=1000, job 2 asks 2000 MB",
       [&](ClusterState* s) { alice(s).set_max_tres_per_node("mem=1000"); },
       [](v1::JobRequest* r) { r->set_mem_per_node_mb(2000); },
       {{2, "AssocMaxMemPerNode"}}},
      {"MaxTRESMins=cpu=100 on lab (inherited), job 2 asks 2 CPUs x 60 min",
       [&](ClusterState* s) { AccountAssociation(s, "lab")->set_max_tres_mins_per_job("cpu=100"); },
       [](v1::JobRequest* r) { r->set_cpus_per_task(2); },
       {{2, "AssocMaxCpuMinutesPerJobLimit"}}},
      {"QOS MaxTRES=node=1, job 2 asks 2 nodes",
       [&](ClusterState* s) { normal(s).set_max_tres_per_job("node=1"); },
       [](v1::JobRequest* r) { r->set_min_nodes(2); },
       {{2, "QOSMaxNodePerJobLimit"}}},
      {"QOS MinTRES=cpu=2",
       [&](ClusterState* s) { normal(s).set_min_tres_per_job("cpu=2"); },
       none,
       {{1, "QOSMinCpuNotSatisfied"}, {2, "QOSMinCpuNotSatisfied"}, {3, "QOSMinCpuNotSatisfied"}}},
      {"QOS MaxTRESPU=cpu=100: two whole nodes are 128",
       [&](ClusterState* s) { normal(s).set_max_tres_per_user("cpu=100"); },
       none,
       {{3, "QOSMaxCpuPerUserLimit"}}},
      {"QOS GrpTRESRunMins=cpu=7000: 64 CPUs x 60 minutes each",
       [&](ClusterState* s) { normal(s).set_grp_tres_run_mins("cpu=7000"); },
       none,
       {{3, "QOSGrpCPURunMinutesLimit"}}},
      {"QOS GrpJobs=2",
       [&](ClusterState* s) { normal(s).set_grp_jobs(2); },
       none,
       {{3, "QOSGrpJobsLimit"}}},
      {"QOS GrpTRES=node=2",
       [&](ClusterState* s) { normal(s).set_grp_tres("node=2"); },
       none,
       {{3, "QOSGrpNodeLimit"}}},
      {"the QOS's MaxTRES=cpu=16 replaces the association's cpu=4",
       [&](ClusterState* s) {
         alice(s).set_max_tres_per_job("cpu=4");
         normal(s).set_max_tres_per_job("cpu=16");
       },
       [](v1::JobRequest* r) { r->set_cpus_per_task(8); },
       {}},
      {"the QOS's MaxJobsPU=2 replaces the association's MaxJobs=1",
       [&](ClusterState* s) {
         alice(s).set_max_jobs(1);
         normal(s).set_max_jobs_per_user(2);
       },
       none,
       {{3, "QOSMaxJobsPerUserLimit"}}},
      {"GrpTRESMins=cpu=1000 on lab, 2000 CPU minutes used",
       [&](ClusterState* s) {
         v1::Association* lab = AccountAssociation(s, "lab");
         lab->set_grp_tres_mins("cpu=1000");
         v1::UsageTally& used = s->accounting.association_usage[lab->id()];
         used.set_as_of(kNow);
         (*used.mutable_tres_sec())["cpu"] = 2000 * 60;
       },
       none,
       {{1, "AssocGrpCPUMinutesLimit"},
        {2, "AssocGrpCPUMinutesLimit"},
        {3, "AssocGrpCPUMinutesLimit"}}},
      {"GrpTRESMins=cpu=1000, 2000 CPU minutes used two half-lives ago (500 now)",
       [&](ClusterState* s) {
         v1::Association* lab = AccountAssociation(s, "lab");
         lab->set_grp_tres_mins("cpu=1000");
         v1::UsageTally& used = s->accounting.association_usage[lab->id()];
         used.set_as_of(kNow - 2 * s->accounting.usage_half_life_sec);
         (*used.mutable_tres_sec())["cpu"] = 2000 * 60;
       },
       none,
       {}},
      {"GrpTRESMins=cpu=50: one job's 1 CPU x 60 minutes alone is more",
       [&](ClusterState* s) { AccountAssociation(s, "team")->set_grp_tres_mins("cpu=50"); },
       none,
       {{1, "AssocGrpCPUMinutesLimit"},
        {2, "AssocGrpCPUMinutesLimit"},
        {3, "AssocGrpCPUMinutesLimit"}}},
      {"GrpWall=10 on team, 20 minutes used",
       [&](ClusterState* s) {
         v1::Association* team = AccountAssociation(s, "team");
         team->set_grp_wall_min(10);
         v1::UsageTally& used = s->accounting.association_usage[team->id()];
         used.set_as_of(kNow);
         used.set_wall_sec(20 * 60);
       },
       none,
       {{1, "AssocGrpWallLimit"}, {2, "AssocGrpWallLimit"}, {3, "AssocGrpWallLimit"}}},
      {"safe: GrpTRESMins=cpu=7000, each job 64 CPUs x 60 minutes to run",
       [&](ClusterState* s) {
         s->enforce_safe = true;
         AccountAssociation(s, "team")->set_grp_tres_mins("cpu=7000");
       },
       none,
       {{3, "AssocGrpCPUMinutesLimit"}}},
      {"safe: GrpWall=30, each job 60 minutes",
       [&](ClusterState* s) {
         s->enforce_safe = true;
         AccountAssociation(s, "team")->set_grp_wall_min(30);
       },
       none,
       {{1, "AssocGrpWallLimit"}, {2, "AssocGrpWallLimit"}, {3, "AssocGrpWallLimit"}}},
      {"without safe the same GrpWall=30 lets them start",
       [&](ClusterState* s) { AccountAssociation(s, "team")->set_grp_wall_min(30); },
       none,
       {}},
  };
  for (const Case& c : cases) {
    ClusterState s = WithLimits([](v1::Association*) {});
    c.limits(&s);
    for (uint32_t id : {1u, 2u, 3u}) {
      v1::Job job = TeamJob(id);
      if (id == 2) c.job2(job.mutable_request());
      Submit(&s, job);
    }
    EXPECT_EQ(Reasons(Schedule(s, kNow)), c.reasons) << c.name;
  }
}

}  // namespace
}  // namespace gantry::sched
