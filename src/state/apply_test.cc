#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "state/cluster_state.h"
#include "state/events.h"
#include "state/priority.h"
#include "state/records.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using model::JobBaseState;
using model::JobFlag;
using model::NodeBaseState;
using model::NodeFlag;
using namespace testing;  // NOLINT(google-build-using-namespace): the builders

constexpr int64_t kLater = kNow + 100;

const v1::Job& Job(const ClusterState& s, uint32_t id) { return *s.FindJob(id); }
const v1::Node& Node(const ClusterState& s, const std::string& name) { return *s.FindNode(name); }
std::string NodeLong(const ClusterState& s, const std::string& name) {
  return model::NodeStateString(NodeStateOf(Node(s, name)));
}
std::string NodeComplete(const ClusterState& s, const std::string& name) {
  return model::NodeStateComplete(NodeStateOf(Node(s, name)));
}
std::string JobComplete(const ClusterState& s, uint32_t id) {
  return model::JobStateComplete(JobStateOf(Job(s, id)));
}
std::vector<uint32_t> PendingIds(const ClusterState& s) {
  std::vector<uint32_t> ids;
  for (const PendingKey& k : s.pending) ids.push_back(k.job_id);
  return ids;
}
std::vector<uint32_t> JobIds(const v1::Node& node) {
  return std::vector<uint32_t>(node.job_ids().begin(), node.job_ids().end());
}

// Jobs: 1 pending; 2 running on n1; 3 completed on n2 and still completing there.
ClusterState BaseState() {
  ClusterState s = MakeCluster(4);
  for (uint32_t id : {1u, 2u, 3u}) MustApply(&s, SubmitEvent(PendingJob(id)));
  MustApply(&s, StartEvent(2, {"n1"}, kNow, 64, 256000));
  MustApply(&s, StartEvent(3, {"n2"}, kNow, 64, 256000));
  MustApply(&s, EndEvent(3, JobBaseState::kCompleted, kNow + 10));
  return s;
}

TEST(ApplyTest, MakeClusterRegistersEveryNodeIdle) {
  const ClusterState s = MakeCluster(3);
  ASSERT_EQ(s.nodes.size(), 3u);
  for (const v1::Node& node : s.nodes) {
    EXPECT_EQ(model::NodeStateComplete(NodeStateOf(node)), "IDLE") << node.name();
    EXPECT_EQ(std::vector<std::string>(node.partitions().begin(), node.partitions().end()),
              std::vector<std::string>{"batch"});
    EXPECT_EQ(node.address(), "127.0.0.1:7000");
    EXPECT_EQ(node.last_heartbeat(), kNow);
  }
  EXPECT_EQ(s.DefaultPartition()->name(), "batch");
  EXPECT_EQ(s.partition_nodes, (std::vector<std::vector<uint32_t>>{{0, 1, 2}}));
}

TEST(ApplyTest, SubmitAddsJobAndMovesNextId) {
  ClusterState s = MakeCluster();
  MustApply(&s, SubmitEvent(PendingJob(7)));
  EXPECT_EQ(s.next_job_id, 8u);
  MustApply(&s, SubmitEvent(PendingJob(3)));
  EXPECT_EQ(s.next_job_id, 8u);  // never goes back
  EXPECT_EQ(PendingIds(s), (std::vector<uint32_t>{3, 7}));
  EXPECT_EQ(Job(s, 7).request().name(), "job7");
}

TEST(ApplyTest, ArrayTasksSplitOffAndTheLastKeepsTheArrayId) {
  ClusterState s = MakeCluster();
  MustApply(&s, SubmitEvent(PendingArray(5, {1, 2, 3}, 2)));
  EXPECT_EQ(s.arrays.at(5), (std::set<uint32_t>{5}));
  MustApply(&s, SplitEvent(5, 2, 6));
  const v1::Job& task = Job(s, 6);
  EXPECT_EQ(task.array_job_id(), 5u);
  EXPECT_EQ(task.array_task_id(), 2u);
  EXPECT_EQ(task.array_pending_tasks_size(), 0);
  EXPECT_EQ(task.request().name(), "job5");
  EXPECT_EQ(std::vector<uint32_t>(Job(s, 5).array_pending_tasks().begin(),
                                  Job(s, 5).array_pending_tasks().end()),
            (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(s.next_job_id, 7u);
  EXPECT_EQ(PendingIds(s), (std::vector<uint32_t>{5, 6}));
  MustApply(&s, StartEvent(6, {"n1"}));
  MustApply(&s, SplitEvent(5, 1, 7));
  // The last pending task must keep the array's id.
  EXPECT_FALSE(Apply(&s, SplitEvent(5, 3, 8)).ok());
  MustApply(&s, SplitEvent(5, 3, 5));
  EXPECT_EQ(Job(s, 5).array_task_id(), 3u);
  EXPECT_EQ(s.arrays.at(5), (std::set<uint32_t>{5, 6, 7}));
  // A split-off task is no array record any more.
  EXPECT_FALSE(Apply(&s, SplitEvent(5, 3, 5)).ok());
  EXPECT_FALSE(Apply(&s, SplitEvent(6, 2, 9)).ok());
  // The index survives a snapshot.
  Result<ClusterState> copy = FromSnapshot(ToSnapshot(s));
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(copy->arrays, s.arrays);
}

TEST(ApplyTest, StepsCountFromZeroAndEndWithTheJob) {
  ClusterState s = BaseState();  // job 2 runs on n1
  v1::Event e;
  e.set_time(kNow + 1);
  e.mutable_job_step_changed()->set_job_id(2);
  v1::JobStep* step = e.mutable_job_step_changed()->mutable_step();
  step->set_step_id(1);
  step->set_name("sleep");
  EXPECT_FALSE(Apply(&s, e).ok());  // step 0 comes first
  step->set_step_id(0);
  step->set_start_time(kNow + 1);
  step->set_exit_status(-1);
  step->set_state(static_cast<uint32_t>(JobBaseState::kRunning));
  MustApply(&s, e);
  MustApply(&s, EndEvent(2, JobBaseState::kCancelled, kNow + 9));
  ASSERT_EQ(Job(s, 2).steps_size(), 1);
  EXPECT_EQ(Job(s, 2).steps(0).end_time(), kNow + 9);
  EXPECT_EQ(Job(s, 2).steps(0).state(), static_cast<uint32_t>(JobBaseState::kCancelled));
}

TEST(ApplyTest, ArrayRecordsKeepTheirArrayIds) {
  ClusterState s = MakeCluster();
  EXPECT_FALSE(Apply(&s, SubmitEvent(PendingArray(5, {}))).ok());  // no tasks
  v1::Job wrong = PendingArray(5, {1});
  wrong.set_array_job_id(4);
  EXPECT_FALSE(Apply(&s, SubmitEvent(wrong)).ok());
  MustApply(&s, SubmitEvent(PendingArray(5, {1, 2})));
  v1::Job updated = Job(s, 5);
  updated.set_array_job_id(0);
  EXPECT_FALSE(Apply(&s, UpdateEvent(updated)).ok());
}

TEST(ApplyTest, PendingOrderIsPriorityThenSubmitTimeThenId) {
  ClusterState s = MakeCluster();
  v1::Job low = PendingJob(1, "batch", 1, kNow);
  low.set_priority(10);
  MustApply(&s, SubmitEvent(low));
  MustApply(&s, SubmitEvent(PendingJob(2, "batch", 1, kNow + 5)));
  MustApply(&s, SubmitEvent(PendingJob(4, "batch", 1, kNow)));
  MustApply(&s, SubmitEvent(PendingJob(3, "batch", 1, kNow)));
  EXPECT_EQ(PendingIds(s), (std::vector<uint32_t>{3, 4, 2, 1}));
  MustApply(&s, PriorityEvent(1, kBasePriority + 1, "Priority"));
  EXPECT_EQ(PendingIds(s), (std::vector<uint32_t>{1, 3, 4, 2}));
  EXPECT_EQ(Job(s, 1).reason(), "Priority");
}

TEST(ApplyTest, StartRunsJobOnNodes) {
  ClusterState s = MakeCluster();
  v1::Job pending = PendingJob(5, "batch", 2);
  pending.mutable_request()->set_gres("gres:gpu:4");
  MustApply(&s, SubmitEvent(pending));
  MustApply(&s, StartEvent(5, {"n2", "n3"}, kLater, 128, 2000, 90));
  const v1::Job& job = Job(s, 5);
  EXPECT_EQ(JobComplete(s, 5), "RUNNING,CONFIGURING");
  EXPECT_EQ(model::JobStateName(JobStateOf(job)), "CONFIGURING");
  EXPECT_EQ(job.start_time(), kLater);
  EXPECT_EQ(job.end_time(), kLater + 90 * 60);
  EXPECT_EQ(job.time_limit_min(), 90u);
  EXPECT_EQ(std::vector<std::string>(job.nodes().begin(), job.nodes().end()),
            (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(job.num_cpus(), 128u);
  EXPECT_EQ(job.alloc_mem_mb(), 2000u);
  EXPECT_EQ(job.agent_epoch(), 7u);
  EXPECT_EQ(job.reason(), "None");
  EXPECT_TRUE(s.pending.empty());
  for (const std::string name : {"n2", "n3"}) {
    EXPECT_EQ(NodeComplete(s, name), "ALLOCATED");
    EXPECT_EQ(JobIds(Node(s, name)), std::vector<uint32_t>{5});
    EXPECT_EQ(Node(s, name).alloc_cpus(), 64u);      // whole nodes
    EXPECT_EQ(Node(s, name).alloc_mem_mb(), 1000u);  // per-node request, split evenly
    EXPECT_EQ(Node(s, name).alloc_gres(), "gpu:4");
    EXPECT_EQ(Node(s, name).last_busy_time(), kLater);
  }
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE");

  MustApply(&s, JobConfiguredEvent(job, kLater + 2));
  EXPECT_EQ(JobComplete(s, 5), "RUNNING");
}

TEST(ApplyTest, UnlimitedJobHasNoEndTime) {
  ClusterState s = MakeCluster();
  MustApply(&s, SubmitEvent(PendingJob(1)));
  MustApply(&s, StartEvent(1, {"n1"}, kNow, 64, 0, kUnlimited));
  EXPECT_EQ(Job(s, 1).end_time(), 0);
  EXPECT_EQ(Job(s, 1).time_limit_min(), kUnlimited);
}

TEST(ApplyTest, EndMakesJobAndNodesCompletingUntilEveryNodeReleases) {
  ClusterState s = MakeCluster();
  MustApply(&s, SubmitEvent(PendingJob(5, "batch", 2)));
  MustApply(&s, StartEvent(5, {"n1", "n2"}, kNow, 128, 512000));
  MustApply(&s, EndEvent(5, JobBaseState::kFailed, kLater, 256, "NonZeroExitCode"));
  const v1::Job& job = Job(s, 5);
  EXPECT_EQ(JobComplete(s, 5), "FAILED,COMPLETING");
  EXPECT_EQ(model::JobStateCode(JobStateOf(job)), "CG");
  EXPECT_EQ(job.end_time(), kLater);
  EXPECT_EQ(job.exit_status(), 256);
  EXPECT_EQ(job.reason(), "NonZeroExitCode");
  EXPECT_EQ(s.completing.at(5), (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE+COMPLETING");
  EXPECT_EQ(model::SinfoStateShort(NodeStateOf(Node(s, "n1"))), "comp");
  EXPECT_EQ(Node(s, "n1").alloc_cpus(), 0u);
  EXPECT_EQ(JobIds(Node(s, "n1")), std::vector<uint32_t>{5});

  MustApply(&s, ReleaseEvent(5, "n2", kLater + 1));
  EXPECT_EQ(NodeComplete(s, "n2"), "IDLE");
  EXPECT_TRUE(Node(s, "n2").job_ids().empty());
  EXPECT_EQ(JobComplete(s, 5), "FAILED,COMPLETING");
  MustApply(&s, ReleaseEvent(5, "n1", kLater + 2));
  EXPECT_EQ(Node(s, "n1").last_busy_time(), kLater + 2);
  EXPECT_EQ(JobComplete(s, 5), "FAILED");
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE");
  EXPECT_FALSE(s.completing.contains(5));
}

// The index of running and suspended jobs follows every start, requeue and end, and a
// rebuild (a snapshot's restore) finds the same.
TEST(ApplyTest, ActiveIndexFollowsStartsRequeuesAndEnds) {
  ClusterState s = MakeCluster();
  for (uint32_t id : {1u, 2u, 3u}) MustApply(&s, SubmitEvent(PendingJob(id)));
  MustApply(&s, StartEvent(1, {"n1"}, kNow, 64, 0));
  MustApply(&s, StartEvent(2, {"n2"}, kNow, 64, 0));
  EXPECT_EQ(s.active, (std::set<uint32_t>{1, 2}));
  MustApply(&s, HoldEvent(2, true, true, kNow + 1));  // held while it runs: still running
  EXPECT_EQ(s.active, (std::set<uint32_t>{1, 2}));
  MustApply(&s, RequeueEvent(2));
  MustApply(&s, EndEvent(1, JobBaseState::kCompleted, kLater));
  EXPECT_TRUE(s.active.empty());
  MustApply(&s, StartEvent(3, {"n3"}, kLater, 64, 0));
  ClusterState rebuilt = s;
  rebuilt.active.clear();
  RebuildIndexes(&rebuilt);
  EXPECT_EQ(rebuilt.active, (std::set<uint32_t>{3}));
  EXPECT_EQ(s.active, rebuilt.active);
}

TEST(ApplyTest, CancelledPendingJobNeverCompletes) {
  ClusterState s = MakeCluster();
  MustApply(&s, SubmitEvent(PendingJob(1)));
  MustApply(&s, EndEvent(1, JobBaseState::kCancelled, kLater));
  EXPECT_EQ(JobComplete(s, 1), "CANCELLED");
  EXPECT_TRUE(s.completing.empty());
  EXPECT_TRUE(s.pending.empty());
}

TEST(ApplyTest, EpilogFailureDrainsNode) {
  ClusterState s = BaseState();
  MustApply(&s, ReleaseEvent(3, "n2", kLater, true, "epilog failed: exit 1"));
  EXPECT_EQ(NodeComplete(s, "n2"), "IDLE+DRAIN");
  EXPECT_EQ(NodeLong(s, "n2"), "DRAINED");
  EXPECT_EQ(Node(s, "n2").reason(), "epilog failed: exit 1");
  EXPECT_EQ(Node(s, "n2").reason_time(), kLater);
  EXPECT_EQ(JobComplete(s, 3), "COMPLETED");
}

TEST(ApplyTest, RequeueRunningJob) {
  ClusterState s = BaseState();
  MustApply(&s, RequeueEvent(2, false, "BeginTime", kLater));
  const v1::Job& job = Job(s, 2);
  EXPECT_EQ(JobComplete(s, 2), "PENDING,COMPLETING");
  EXPECT_EQ(job.restarts(), 1u);
  EXPECT_EQ(job.reason(), "BeginTime");
  EXPECT_EQ(job.submit_time(), kLater);
  EXPECT_EQ(job.start_time(), 0);
  EXPECT_EQ(job.end_time(), 0);
  EXPECT_TRUE(job.nodes().empty());
  EXPECT_EQ(job.priority(), kBasePriority);
  EXPECT_EQ(PendingIds(s), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE+COMPLETING");
  MustApply(&s, ReleaseEvent(2, "n1", kLater + 1));
  EXPECT_EQ(JobComplete(s, 2), "PENDING");
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE");
}

// Each requeue keeps the run that ended (sacct -D): PREEMPTED for preemption, REQUEUED else.
TEST(ApplyTest, RequeueKeepsTheEarlierRun) {
  ClusterState s = BaseState();
  const int64_t started = Job(s, 2).start_time();
  v1::Event preempted = RequeueEvent(2, false, "", kLater);
  preempted.mutable_job_requeued()->set_preempted(true);
  MustApply(&s, preempted);
  ASSERT_EQ(Job(s, 2).earlier_runs_size(), 1);
  const v1::JobRun& run = Job(s, 2).earlier_runs(0);
  EXPECT_EQ(run.start_time(), started);
  EXPECT_EQ(run.end_time(), kLater);
  EXPECT_EQ(run.state(), static_cast<uint32_t>(JobBaseState::kPreempted));
  EXPECT_FALSE(run.requeued());
  EXPECT_EQ(run.nodes(0), "n1");
  EXPECT_EQ(Job(s, 2).preempt_time(), kLater);
  MustApply(&s, ReleaseEvent(2, "n1", kLater + 1));
  MustApply(&s, StartEvent(2, {"n1"}, kLater + 2));
  MustApply(&s, RequeueEvent(2, false, "", kLater + 3));
  ASSERT_EQ(Job(s, 2).earlier_runs_size(), 2);
  EXPECT_TRUE(Job(s, 2).earlier_runs(1).requeued());
  EXPECT_EQ(Job(s, 2).earlier_runs(1).start_time(), kLater + 2);
}

TEST(ApplyTest, RequeuedJobCannotStartWhileCompleting) {
  ClusterState s = BaseState();
  MustApply(&s, RequeueEvent(2, false, "", kLater));
  const v1::ClusterSnapshot before = ToSnapshot(s);
  const Status status = Apply(&s, StartEvent(2, {"n3"}, kLater));
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "job 2 is still completing on its previous nodes");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(before, ToSnapshot(s)));
}

TEST(ApplyTest, RequeueHeld) {
  ClusterState s = BaseState();
  MustApply(&s, RequeueEvent(2, true, "", kLater));
  const v1::Job& job = Job(s, 2);
  EXPECT_EQ(JobComplete(s, 2), "PENDING,COMPLETING,REQUEUE_HOLD");
  EXPECT_EQ(job.priority(), 0u);
  EXPECT_EQ(job.reason(), "JobHeldAdmin");
  EXPECT_TRUE(job.held_by_admin());
  // Released: back in line with its nice-derived priority.
  MustApply(&s, ReleaseEvent(2, "n1", kLater + 1));
  MustApply(&s, HoldEvent(2, false, false, kLater + 2));
  EXPECT_EQ(JobComplete(s, 2), "PENDING");
  EXPECT_EQ(Job(s, 2).priority(), kBasePriority);
  EXPECT_EQ(Job(s, 2).reason(), "None");
}

TEST(ApplyTest, RequeueFinishedJob) {
  ClusterState s = BaseState();
  MustApply(&s, RequeueEvent(3, false, "", kLater));
  EXPECT_EQ(JobComplete(s, 3), "PENDING,COMPLETING");  // n2 has not released it yet
  EXPECT_EQ(Job(s, 3).exit_status(), -1);
  MustApply(&s, ReleaseEvent(3, "n2", kLater));
  EXPECT_EQ(JobComplete(s, 3), "PENDING");
}

TEST(ApplyTest, HoldAndRelease) {
  ClusterState s = BaseState();
  MustApply(&s, HoldEvent(1, true, false, kLater));
  EXPECT_EQ(Job(s, 1).priority(), 0u);
  EXPECT_EQ(Job(s, 1).reason(), "JobHeldUser");
  EXPECT_EQ(s.pending.begin()->priority, 0u);
  MustApply(&s, HoldEvent(1, true, true, kLater));
  EXPECT_EQ(Job(s, 1).reason(), "JobHeldAdmin");
  EXPECT_TRUE(Job(s, 1).held_by_admin());
  MustApply(&s, HoldEvent(1, false, true, kLater));
  EXPECT_EQ(Job(s, 1).priority(), kBasePriority);
  EXPECT_EQ(Job(s, 1).reason(), "None");
  EXPECT_FALSE(Job(s, 1).held_by_admin());
  // A running job can be held (priority 0); it stays held if requeued.
  MustApply(&s, HoldEvent(2, true, false, kLater));
  MustApply(&s, RequeueEvent(2, false, "", kLater));
  EXPECT_EQ(Job(s, 2).reason(), "JobHeldUser");
  EXPECT_EQ(Job(s, 2).priority(), 0u);
}

TEST(ApplyTest, NiceLowersReleasedPriority) {
  ClusterState s = MakeCluster();
  v1::Job job = PendingJob(1);
  job.mutable_request()->set_nice(100);
  job.set_priority(0);
  job.set_reason("JobHeldUser");
  MustApply(&s, SubmitEvent(job));
  MustApply(&s, HoldEvent(1, false));
  EXPECT_EQ(Job(s, 1).priority(), kBasePriority - 100);
}

TEST(ApplyTest, UpdateReplacesRecord) {
  ClusterState s = BaseState();
  v1::Job job = Job(s, 1);
  job.set_time_limit_min(30);
  job.mutable_request()->set_name("renamed");
  job.set_priority(5);
  MustApply(&s, UpdateEvent(job));
  EXPECT_EQ(Job(s, 1).time_limit_min(), 30u);
  EXPECT_EQ(Job(s, 1).request().name(), "renamed");
  EXPECT_EQ(s.pending.begin()->priority, 5u);
  // COMPLETING follows the completing table whatever the record says.
  v1::Job done = Job(s, 3);
  SetJobState(&done, JobStateOf(done).Clear(JobFlag::kCompleting));
  MustApply(&s, UpdateEvent(done));
  EXPECT_EQ(JobComplete(s, 3), "COMPLETED,COMPLETING");
}

TEST(ApplyTest, DrainShowsDrainingWhileJobsRunThenDrained) {
  ClusterState s = BaseState();
  MustApply(&s, NodeOpEvent({"n1", "n3"}, "drain", "bad gpu", kLater, 1001));
  EXPECT_EQ(NodeLong(s, "n1"), "DRAINING");
  EXPECT_EQ(NodeLong(s, "n3"), "DRAINED");
  EXPECT_EQ(Node(s, "n1").reason(), "bad gpu");
  EXPECT_EQ(Node(s, "n1").reason_uid(), 1001u);
  EXPECT_EQ(Node(s, "n1").reason_time(), kLater);
  MustApply(&s, EndEvent(2, JobBaseState::kCompleted, kLater));
  EXPECT_EQ(NodeLong(s, "n1"), "DRAINING");  // still completing
  MustApply(&s, ReleaseEvent(2, "n1", kLater));
  EXPECT_EQ(NodeLong(s, "n1"), "DRAINED");
  MustApply(&s, NodeOpEvent({"n1"}, "RESUME", "", kLater));
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE");
  EXPECT_EQ(Node(s, "n1").reason(), "");
}

TEST(ApplyTest, NodeOps) {
  struct Case {
    std::string name;
    std::vector<std::string> ops;  // applied in order to n3 (idle)
    std::string complete;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"down", {"DOWN"}, "DOWN", "r"},
      {"down then resume", {"DOWN", "RESUME"}, "IDLE", ""},
      {"down then idle", {"DOWN", "IDLE"}, "IDLE", ""},
      {"drain then undrain", {"DRAIN", "UNDRAIN"}, "IDLE", ""},
      {"drain then down", {"DRAIN", "DOWN"}, "DOWN+DRAIN", "r"},
      {"drained node resumed", {"DRAIN", "DOWN", "RESUME"}, "IDLE", ""},
      {"fail", {"FAIL"}, "IDLE+FAIL", "r"},
      {"fail then resume", {"FAIL", "RESUME"}, "IDLE", ""},
      {"prefix", {"dra"}, "IDLE+DRAIN", "r"},
      {"resume of idle node is a no-op", {"RESUME"}, "IDLE", ""},
  };
  for (const Case& c : cases) {
    ClusterState s = BaseState();
    for (const std::string& op : c.ops) MustApply(&s, NodeOpEvent({"n3"}, op, "r", kLater));
    EXPECT_EQ(NodeComplete(s, "n3"), c.complete) << c.name;
    EXPECT_EQ(Node(s, "n3").reason(), c.reason) << c.name;
  }
}

TEST(ApplyTest, NodeLostIsDownNotResponding) {
  ClusterState s = BaseState();
  MustApply(&s, LostEvent("n4", kLater));
  EXPECT_EQ(NodeComplete(s, "n4"), "DOWN+NOT_RESPONDING");
  EXPECT_EQ(NodeLong(s, "n4"), "DOWN*");
  EXPECT_EQ(Node(s, "n4").reason(), "Not responding");
  // An administrator's reason stays.
  MustApply(&s, NodeOpEvent({"n3"}, "DRAIN", "maintenance", kNow));
  MustApply(&s, LostEvent("n3", kLater));
  EXPECT_EQ(Node(s, "n3").reason(), "maintenance");
  EXPECT_EQ(NodeLong(s, "n3"), "DRAINED*");
}

TEST(ApplyTest, RegistrationFollowsReturnToService) {
  struct Case {
    int32_t rts;
    std::string how_down;  // "lost" or "admin"
    std::string complete_after;
  };
  const std::vector<Case> cases = {
      {0, "lost", "DOWN"},  {1, "lost", "IDLE"},  {2, "lost", "IDLE"},
      {0, "admin", "DOWN"}, {1, "admin", "DOWN"}, {2, "admin", "IDLE"},
  };
  for (const Case& c : cases) {
    ClusterState s = MakeCluster(2, c.rts);
    if (c.how_down == "lost") {
      MustApply(&s, LostEvent("n1", kNow));
    } else {
      MustApply(&s, NodeOpEvent({"n1"}, "DOWN", "broken", kNow));
    }
    MustApply(&s, RegisterEvent("n1", kLater));
    EXPECT_EQ(NodeComplete(s, "n1"), c.complete_after) << c.rts << " " << c.how_down;
    if (c.complete_after == "IDLE") {
      EXPECT_EQ(Node(s, "n1").reason(), "");
    }
  }
}

TEST(ApplyTest, RegistrationKeepsDrain) {
  ClusterState s = MakeCluster(2, 2);
  MustApply(&s, NodeOpEvent({"n1"}, "DRAIN", "maintenance", kNow));
  MustApply(&s, LostEvent("n1", kNow));
  MustApply(&s, RegisterEvent("n1", kLater));
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE+DRAIN");
  EXPECT_EQ(Node(s, "n1").reason(), "maintenance");
}

TEST(ApplyTest, ConfigReloadKeepsRuntimeStateAndAddsUnknownNodes) {
  ClusterState s = BaseState();
  MustApply(&s, NodeOpEvent({"n3"}, "DRAIN", "maintenance", kNow));
  std::vector<v1::Node> nodes;
  for (const char* name : {"n1", "n2", "n3", "n5"}) nodes.push_back(MakeNode(name, 32));
  MustApply(&s, ConfigEvent(nodes, {MakePartition("batch", {"n1", "n2"}, true),
                                    MakePartition("more", {"n2", "n3", "n5"})}));
  ASSERT_EQ(s.nodes.size(), 4u);
  EXPECT_EQ(s.FindNode("n4"), nullptr);
  EXPECT_EQ(Node(s, "n1").cpus(), 32u);
  EXPECT_EQ(NodeComplete(s, "n1"), "ALLOCATED");
  EXPECT_EQ(JobIds(Node(s, "n1")), std::vector<uint32_t>{2});
  EXPECT_EQ(NodeComplete(s, "n3"), "IDLE+DRAIN");
  EXPECT_EQ(Node(s, "n3").reason(), "maintenance");
  EXPECT_EQ(NodeComplete(s, "n5"), "UNKNOWN+NOT_RESPONDING");
  EXPECT_EQ(NodeLong(s, "n5"), "UNKNOWN*");
  EXPECT_EQ(std::vector<std::string>(Node(s, "n2").partitions().begin(),
                                     Node(s, "n2").partitions().end()),
            (std::vector<std::string>{"batch", "more"}));
  EXPECT_EQ(s.partition_nodes, (std::vector<std::vector<uint32_t>>{{0, 1}, {1, 2, 3}}));
  MustApply(&s, RegisterEvent("n5", kLater));
  EXPECT_EQ(NodeComplete(s, "n5"), "IDLE");  // first registration: always up
}

TEST(ApplyTest, PurgeForgetsOldFinishedJobsOnly) {
  ClusterState s = BaseState();
  MustApply(&s, SubmitEvent(PendingJob(4)));
  MustApply(&s, EndEvent(4, JobBaseState::kCancelled, kNow));
  EXPECT_EQ(PurgeFinishedJobs(&s, kLater), 1u);  // 3 is still completing
  EXPECT_EQ(s.FindJob(4), nullptr);
  ASSERT_NE(s.FindJob(3), nullptr);
  MustApply(&s, ReleaseEvent(3, "n2", kNow + 20));
  EXPECT_EQ(PurgeFinishedJobs(&s, kNow + 10), 0u);  // ended at kNow + 10: not before
  EXPECT_EQ(PurgeFinishedJobs(&s, kLater), 1u);
  EXPECT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.next_job_id, 5u);
}

// Every inconsistent event is refused and leaves the state exactly as it was.
TEST(ApplyTest, ErrorsLeaveStateUnchanged) {
  struct Case {
    std::string name;
    v1::Event event;
    StatusCode code;
    std::string message;
  };
  v1::Job running_again = PendingJob(2);
  v1::Job update_state = BaseState().jobs.at(2);
  SetJobState(&update_state, model::JobState{JobBaseState::kCompleted, 0});
  v1::Job update_nodes = BaseState().jobs.at(2);
  update_nodes.add_nodes("n4");
  v1::Job wrong_id = BaseState().jobs.at(1);
  wrong_id.set_job_id(9);
  v1::Event update_wrong_id = UpdateEvent(wrong_id);
  update_wrong_id.mutable_job_updated()->set_job_id(1);
  v1::Job running_job = PendingJob(9);
  SetJobState(&running_job, model::JobState{JobBaseState::kRunning, 0});
  v1::Event bad_state = EndEvent(2, JobBaseState::kCompleted);
  bad_state.mutable_job_ended()->set_state(99);
  std::vector<v1::Node> dup_nodes = {MakeNode("n1"), MakeNode("n1")};
  std::vector<v1::Node> without_n1 = {MakeNode("n2"), MakeNode("n3"), MakeNode("n4")};

  const std::vector<Case> cases = {
      {"no change", v1::Event(), StatusCode::kInvalidArgument, "event without a change"},
      {"submit id 0", SubmitEvent(PendingJob(0)), StatusCode::kInvalidArgument, "job id 0"},
      {"submit duplicate", SubmitEvent(PendingJob(2)), StatusCode::kAlreadyExists,
       "Duplicate job id: 2"},
      {"submit running", SubmitEvent(running_job), StatusCode::kInvalidArgument,
       "must be PENDING, not RUNNING"},
      {"start unknown job", StartEvent(42, {"n3"}), StatusCode::kNotFound, "unknown job 42"},
      {"start unknown node", StartEvent(1, {"n3", "n9"}), StatusCode::kNotFound,
       "unknown node \"n9\""},
      {"start twice listed node", StartEvent(1, {"n3", "n3"}), StatusCode::kInvalidArgument,
       "listed twice"},
      {"start no nodes", StartEvent(1, {}), StatusCode::kInvalidArgument, "has no nodes"},
      {"start running job", StartEvent(2, {"n3"}), StatusCode::kFailedPrecondition,
       "job state RUNNING cannot change to RUNNING"},
      {"start finished job", StartEvent(3, {"n3"}), StatusCode::kFailedPrecondition,
       "job state COMPLETED cannot change to RUNNING"},
      {"end unknown job", EndEvent(42, JobBaseState::kCompleted), StatusCode::kNotFound,
       "unknown job 42"},
      {"end with running", EndEvent(2, JobBaseState::kRunning), StatusCode::kInvalidArgument,
       "RUNNING is not a final job state"},
      {"end with bad state", bad_state, StatusCode::kInvalidArgument, "invalid job state 99"},
      {"end finished job", EndEvent(3, JobBaseState::kFailed), StatusCode::kFailedPrecondition,
       "job state COMPLETED cannot change to FAILED"},
      {"end pending as timeout", EndEvent(1, JobBaseState::kTimeout),
       StatusCode::kFailedPrecondition, "job state PENDING cannot change to TIMEOUT"},
      {"release not completing", ReleaseEvent(2, "n1"), StatusCode::kFailedPrecondition,
       "job 2 is not completing on node \"n1\""},
      {"release wrong node", ReleaseEvent(3, "n1"), StatusCode::kFailedPrecondition,
       "job 3 is not completing on node \"n1\""},
      {"release unknown job", ReleaseEvent(42, "n1"), StatusCode::kNotFound, "unknown job 42"},
      {"requeue pending", RequeueEvent(1), StatusCode::kFailedPrecondition,
       "job state PENDING cannot change to PENDING"},
      {"requeue unknown", RequeueEvent(42), StatusCode::kNotFound, "unknown job 42"},
      {"hold finished", HoldEvent(3, true), StatusCode::kFailedPrecondition,
       "Job/step already completing or completed"},
      {"hold unknown", HoldEvent(42, true), StatusCode::kNotFound, "unknown job 42"},
      {"update unknown", UpdateEvent(PendingJob(42)), StatusCode::kNotFound, "unknown job 42"},
      {"update base state", UpdateEvent(update_state), StatusCode::kInvalidArgument,
       "JobUpdated cannot change job 2 from RUNNING to COMPLETED"},
      {"update nodes", UpdateEvent(update_nodes), StatusCode::kInvalidArgument,
       "cannot change the nodes of job 2"},
      {"update other id", update_wrong_id, StatusCode::kInvalidArgument,
       "record of job 9 given for job 1"},
      {"priority unknown", PriorityEvent(42, 1), StatusCode::kNotFound, "unknown job 42"},
      {"register unknown", RegisterEvent("n9"), StatusCode::kNotFound, "unknown node \"n9\""},
      {"node op unknown word", NodeOpEvent({"n1"}, "SLEEP"), StatusCode::kInvalidArgument,
       "invalid node state \"SLEEP\""},
      {"node op unsupported", NodeOpEvent({"n1"}, "POWER_UP"), StatusCode::kInvalidArgument,
       "node state POWER_UP is not supported"},
      {"node op one unknown node", NodeOpEvent({"n3", "n9"}, "DRAIN", "r"), StatusCode::kNotFound,
       "unknown node \"n9\""},
      {"node op no nodes", NodeOpEvent({}, "DRAIN", "r"), StatusCode::kInvalidArgument,
       "names no nodes"},
      {"lost unknown", LostEvent("n9"), StatusCode::kNotFound, "unknown node \"n9\""},
      {"config duplicate node", ConfigEvent(dup_nodes, {}), StatusCode::kInvalidArgument,
       "node \"n1\" is defined twice"},
      {"config duplicate partition",
       ConfigEvent({MakeNode("n1")}, {MakePartition("a", {}), MakePartition("a", {})}),
       StatusCode::kInvalidArgument, "partition \"a\" is defined twice"},
      {"config drops busy node", ConfigEvent(without_n1, {}), StatusCode::kFailedPrecondition,
       "node \"n1\" cannot be removed while it has jobs"},
  };
  for (const Case& c : cases) {
    ClusterState s = BaseState();
    const v1::ClusterSnapshot before = ToSnapshot(s);
    const std::set<PendingKey> pending_before = s.pending;
    const Status status = Apply(&s, c.event);
    EXPECT_EQ(status.code(), c.code) << c.name << ": " << status.ToString();
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << c.name << ": " << status.message();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(before, ToSnapshot(s)))
        << c.name;
    EXPECT_EQ(s.pending, pending_before) << c.name;
  }
}

}  // namespace
}  // namespace gantry::state
