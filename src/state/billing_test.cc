// Job.billing as gantryd keeps it (model/billing.h), with the reference cluster's numbers: its
// a4 partition with TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0 gave scontrol's billing=9
// for -n 3 --mem=10G --gres=gpu:2, 2 for -n 1 --mem=7G, 4 for -n 1 --mem=7G --gres=gpu:1, 1 in
// the partition without weights, and sshare RawUsage 178 for a 120 s job of 1 CPU and 2000 MB.
#include "model/billing.h"

#include <gtest/gtest.h>

#include "state/cluster_state.h"
#include "state/testing.h"
#include "state/usage.h"

namespace gantry::state {
namespace {

using model::JobBaseState;
using namespace testing;  // NOLINT(google-build-using-namespace): the builders

constexpr char kWeights[] = "CPU=1.0,Mem=0.25G,GRES/gpu=2.0";

class BillingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::vector<std::string> names = NodeNames(2);
    std::vector<v1::Node> nodes;
    for (const std::string& n : names) nodes.push_back(MakeNode(n));
    v1::Partition a4 = MakePartition("a4", names, true);
    a4.set_tres_billing_weights(kWeights);
    MustApply(&s_, ConfigEvent(nodes, {a4, MakePartition("high", names)}));
    for (const std::string& n : names) MustApply(&s_, RegisterEvent(n));
    ApplyAccountingChange(DefaultAccounting(), &s_.accounting);
    ApplyAccountingChange(LabTeamAlice(), &s_.accounting);
  }

  // Submits -n `cpus` --mem=`mem_mb` [--gres=gpu:`gpus`] to `partition`; returns the record.
  const v1::Job& Submit(uint32_t id, const std::string& partition, uint32_t cpus, uint64_t mem_mb,
                        uint32_t gpus = 0) {
    v1::Job job = PendingJob(id, partition);
    job.mutable_request()->set_num_tasks(cpus);
    job.mutable_request()->set_mem_per_node_mb(mem_mb);
    job.mutable_request()->set_account("team");
    job.mutable_request()->set_qos("normal");
    if (gpus > 0) job.mutable_request()->set_gres("gpu:" + std::to_string(gpus));
    job.set_num_cpus(cpus);
    MustApply(&s_, SubmitEvent(job));
    return *s_.FindJob(id);
  }

  ClusterState s_;
};

TEST_F(BillingTest, PendingJobsAreBilledByTheirPartitionsWeights) {
  const struct {
    uint32_t cpus;
    uint64_t mem_mb;
    uint32_t gpus;
    double billing;
    int64_t count;
  } cases[] = {
      {3, 10240, 2, 3 + 2.5 + 4, 9},
      {1, 7168, 0, 1 + 1.75, 2},
      {1, 7168, 1, 1 + 1.75 + 2, 4},
  };
  uint32_t id = 1;
  for (const auto& c : cases) {
    const v1::Job& job = Submit(id++, "a4", c.cpus, c.mem_mb, c.gpus);
    EXPECT_DOUBLE_EQ(JobBilling(job), c.billing) << job.job_id();
    EXPECT_EQ(JobTresOf(job).Get("billing"), c.count) << job.job_id();
    EXPECT_EQ(JobBaseTres(job, "billing"), c.count) << job.job_id();
  }
  // No weights: the CPUs.
  const v1::Job& plain = Submit(id, "high", 1, 7168);
  EXPECT_FALSE(plain.has_billing());
  EXPECT_EQ(JobTresOf(plain).Get("billing"), 1);
}

TEST_F(BillingTest, MaxTresTakesTheLargestNodeTres) {
  s_.billing_max_tres = true;
  EXPECT_DOUBLE_EQ(JobBilling(Submit(1, "a4", 3, 10240, 2)), 4.0);  // the GPUs' 2 x 2
  EXPECT_DOUBLE_EQ(JobBilling(Submit(2, "a4", 1, 7168)), 1.75);     // the memory's
}

TEST_F(BillingTest, AStartedJobIsBilledForWhatItHoldsAndChargedExactly) {
  s_.accounting.usage_half_life_sec = 0;  // no decay: the tallies are the sums
  Submit(1, "a4", 1, 2000);
  EXPECT_DOUBLE_EQ(JobBilling(*s_.FindJob(1)), 1 + 2000 * 0.25 / 1024);
  // It got a whole node: 64 CPUs and 256000 MB.
  MustApply(&s_, StartEvent(1, {"n1"}, kNow, 64, 256000, 60, "a4"));
  EXPECT_DOUBLE_EQ(JobBilling(*s_.FindJob(1)), 64 + 256000 * 0.25 / 1024);
  MustApply(&s_, RequeueEvent(1, false, "", kNow + 1));
  EXPECT_DOUBLE_EQ(JobBilling(*s_.FindJob(1)), 1 + 2000 * 0.25 / 1024);  // asks again

  // The second it ran whole was charged at its whole-node billing.
  const auto billing_sec = [&] {
    return s_.accounting.association_usage.at(kAliceAssociation).tres_sec().at("billing");
  };
  EXPECT_NEAR(billing_sec(), 64 + 256000 * 0.25 / 1024, 1e-9);
  // Usage is charged by the exact billing: 120 s of 1.488... is 178.6, not 120.
  const double before = billing_sec();
  Submit(2, "a4", 1, 2000);
  MustApply(&s_, StartEvent(2, {"n2"}, kNow + 1, 1, 2000, 60, "a4"));
  MustApply(&s_, EndEvent(2, JobBaseState::kCompleted, kNow + 121));
  EXPECT_NEAR(billing_sec() - before, 120 * (1 + 2000 * 0.25 / 1024), 1e-9);
}

TEST(WeightedTresTest, SumsOrTakesTheLargestNodeTresPlusTheGlobalOnes) {
  const std::vector<text::TresWeight>& w =
      model::BillingWeightsOf("CPU=1.0,Mem=0.25G,GRES/gpu=2.0,License/matlab=10");
  ASSERT_EQ(w.size(), 4u);
  auto count = [](std::string_view tres) -> double {
    if (tres == "cpu") return 1;
    if (tres == "mem") return 60 * 1024;  // slurm.conf(5)'s example: 1 CPU and 60 GiB
    if (tres == "license/matlab") return 2;
    return 0;
  };
  EXPECT_DOUBLE_EQ(model::WeightedTres(w, false, count), 1 + 15 + 20);
  EXPECT_DOUBLE_EQ(model::WeightedTres(w, true, count), 15 + 20);
  EXPECT_TRUE(model::BillingWeightsOf("").empty());
  EXPECT_TRUE(model::BillingWeightsOf("CPU=x").empty());
}

}  // namespace
}  // namespace gantry::state
