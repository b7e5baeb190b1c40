#include "state/resources.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "state/admission.h"
#include "state/cluster_state.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): the builders

TEST(FeaturesTest, ParseAndMatch) {
  struct Case {
    std::string expr;
    std::vector<std::string> node;
    bool matches;
  };
  const std::vector<Case> cases = {
      {"", {}, true},
      {"ib", {"ib", "a100"}, true},
      {"ib", {"a100"}, false},
      {"ib&a100", {"ib", "a100"}, true},
      {"ib,a100", {"a100"}, false},
      {"ib&a100|h100", {"h100"}, true},
      {"ib&a100|h100", {"ib"}, false},
  };
  for (const Case& c : cases) {
    auto expr = ParseFeatures(c.expr);
    ASSERT_TRUE(expr.ok()) << c.expr;
    EXPECT_EQ(expr->Matches(c.node), c.matches) << c.expr;
  }
  for (const char* bad : {"ib&", "|ib", "a||b", "[a|b]", "a*2", "a b"}) {
    auto expr = ParseFeatures(bad);
    ASSERT_FALSE(expr.ok()) << bad;
    EXPECT_EQ(expr.status().message(), "Invalid feature specification");
  }
  EXPECT_EQ(SplitFeatures("a,,b"), (std::vector<std::string>{"a", "b"}));
}

TEST(RequestArithmeticTest, PerNodeShares) {
  struct Case {
    std::string name;
    uint32_t nodes, tasks, tasks_per_node, cpus_per_task;
    uint64_t mem_per_node, mem_per_cpu;
    uint32_t want_cpus_per_node;
    uint64_t want_total_cpus, want_mem_per_node;
  };
  const std::vector<Case> cases = {
      {"nothing", 0, 0, 0, 0, 0, 0, 1, 1, 0},
      {"-N 2", 2, 0, 0, 0, 0, 0, 1, 2, 0},
      {"-n 10 -N 3", 3, 10, 0, 0, 0, 0, 4, 10, 0},
      {"-N 2 --ntasks-per-node 4 -c 2", 2, 0, 4, 2, 0, 0, 8, 16, 0},
      {"--mem 5000", 1, 0, 0, 0, 5000, 0, 1, 1, 5000},
      {"-n 4 --mem-per-cpu 2000", 1, 4, 0, 0, 0, 2000, 4, 4, 8000},
  };
  for (const Case& c : cases) {
    v1::JobRequest r;
    r.set_min_nodes(c.nodes);
    r.set_num_tasks(c.tasks);
    r.set_ntasks_per_node(c.tasks_per_node);
    r.set_cpus_per_task(c.cpus_per_task);
    r.set_mem_per_node_mb(c.mem_per_node);
    r.set_mem_per_cpu_mb(c.mem_per_cpu);
    EXPECT_EQ(CpusPerNodeOf(r), c.want_cpus_per_node) << c.name;
    EXPECT_EQ(TotalCpusOf(r), c.want_total_cpus) << c.name;
    EXPECT_EQ(MemPerNodeOf(r), c.want_mem_per_node) << c.name;
  }
}

TEST(FitsTest, CpusMemoryGresFeatures) {
  const NodeCapacity node = CapacityOf(MakeNode("n1", 64, 1000, "gpu:b200:8,nic:2", "ib,b200"));
  struct Case {
    std::string name;
    uint32_t cpus;
    uint64_t mem;
    std::string gres;
    std::string features;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"small", 1, 0, "", "", true},
      {"all cpus", 64, 1000, "", "", true},
      {"too many cpus", 65, 0, "", "", false},
      {"too much memory", 1, 1001, "", "", false},
      {"gpus any type", 1, 0, "gpu:8", "", true},
      {"gpus typed", 1, 0, "gres:gpu:b200:4", "", true},
      {"gpus other type", 1, 0, "gpu:h100:1", "", false},
      {"too many gpus", 1, 0, "gpu:9", "", false},
      {"two gres", 1, 0, "gpu:1,nic:2", "", true},
      {"feature", 1, 0, "", "ib", true},
      {"missing feature", 1, 0, "", "ib&h100", false},
  };
  for (const Case& c : cases) {
    v1::JobRequest r;
    r.set_cpus_per_task(c.cpus);
    r.set_mem_per_node_mb(c.mem);
    r.set_gres(c.gres);
    r.set_features(c.features);
    auto need = NodeRequestOf(r);
    ASSERT_TRUE(need.ok()) << c.name;
    EXPECT_EQ(Fits(node, *need), c.fits) << c.name;
  }
}

// The controller must stay under 2 KiB per queued job at 100k jobs. Measured with glibc's
// allocator statistics (skipped where a sanitizer replaces the allocator).
TEST(MemoryTest, QueuedJobStaysUnderTwoKiB) {
  ClusterState s = MakeCluster(4);
  v1::JobRequest r;
  r.set_name("train-llama-70b");
  r.set_work_dir("/home/alice/projects/llm/train");
  r.set_std_out("/home/alice/projects/llm/logs/%x-%j.out");
  r.set_submit_dir("/home/alice/projects/llm/train");
  r.set_command("/home/alice/projects/llm/train/run.sh");
  r.set_submit_host("login-0");
  r.set_gres("gpu:8");
  r.set_export_env("ALL");
  r.set_min_nodes(2);
  r.set_time_limit_min(240);
  const Caller alice{1001, 1001, "alice", "alice", false, {}};
  constexpr int kJobs = 20000;
  AdmitOptions options;
  options.max_job_count = 1000000;
  const size_t before = mallinfo2().uordblks;
  for (int i = 0; i < kJobs; ++i) {
    auto job = AdmitJob(s, r, alice, kNow + i, options);
    ASSERT_TRUE(job.ok());
    job->set_job_id(s.next_job_id);
    ASSERT_TRUE(Apply(&s, SubmitEvent(*job, kNow + i)).ok());
  }
  const size_t after = mallinfo2().uordblks;
  if (after <= before) GTEST_SKIP() << "allocator statistics unavailable";
  const double per_job = static_cast<double>(after - before) / kJobs;
  RecordProperty("bytes_per_queued_job", static_cast<int>(per_job));
  EXPECT_LT(per_job, 2048.0);
  EXPECT_EQ(s.pending.size(), static_cast<size_t>(kJobs));
}

}  // namespace
}  // namespace gantry::state
