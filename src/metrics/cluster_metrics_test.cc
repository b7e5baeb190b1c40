#include "metrics/cluster_metrics.h"

#include <gtest/gtest.h>

#include "model/job_state.h"
#include "model/node_state.h"
#include "state/testing.h"

namespace gantry::metrics {
namespace {

using model::JobBaseState;
using state::testing::MakeNode;
using state::testing::MakePartition;

// Two partitions over three 8-GPU nodes: g0 busy with a 64-CPU job, g1 half used, g2 drained.
state::ClusterState Cluster() {
  state::ClusterState s;
  s.nodes = {MakeNode("g0"), MakeNode("g1"), MakeNode("g2")};
  s.nodes[0].set_state(static_cast<uint32_t>(model::NodeBaseState::kAllocated));
  s.nodes[0].set_alloc_cpus(64);
  s.nodes[0].set_alloc_gres("gpu:8");
  s.nodes[1].set_state(static_cast<uint32_t>(model::NodeBaseState::kMixed));
  s.nodes[1].set_alloc_cpus(32);
  s.nodes[1].set_alloc_mem_mb(1024);
  s.nodes[1].set_alloc_gres("gpu:4");
  s.nodes[2].set_state(static_cast<uint32_t>(model::NodeBaseState::kIdle));
  s.nodes[2].set_state_flags(static_cast<uint32_t>(model::NodeFlag::kDrain));
  for (uint32_t i = 0; i < s.nodes.size(); ++i) s.node_index[s.nodes[i].name()] = i;
  s.partitions = {MakePartition("a4", {"g0", "g1", "g2"}, true), MakePartition("high", {"g2"})};
  const auto job = [&s](uint32_t id, JobBaseState st, const std::string& user,
                        const std::string& reason = "") {
    v1::Job& j = s.jobs[id];
    j.set_job_id(id);
    j.set_state(static_cast<uint32_t>(st));
    j.set_user_name(user);
    j.set_partition("a4");
    j.mutable_request()->set_account("ml");
    j.set_reason(reason);
    j.set_priority(st == JobBaseState::kPending && reason == "JobHeldUser" ? 0 : 100);
    return &j;
  };
  v1::Job* running = job(1, JobBaseState::kRunning, "alice");
  running->set_num_cpus(64);
  running->add_nodes("g0");
  running->set_alloc_mem_mb(2048);
  job(2, JobBaseState::kPending, "alice", "Resources");
  job(3, JobBaseState::kPending, "bob", "Resources");
  job(4, JobBaseState::kPending, "bob", "JobHeldUser");
  job(5, JobBaseState::kCompleted, "bob");
  return s;
}

std::string Text(void (*write)(const state::ClusterState&, MetricsText*)) {
  MetricsText out;
  write(Cluster(), &out);
  return out.Finish();
}

void ExpectLine(const std::string& text, const std::string& line) {
  EXPECT_NE(text.find("\n" + line + "\n"), std::string::npos) << "no line: " << line << "\n"
                                                              << text;
}

TEST(ClusterMetricsTest, JobsByStateAndReason) {
  const std::string text = Text(JobMetrics);
  ExpectLine(text, "slurm_jobs 5");
  ExpectLine(text, "slurm_jobs_pending 3");
  ExpectLine(text, "slurm_jobs_running 1");
  ExpectLine(text, "slurm_jobs_completed 1");
  ExpectLine(text, "slurm_jobs_hold 1");
  ExpectLine(text, "slurm_jobs_cpus_alloc 64");
  ExpectLine(text, "slurm_jobs_memory_alloc 2147483648");
  ExpectLine(text, "slurm_jobs_nodes_alloc 1");
  ExpectLine(text, "gantry_jobs_pending_reason{reason=\"Resources\"} 2");
  ExpectLine(text, "gantry_jobs_pending_reason{reason=\"JobHeldUser\"} 1");
}

TEST(ClusterMetricsTest, NodesByStateAndEachNodesResources) {
  const std::string text = Text(NodeMetrics);
  ExpectLine(text, "slurm_nodes 3");
  ExpectLine(text, "slurm_nodes_alloc 1");
  ExpectLine(text, "slurm_nodes_mixed 1");
  ExpectLine(text, "slurm_nodes_idle 1");
  ExpectLine(text, "slurm_nodes_drain 1");
  ExpectLine(text, "slurm_nodes_drained 1");
  ExpectLine(text, "slurm_nodes_draining 0");
  ExpectLine(text, "slurm_node_cpus_alloc{node=\"g1\"} 32");
  ExpectLine(text, "slurm_node_cpus_idle{node=\"g1\"} 32");
  ExpectLine(text, "gantry_node_gpus{node=\"g2\"} 8");
  ExpectLine(text, "gantry_node_gpus_alloc{node=\"g1\"} 4");
}

TEST(ClusterMetricsTest, PartitionsAddUpTheirNodesAndJobs) {
  const std::string text = Text(PartitionMetrics);
  ExpectLine(text, "slurm_partitions 2");
  ExpectLine(text, "slurm_partition_jobs_pending{partition=\"a4\"} 3");
  ExpectLine(text, "slurm_partition_jobs_pending{partition=\"high\"} 0");
  ExpectLine(text, "slurm_partition_cpus{partition=\"a4\"} 192");
  ExpectLine(text, "slurm_partition_nodes_cpus_alloc{partition=\"a4\"} 96");
  ExpectLine(text, "slurm_partition_nodes_drain{partition=\"high\"} 1");
  ExpectLine(text, "gantry_partition_gpus_alloc{partition=\"a4\"} 12");
  ExpectLine(text, "gantry_partition_gpus{partition=\"high\"} 8");
}

TEST(ClusterMetricsTest, UsersAndAccounts) {
  const std::string text = Text(UserAccountMetrics);
  ExpectLine(text, "slurm_user_jobs_pending{username=\"bob\"} 2");
  ExpectLine(text, "slurm_user_jobs_running{username=\"alice\"} 1");
  ExpectLine(text, "slurm_user_jobs_cpus_alloc{username=\"alice\"} 64");
  ExpectLine(text, "slurm_account_jobs_pending{account=\"ml\"} 3");
}

}  // namespace
}  // namespace gantry::metrics
