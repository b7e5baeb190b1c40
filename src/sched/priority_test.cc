#include "sched/priority.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "state/anchor_accounting_test_util.h"
#include "state/testing.h"

namespace gantry::sched {
namespace {

using state::testing::kNow;
using state::testing::MakeNode;
using state::testing::MakePartition;
using state::testing::MustApply;

// The reference cluster (../shared/anchors/slurm): gpu[1-4] with 64 CPUs, 256000 MB and 8 GPUs
// each; partitions a4 (PriorityTier 1, default) and high (PriorityTier 10); its accounting and
// usage when sprio was captured (state/anchor_accounting_test_util.h).
state::ClusterState AnchorCluster() {
  state::ClusterState s;
  const std::vector<std::string> names = {"gpu1", "gpu2", "gpu3", "gpu4"};
  std::vector<v1::Node> nodes;
  for (const std::string& n : names) nodes.push_back(MakeNode(n));
  v1::Partition high = MakePartition("high", names);
  high.set_priority_tier(10);
  MustApply(&s, state::testing::ConfigEvent(nodes, {MakePartition("a4", names, true), high}));
  s.accounting = state::testing::AnchorAccounting(kNow);
  return s;
}

// A pending job of `user` charged to `account` in `partition`: `nodes` nodes, `cpus` CPUs,
// 2000 MB per CPU, submitted (and accruing since) `kNow`.
v1::Job Job(uint32_t id, const std::string& user, const std::string& account,
            const std::string& partition, uint32_t nodes, uint32_t cpus) {
  v1::Job job = state::testing::PendingJob(id, partition, nodes);
  job.set_user_name(user);
  job.mutable_request()->set_account(account);
  job.mutable_request()->set_qos("normal");
  job.mutable_request()->set_num_tasks(cpus);
  job.mutable_request()->set_mem_per_cpu_mb(2000);
  job.set_num_cpus(cpus);
  return job;
}

PriorityConfig AnchorWeights() {
  const std::map<std::string, std::string> conf = state::testing::AnchorPriorityKeys();
  Result<PriorityConfig> c = PriorityConfig::FromKeys([&conf](std::string_view key) {
    const auto it = conf.find(std::string(key));
    return it == conf.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : PriorityConfig();
}

// sprio -l on the reference cluster (outputs/sprio-l.txt): the same priorities and factors.
TEST(PriorityTest, MatchesTheReferenceClustersSprio) {
  const state::ClusterState s = AnchorCluster();
  const PriorityConfig config = AnchorWeights();
  const PriorityCalculator calc(config, s, kNow);
  const std::vector<v1::Job> jobs = state::testing::AnchorSprioJobs(kNow);
  struct Case {
    v1::Job job;
    uint32_t priority;
    double fairshare;
    double job_size;
    double cpu;
    double mem;
  };
  const Case cases[] = {
      {jobs[0], 2637, 1.0 / 7, 0.1875, 0.125, 0.0625},
      {jobs[1], 3016, 1.0 / 7, 0.5, 0.5, 0.25},
      {jobs[2], 5579, 3.0 / 7, 0.25, 0.25, 0.125},
  };
  for (const Case& c : cases) {
    const std::vector<PriorityFactors> f = calc.FactorsOf(c.job);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].priority, c.priority) << c.job.job_id();
    EXPECT_EQ(calc.PriorityOf(c.job), c.priority) << c.job.job_id();
    EXPECT_NEAR(f[0].fairshare, c.fairshare, 1e-12);
    EXPECT_DOUBLE_EQ(f[0].job_size, c.job_size);
    EXPECT_DOUBLE_EQ(f[0].partition_factor, 1.0);
    EXPECT_DOUBLE_EQ(f[0].age, 0.0);
    EXPECT_DOUBLE_EQ(f[0].qos, 0.0);
    ASSERT_EQ(f[0].tres.size(), 2u);
    EXPECT_EQ(f[0].tres[0].first, "cpu");
    EXPECT_DOUBLE_EQ(f[0].tres[0].second, c.cpu);
    EXPECT_DOUBLE_EQ(f[0].tres[1].second, c.mem);
  }
}

TEST(PriorityTest, AgeNiceFavorSmallAndPartitionsByTier) {
  state::ClusterState s = AnchorCluster();
  PriorityConfig config = AnchorWeights();
  v1::Job job = Job(7, "alice", "research", "a4", 1, 32);
  job.mutable_request()->add_partitions("high");
  job.set_accrue_time(kNow - 3 * 24 * 3600);
  {
    const PriorityCalculator calc(config, s, kNow);
    const std::vector<PriorityFactors> f = calc.FactorsOf(job);
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].partition, "high");  // PriorityTier 10 first
    EXPECT_EQ(f[1].partition, "a4");
    EXPECT_DOUBLE_EQ(f[0].age, 3.0 / 7);
    // Own partition (a4): 2637 + 428.57 age.
    EXPECT_EQ(calc.PriorityOf(job), 3066u);
  }
  job.mutable_request()->set_nice(100);
  config.favor_small = true;
  const PriorityCalculator calc(config, s, kNow);
  const std::vector<PriorityFactors> f = calc.FactorsOf(job);
  EXPECT_DOUBLE_EQ(f[1].job_size, (0.75 + 0.875) / 2);
  EXPECT_EQ(f[1].nice, 100);
  // 1428.57 + 428.57 + 812.5 + 1000 + 12.5 + 9.375 - 100
  EXPECT_EQ(f[1].priority, 3591u);
  // A priority under 1 is 1 (0 means held).
  job.mutable_request()->set_nice(100000);
  EXPECT_EQ(calc.PriorityOf(job), 1u);
}

// Association Priority on the reference cluster (PriorityWeightAssoc=1000): research 100 (alice
// inherits it), bob 50, root's user associations 400; sprio -l after a restart showed ASSOC
// 250 (alice), 125 (bob) and 1000 (root, in root and in prod).
TEST(PriorityTest, AssociationPriorityIsInheritedAndNormalisedByTheLargest) {
  state::ClusterState s = AnchorCluster();
  for (auto& [id, a] : s.accounting.associations) {
    if (a.user().empty() && a.account() == "research") a.set_priority(100);
    if (a.user() == "bob") a.set_priority(50);
    if (a.user() == "root") a.set_priority(400);
  }
  PriorityConfig config = AnchorWeights();
  config.weight_assoc = 1000;
  const struct {
    v1::Job job;
    double assoc;
  } cases[] = {
      {Job(19, "alice", "research", "a4", 4, 256), 0.25},
      {Job(20, "bob", "prod", "a4", 4, 256), 0.125},
      {Job(21, "root", "root", "a4", 4, 256), 1.0},
      {Job(22, "root", "prod", "a4", 4, 256), 1.0},
  };
  const PriorityCalculator calc(config, s, kNow);
  for (const auto& c : cases) {
    const std::vector<PriorityFactors> f = calc.FactorsOf(c.job);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_DOUBLE_EQ(f[0].assoc, c.assoc) << c.job.job_id();
  }
  // The same jobs' priorities differ by exactly the weighted association term.
  PriorityConfig without = config;
  without.weight_assoc = 0;
  const PriorityCalculator plain(without, s, kNow);
  EXPECT_EQ(calc.PriorityOf(cases[0].job) - plain.PriorityOf(cases[0].job), 250u);
  EXPECT_EQ(calc.PriorityOf(cases[1].job) - plain.PriorityOf(cases[1].job), 125u);
  // NO_NORMAL_ASSOC: the raw Priority.
  config.no_normal_assoc = true;
  const PriorityCalculator raw(config, s, kNow);
  EXPECT_DOUBLE_EQ(raw.FactorsOf(cases[1].job)[0].assoc, 50.0);
}

// The billing TRES weight divides by the partition's billing (its TRESBillingWeights applied to
// its totals: scontrol's TRES=billing=570 on the reference cluster with
// CPU=1,Mem=0.25G,GRES/gpu=2).
TEST(PriorityTest, BillingTresFactorUsesThePartitionsBilling) {
  state::ClusterState s = AnchorCluster();
  for (v1::Partition& p : s.partitions) {
    if (p.name() == "a4") p.set_tres_billing_weights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0");
  }
  PriorityConfig config = AnchorWeights();
  config.weight_tres = {{"billing", 5700}};
  v1::Job job = Job(1, "alice", "research", "a4", 1, 3);
  job.set_billing(9.5);
  const PriorityCalculator calc(config, s, kNow);
  const std::vector<PriorityFactors> f = calc.FactorsOf(job);
  ASSERT_EQ(f.size(), 1u);
  ASSERT_EQ(f[0].tres.size(), 1u);
  EXPECT_DOUBLE_EQ(f[0].tres[0].second, 9.0 / 570);  // the job's billing count is truncated
}

TEST(PriorityTest, ConfigErrorsNameTheKeyAndTheRule) {
  auto from = [](std::map<std::string, std::string> conf) {
    return PriorityConfig::FromKeys([conf](std::string_view key) {
      const auto it = conf.find(std::string(key));
      return it == conf.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  };
  EXPECT_EQ(from({{"PriorityWeightAge", "-1"}}).status().message(),
            "PriorityWeightAge: invalid value '-1' (a whole number from 0 to 4294967295)");
  EXPECT_EQ(from({{"PriorityType", "priority/fancy"}}).status().message(),
            "PriorityType: invalid value 'priority/fancy' (priority/basic or "
            "priority/multifactor)");
  EXPECT_NE(from({{"PriorityFlags", "NO_NORMAL_QOS,BOGUS"}}).status().message().find("BOGUS"),
            std::string::npos);
  EXPECT_EQ(from({{"PriorityWeightTRES", "cpu"}}).status().code(), StatusCode::kInvalidArgument);
  Result<PriorityConfig> flags = from({{"PriorityFlags", "small_relative_to_time,NO_FAIR_TREE"}});
  ASSERT_TRUE(flags.ok());
  EXPECT_TRUE(flags->small_relative_to_time);
  EXPECT_EQ(flags->fair_share, FairShareAlgorithm::kClassic);
  EXPECT_FALSE(flags->multifactor);
}

}  // namespace
}  // namespace gantry::sched
