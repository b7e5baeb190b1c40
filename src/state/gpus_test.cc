#include "state/gpus.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "model/gpu_text.h"
#include "state/cluster_state.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using testing::kNow;

std::vector<text::GresSpec> Node(const std::string& gres) {
  return text::ParseGres(gres, text::GresSyntax::kNodeConfig).value();
}
std::vector<text::GresSpec> Request(const std::string& gres) {
  return text::ParseGres(gres, text::GresSyntax::kJobRequest).value();
}
std::vector<uint32_t> Idx(const v1::NodeGpus& gpus) {
  return {gpus.idx().begin(), gpus.idx().end()};
}

TEST(GpusTest, DevicesAreNumberedInTheNodesGresOrder) {
  const std::vector<GpuDevice> devices = GpuDevicesOf(Node("gpu:a100:2,nic:1,gpu:h100:2"));
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[1].index, 1u);
  EXPECT_EQ(devices[1].type, "a100");
  EXPECT_EQ(devices[2].index, 2u);
  EXPECT_EQ(devices[2].type, "h100");
  EXPECT_TRUE(GpuDevicesOf(Node("nic:4")).empty());
}

TEST(GpusTest, RequestsTakeTheLowestFreeDevicesOfTheirType) {
  const std::vector<GpuDevice> devices = GpuDevicesOf(Node("gpu:a100:2,gpu:h100:2"));
  struct Case {
    std::string request;
    std::set<uint32_t> taken;
    std::vector<uint32_t> want;
  } cases[] = {
      {"gpu:2", {}, {0, 1}},
      {"gpu:2", {0}, {1, 2}},
      {"gpu:h100:1", {}, {2}},
      {"gpu:h100:2", {2}, {3}},  // fewer free than asked: those there are
      {"gpu:a100:1,gpu:h100:1", {0}, {1, 2}},
      {"nic:1", {}, {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Idx(PickGpus(devices, Request(c.request), c.taken)), c.want) << c.request;
  }
}

TEST(GpusTest, TheChoiceIsNamedByTheNodesTypes) {
  const std::vector<GpuDevice> devices = GpuDevicesOf(Node("gpu:a100:2,gpu:h100:2"));
  const v1::NodeGpus mixed = PickGpus(devices, Request("gpu:3"), {});
  EXPECT_EQ(mixed.gres(), "gpu:a100:2,gpu:h100:1");
  EXPECT_EQ(model::FormatGresWithIndexes(mixed), "gpu:a100:2,gpu:h100:1(IDX:0-2)");
  const v1::NodeGpus b200 = PickGpus(GpuDevicesOf(Node("gpu:b200:8")), Request("gpu:5"), {4});
  EXPECT_EQ(model::FormatGresWithIndexes(b200), "gpu:b200:5(IDX:0-3,5)");
  EXPECT_EQ(model::FormatGresWithIndexes(PickGpus(devices, Request("nic:1"), {})), "");
  EXPECT_EQ(GpuCountOf(Request("gpu:b200:2,nic:3,gpu:h100:1")), 3u);
}

// Two jobs sharing a node never share a GPU; a job's GPUs are free again once it ended, and a
// requeued job forgets them.
TEST(GpusTest, JobsOnOneNodeGetDisjointGpus) {
  ClusterState s = testing::MakeCluster();  // nodes with gpu:8
  for (uint32_t id : {1, 2, 3}) {
    v1::Job job = testing::PendingJob(id);
    job.mutable_request()->set_gres("gpu:3");
    job.mutable_request()->set_num_tasks(1);
    testing::MustApply(&s, testing::SubmitEvent(job));
  }
  testing::MustApply(&s, testing::StartEvent(1, {"n1"}, kNow, 8));
  testing::MustApply(&s, testing::StartEvent(2, {"n1"}, kNow, 8));
  ASSERT_EQ(s.FindJob(1)->node_gpus_size(), 1);
  EXPECT_EQ(Idx(s.FindJob(1)->node_gpus(0)), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(Idx(s.FindJob(2)->node_gpus(0)), (std::vector<uint32_t>{3, 4, 5}));

  testing::MustApply(&s, testing::EndEvent(1, model::JobBaseState::kCompleted, kNow + 5));
  testing::MustApply(&s, testing::StartEvent(3, {"n1"}, kNow + 6, 8));
  EXPECT_EQ(Idx(s.FindJob(3)->node_gpus(0)), (std::vector<uint32_t>{0, 1, 2}));

  testing::MustApply(&s, testing::RequeueEvent(2, false, "", kNow + 7));
  EXPECT_EQ(s.FindJob(2)->node_gpus_size(), 0);
  EXPECT_EQ(s.FindJob(1)->node_gpus_size(), 1);  // an ended job keeps its record
}

}  // namespace
}  // namespace gantry::state
