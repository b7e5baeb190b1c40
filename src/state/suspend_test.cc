// Apply of JobSuspended, JobResumed and PartitionUpdated (scontrol suspend/resume and update
// PartitionName=), with Slurm 22.05's bookkeeping.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "state/cluster_state.h"
#include "state/records.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using model::JobBaseState;
using ::testing::ElementsAre;
using namespace testing;  // NOLINT(google-build-using-namespace): the builders

v1::Event SuspendEvent(uint32_t id, int64_t time) {
  v1::Event e;
  e.set_time(time);
  e.mutable_job_suspended()->set_job_id(id);
  return e;
}

v1::Event ResumeEvent(uint32_t id, int64_t time) {
  v1::Event e;
  e.set_time(time);
  e.mutable_job_resumed()->set_job_id(id);
  return e;
}

v1::Event PartitionEvent(const std::string& name, std::optional<std::string> state,
                         std::optional<uint32_t> max_time = std::nullopt,
                         std::optional<uint32_t> default_time = std::nullopt) {
  v1::Event e;
  e.set_time(kNow);
  v1::PartitionUpdated& u = *e.mutable_partition_updated();
  u.set_name(name);
  if (state) u.set_state(*state);
  if (max_time) u.set_max_time_min(*max_time);
  if (default_time) u.set_default_time_min(*default_time);
  return e;
}

std::string NodeComplete(const ClusterState& s, const std::string& name) {
  return model::NodeStateComplete(NodeStateOf(*s.FindNode(name)));
}

// Job 2 runs on n1 since kNow with a 60-minute limit, all of the node's CPUs and memory.
ClusterState RunningJob() {
  ClusterState s = MakeCluster(2);
  MustApply(&s, SubmitEvent(PendingJob(2)));
  MustApply(&s, StartEvent(2, {"n1"}, kNow, 64, 256000, 60));
  return s;
}

TEST(SuspendTest, SuspendCountsTimeRunAndFreesCpusButNotMemory) {
  ClusterState s = RunningJob();
  MustApply(&s, SuspendEvent(2, kNow + 30));
  const v1::Job& job = *s.FindJob(2);
  EXPECT_EQ(JobStateOf(job).base, JobBaseState::kSuspended);
  EXPECT_EQ(job.suspend_time(), kNow + 30);
  EXPECT_EQ(job.pre_suspend_secs(), 30);
  EXPECT_EQ(job.end_time(), kNow + 3600);  // unchanged while suspended, as scontrol shows it
  const v1::Node& n1 = *s.FindNode("n1");
  // Slurm: the node is IDLE with CPUAlloc=0 and the job's memory still allocated.
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE");
  EXPECT_EQ(n1.alloc_cpus(), 0u);
  EXPECT_EQ(n1.alloc_mem_mb(), 256000u);
  EXPECT_EQ(n1.alloc_gres(), "");
  EXPECT_EQ(std::vector<uint32_t>(n1.job_ids().begin(), n1.job_ids().end()),
            std::vector<uint32_t>{2});
}

// A job preemption suspended is in the state's `preempted` index (rebuilt from the records)
// until it resumes or leaves; an operator's suspend is not.
TEST(SuspendTest, PreemptedJobsAreIndexedUntilTheyResumeOrLeave) {
  ClusterState s = RunningJob();
  MustApply(&s, SuspendEvent(2, kNow + 30));
  EXPECT_TRUE(s.preempted.empty());
  MustApply(&s, ResumeEvent(2, kNow + 40));
  v1::Event preempted = SuspendEvent(2, kNow + 50);
  preempted.mutable_job_suspended()->set_preemptor(9);
  MustApply(&s, preempted);
  EXPECT_EQ(s.preempted, (std::set<uint32_t>{2}));
  RebuildIndexes(&s);
  EXPECT_EQ(s.preempted, (std::set<uint32_t>{2}));
  MustApply(&s, ResumeEvent(2, kNow + 60));
  EXPECT_TRUE(s.preempted.empty());
  MustApply(&s, preempted);
  MustApply(&s, EndEvent(2, JobBaseState::kCancelled, kNow + 70));
  EXPECT_TRUE(s.preempted.empty());
}

TEST(SuspendTest, ResumeMovesEndTimeBySuspendedTime) {
  ClusterState s = RunningJob();
  MustApply(&s, SuspendEvent(2, kNow + 30));
  MustApply(&s, ResumeEvent(2, kNow + 100));
  const v1::Job& job = *s.FindJob(2);
  EXPECT_EQ(JobStateOf(job).base, JobBaseState::kRunning);
  EXPECT_EQ(job.suspend_time(), kNow + 100);
  EXPECT_EQ(job.pre_suspend_secs(), 30);
  // Slurm: end = resume + limit - time run before.
  EXPECT_EQ(job.end_time(), kNow + 100 + 3600 - 30);
  EXPECT_EQ(NodeComplete(s, "n1"), "ALLOCATED");
  EXPECT_EQ(s.FindNode("n1")->alloc_cpus(), 64u);
  EXPECT_EQ(s.FindNode("n1")->alloc_mem_mb(), 256000u);

  // A second suspend counts from the resume.
  MustApply(&s, SuspendEvent(2, kNow + 110));
  EXPECT_EQ(s.FindJob(2)->pre_suspend_secs(), 40);
  EXPECT_EQ(s.FindJob(2)->suspend_time(), kNow + 110);
}

TEST(SuspendTest, UnlimitedJobKeepsNoEndTime) {
  ClusterState s = MakeCluster(1);
  MustApply(&s, SubmitEvent(PendingJob(2)));
  MustApply(&s, StartEvent(2, {"n1"}, kNow, 64, 256000, kUnlimited));
  MustApply(&s, SuspendEvent(2, kNow + 5));
  MustApply(&s, ResumeEvent(2, kNow + 9));
  EXPECT_EQ(s.FindJob(2)->end_time(), 0);
}

TEST(SuspendTest, CancelOfSuspendedJobReleasesItsMemoryOnce) {
  ClusterState s = RunningJob();
  MustApply(&s, SuspendEvent(2, kNow + 30));
  MustApply(&s, EndEvent(2, JobBaseState::kCancelled, kNow + 40));
  EXPECT_EQ(model::JobStateComplete(JobStateOf(*s.FindJob(2))), "CANCELLED,COMPLETING");
  EXPECT_EQ(s.FindJob(2)->end_time(), kNow + 30);  // Slurm: ended when it was suspended
  EXPECT_EQ(s.FindNode("n1")->alloc_cpus(), 0u);
  EXPECT_EQ(s.FindNode("n1")->alloc_mem_mb(), 0u);
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE+COMPLETING");
  MustApply(&s, ReleaseEvent(2, "n1", kNow + 41));
  EXPECT_EQ(NodeComplete(s, "n1"), "IDLE");
}

TEST(SuspendTest, SuspendedJobCanBeRequeuedOrEndOnItsOwn) {
  ClusterState s = RunningJob();
  MustApply(&s, SuspendEvent(2, kNow + 30));
  MustApply(&s, RequeueEvent(2, /*hold=*/true));
  EXPECT_EQ(s.FindJob(2)->pre_suspend_secs(), 0);
  EXPECT_EQ(s.FindJob(2)->suspend_time(), 0);
  EXPECT_EQ(s.FindNode("n1")->alloc_mem_mb(), 0u);

  // Its processes killed while stopped: the script's end is recorded.
  ClusterState t = RunningJob();
  MustApply(&t, SuspendEvent(2, kNow + 30));
  MustApply(&t, EndEvent(2, JobBaseState::kFailed, kNow + 40, 9));
  EXPECT_EQ(JobStateOf(*t.FindJob(2)).base, JobBaseState::kFailed);
}

TEST(SuspendTest, OnlyRunningJobsSuspendAndOnlySuspendedOnesResume) {
  ClusterState s = RunningJob();
  MustApply(&s, SubmitEvent(PendingJob(3)));
  const ClusterState before = s;
  EXPECT_EQ(Apply(&s, SuspendEvent(3, kNow)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Apply(&s, ResumeEvent(3, kNow)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Apply(&s, ResumeEvent(2, kNow)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Apply(&s, SuspendEvent(9, kNow)).code(), StatusCode::kNotFound);
  MustApply(&s, SuspendEvent(2, kNow + 1));
  EXPECT_EQ(Apply(&s, SuspendEvent(2, kNow + 2)).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.FindJob(2)->suspend_time(), kNow + 1);
  EXPECT_EQ(before.FindJob(3)->state(), s.FindJob(3)->state());
}

TEST(PartitionUpdateTest, ChangesStateAndLimits) {
  ClusterState s = MakeCluster(2);
  MustApply(&s, PartitionEvent("batch", "DRAIN"));
  EXPECT_EQ(s.FindPartition("batch")->state(), "DRAIN");
  MustApply(&s, PartitionEvent("batch", std::nullopt, 60, 10));
  EXPECT_EQ(s.FindPartition("batch")->state(), "DRAIN");
  EXPECT_EQ(s.FindPartition("batch")->max_time_min(), 60u);
  EXPECT_EQ(s.FindPartition("batch")->default_time_min(), 10u);
  EXPECT_EQ(Apply(&s, PartitionEvent("nosuch", "DOWN")).code(), StatusCode::kNotFound);
  EXPECT_EQ(Apply(&s, PartitionEvent("batch", "BOGUS")).code(), StatusCode::kInvalidArgument);
}

TEST(PartitionUpdateTest, ChangesNodesAndAnyOtherKey) {
  ClusterState s = MakeCluster(2);
  v1::Event e = PartitionEvent("batch", std::nullopt);
  auto& settings = *e.mutable_partition_updated()->mutable_settings();
  settings["Nodes"] = "n1";
  settings["PreemptMode"] = "cancel";
  settings["LLN"] = "YES";
  MustApply(&s, e);
  const v1::Partition& batch = *s.FindPartition("batch");
  EXPECT_THAT(batch.nodes(), ElementsAre("n1"));
  EXPECT_EQ(batch.preempt_mode(), "CANCEL");
  EXPECT_EQ(batch.extra().at("LLN"), "YES");
  EXPECT_THAT(s.FindNode("n2")->partitions(), ElementsAre());
  // A bad setting changes nothing, not even the good ones beside it.
  settings.clear();
  settings["Nodes"] = "n9";
  settings["PreemptMode"] = "requeue";
  EXPECT_EQ(Apply(&s, e).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.FindPartition("batch")->preempt_mode(), "CANCEL");
  // A partition written before settings (state, max_time_min) still loads from a snapshot.
  v1::ClusterSnapshot snapshot = ToSnapshot(s);
  v1::PartitionOverride legacy;
  legacy.set_state("DRAIN");
  legacy.set_spec_state("UP");
  (*snapshot.mutable_partition_overrides())["batch"] = legacy;
  Result<ClusterState> restored = FromSnapshot(snapshot);
  ASSERT_TRUE(restored.ok());
  MustApply(&*restored, ConfigEvent({MakeNode("n1"), MakeNode("n2")},
                                    {MakePartition("batch", {"n1", "n2"}, true)}));
  EXPECT_EQ(restored->FindPartition("batch")->state(), "DRAIN");
}

TEST(PartitionUpdateTest, ChangesSurviveReloadAndSnapshotUntilTheSpecChangesThePartition) {
  ClusterState s = MakeCluster(2);
  MustApply(&s, PartitionEvent("batch", "INACTIVE", 60));
  // A restart: the same spec again. scontrol's values stay.
  std::vector<v1::Node> nodes = {MakeNode("n1"), MakeNode("n2")};
  v1::Partition batch = MakePartition("batch", {"n1", "n2"}, true);
  MustApply(&s, ConfigEvent(nodes, {batch}));
  EXPECT_EQ(s.FindPartition("batch")->state(), "INACTIVE");
  EXPECT_EQ(s.FindPartition("batch")->max_time_min(), 60u);

  Result<ClusterState> restored = FromSnapshot(ToSnapshot(s));
  ASSERT_TRUE(restored.ok());
  MustApply(&*restored, ConfigEvent(nodes, {batch}));
  EXPECT_EQ(restored->FindPartition("batch")->state(), "INACTIVE");

  // The spec now defines the partition otherwise: its definition wins whole, as slurm.conf's
  // does over scontrol's changes after `scontrol reconfigure`.
  batch.set_max_time_min(120);
  MustApply(&s, ConfigEvent(nodes, {batch}));
  EXPECT_EQ(s.FindPartition("batch")->max_time_min(), 120u);
  EXPECT_EQ(s.FindPartition("batch")->state(), "UP");
  EXPECT_TRUE(s.partition_overrides.empty());
  MustApply(&s, PartitionEvent("batch", "DOWN"));

  // A partition the spec removes forgets its changes.
  MustApply(&s, ConfigEvent(nodes, {MakePartition("other", {"n1", "n2"}, true)}));
  EXPECT_TRUE(s.partition_overrides.empty());
}

}  // namespace
}  // namespace gantry::state
