#include "state/step_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gantry::state {
namespace {

v1::Job JobOn(const std::vector<std::string>& nodes, uint32_t cpus_per_node) {
  v1::Job job;
  job.set_job_id(7);
  for (const std::string& n : nodes) job.add_nodes(n);
  job.set_num_cpus(cpus_per_node * static_cast<uint32_t>(nodes.size()));
  return job;
}

struct Shape {
  uint32_t n = 0, N = 0, per_node = 0, c = 0;
  std::string m = "", w = "";
};
// -n, -N, --ntasks-per-node, -c, -m, -w.
Shape S(uint32_t n, uint32_t N = 0, uint32_t per_node = 0, uint32_t c = 0, std::string m = "",
        std::string w = "") {
  return Shape{n, N, per_node, c, std::move(m), std::move(w)};
}

v1::JobStepRequest Request(const Shape& s) {
  v1::JobStepRequest r;
  r.set_num_tasks(s.n);
  r.set_num_nodes(s.N);
  r.set_ntasks_per_node(s.per_node);
  r.set_cpus_per_task(s.c);
  r.set_distribution(s.m);
  r.set_node_list(s.w);
  return r;
}

std::string Describe(const StepPlacement& p) {
  std::string out;
  for (int i = 0; i < p.step.nodes_size(); ++i) {
    out += (i ? " " : "") + p.step.nodes(i) + ":";
    for (size_t k = 0; k < p.ranks[i].size(); ++k) {
      out += (k ? "," : "") + std::to_string(p.ranks[i][k]);
    }
  }
  return out;
}

TEST(StepPlanTest, LaysTasksOutInsideTheAllocation) {
  const v1::Job job = JobOn({"gpu1", "gpu2", "gpu3"}, 4);
  struct Case {
    Shape shape;
    std::string want;
  } cases[] = {
      {S(0), "gpu1:0 gpu2:1 gpu3:2"},  // one task per node
      {S(1), "gpu1:0"},                // as many nodes as tasks
      {S(4, 2), "gpu1:0,1 gpu2:2,3"},  // block
      {S(4, 2, 0, 0, "cyclic"), "gpu1:0,2 gpu2:1,3"},
      {S(6, 0, 2), "gpu1:0,1 gpu2:2,3 gpu3:4,5"},
      {S(0, 2, 3), "gpu1:0,1,2 gpu2:3,4,5"},
      {S(5, 1, 0, 2), "gpu1:0,1,2,3,4"},  // over-subscribed: still there
      {S(2, 0, 0, 0, "", "gpu[2-3]"), "gpu2:0 gpu3:1"},
      {S(6, 2, 0, 0, "plane=2"), "gpu1:0,1,4,5 gpu2:2,3"},
      {S(64, 2, 0, 0, "cyclic:block"), ""},  // checked below
  };
  for (const Case& c : cases) {
    Result<StepPlacement> p = PlaceStep(job, Request(c.shape));
    ASSERT_TRUE(p.ok()) << p.status().message();
    if (!c.want.empty()) {
      EXPECT_EQ(Describe(*p), c.want);
    }
  }
  Result<StepPlacement> big = PlaceStep(job, Request(S(64, 2, 0, 0, "cyclic")));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->step.tasks_per_node(0) + big->step.tasks_per_node(1), 64u);
  EXPECT_EQ(big->ranks[1].front(), 1u);
  EXPECT_EQ(big->step.distribution(), "cyclic");
  EXPECT_EQ(big->job_node_index, (std::vector<uint32_t>{0, 1}));
}

TEST(StepPlanTest, RefusesShapesTheAllocationCannotHold) {
  const v1::Job job = JobOn({"gpu1", "gpu2"}, 4);
  for (const Shape& s :
       {S(0, 3), S(1, 2), S(0, 0, 0, 0, "", "gpu9"), S(5, 2, 2), S(4000000000u), S(1025, 2)}) {
    Result<StepPlacement> p = PlaceStep(job, Request(s));
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.status().message().find("Requested node configuration is not available"),
              std::string::npos)
        << p.status().message();
  }
}

}  // namespace
}  // namespace gantry::state
