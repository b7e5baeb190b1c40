#include "sched/will_run.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "state/cluster_state.h"
#include "state/testing.h"

namespace gantry::sched {
namespace {

using state::ClusterState;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the builders

// Runs job `id` on `nodes` from kNow with a time limit of `minutes`.
void RunFor(ClusterState* s, uint32_t id, const std::vector<std::string>& nodes, uint32_t minutes) {
  MustApply(s, SubmitEvent(PendingJob(id, "batch", static_cast<uint32_t>(nodes.size()))));
  MustApply(s, StartEvent(id, nodes, kNow, 64 * static_cast<uint32_t>(nodes.size()), 0, minutes));
}

v1::Job Asking(uint32_t nodes, const std::string& req_nodes = "",
               const std::string& exc_nodes = "") {
  v1::Job job = PendingJob(100, "batch", nodes);
  job.mutable_request()->set_req_nodes(req_nodes);
  job.mutable_request()->set_exc_nodes(exc_nodes);
  return job;
}

TEST(WillRunTest, StartsNowOnFreeNodesElseWhenTheEarliestRunningJobsEnd) {
  ClusterState s = MakeCluster(4);
  std::optional<WillRun> run = WhenWouldItRun(s, Asking(2), kNow);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start_time, kNow);
  EXPECT_EQ(run->partition, "batch");
  EXPECT_EQ(run->nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(run->num_cpus, 128u);

  RunFor(&s, 1, {"n1"}, 30);
  RunFor(&s, 2, {"n2"}, 10);
  RunFor(&s, 3, {"n3"}, state::kUnlimited);  // no time limit: never free as far as anyone knows
  run = WhenWouldItRun(s, Asking(1), kNow);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start_time, kNow);
  EXPECT_EQ(run->nodes, (std::vector<std::string>{"n4"}));
  run = WhenWouldItRun(s, Asking(2), kNow);  // n4 now, n2 after 10 minutes
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start_time, kNow + 600);
  EXPECT_EQ(run->nodes, (std::vector<std::string>{"n2", "n4"}));
  run = WhenWouldItRun(s, Asking(3), kNow);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start_time, kNow + 1800);
  EXPECT_FALSE(WhenWouldItRun(s, Asking(4), kNow).has_value()) << "n3 never frees";
}

TEST(WillRunTest, NamedAndExcludedNodesAndPartitionLimits) {
  ClusterState s = MakeCluster(4);
  RunFor(&s, 1, {"n1"}, 30);
  std::optional<WillRun> run = WhenWouldItRun(s, Asking(2, "n1"), kNow);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start_time, kNow + 1800) << "-w n1 waits for n1";
  EXPECT_EQ(run->nodes, (std::vector<std::string>{"n1", "n2"}));
  run = WhenWouldItRun(s, Asking(1, "", "n2"), kNow);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->nodes, (std::vector<std::string>{"n3"}));
  EXPECT_FALSE(WhenWouldItRun(s, Asking(1, "nope"), kNow).has_value());
  EXPECT_FALSE(WhenWouldItRun(s, Asking(5), kNow).has_value());
  MustApply(&s, NodeOpEvent({"n2", "n3", "n4"}, "DRAIN"));
  run = WhenWouldItRun(s, Asking(1), kNow);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start_time, kNow + 1800) << "drained nodes do not count";
  s.partitions[0].set_state("DOWN");
  EXPECT_FALSE(WhenWouldItRun(s, Asking(1), kNow).has_value());
}

}  // namespace
}  // namespace gantry::sched
