#include "sched/partition_check.h"

#include <gtest/gtest.h>

#include <string>

#include "state/testing.h"

namespace gantry::sched {
namespace {

using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

TEST(PartitionCheckTest, StateNodeCountAndTimeLimits) {
  struct Case {
    const char* what;
    const char* state;
    uint32_t max_nodes, min_nodes, max_time, default_time;  // partition (0: unset)
    uint32_t nodes, time;                                   // job (time 0: unset)
    const char* refusal;
  };
  const Case cases[] = {
      {"fits", "UP", 0, 0, 60, 0, 2, 30, ""},
      {"down", "DOWN", 0, 0, 0, 0, 1, 0, "PartitionDown"},
      {"inactive", "INACTIVE", 0, 0, 0, 0, 1, 0, "PartitionInactive"},
      {"too many nodes", "UP", 2, 0, 0, 0, 3, 0, "PartitionNodeLimit"},
      {"too few nodes", "UP", 0, 2, 0, 0, 1, 0, "PartitionNodeLimit"},
      {"too long", "UP", 0, 0, 60, 0, 1, 61, "PartitionTimeLimit"},
      {"no time: the default, within MaxTime", "UP", 0, 0, 60, 30, 1, 0, ""},
      {"no time, no default: MaxTime", "UP", 0, 0, 60, 0, 1, 0, ""},
  };
  for (const Case& c : cases) {
    v1::Partition part = MakePartition("p", {"n1"});
    part.set_state(c.state);
    part.set_max_nodes(c.max_nodes);
    part.set_min_nodes(c.min_nodes);
    part.set_max_time_min(c.max_time);
    part.set_default_time_min(c.default_time);
    v1::Job job = PendingJob(1, "p", c.nodes);
    job.set_time_limit_min(c.time);
    EXPECT_EQ(std::string(PartitionRefusal(PartitionLimits::Of(part), job)), c.refusal) << c.what;
  }
}

TEST(PartitionCheckTest, AJobWithoutATimeLimitGetsTheDefaultThenMaxTime) {
  v1::Partition part = MakePartition("p", {"n1"});
  part.set_max_time_min(60);
  v1::Job job = PendingJob(1, "p", 1);
  job.set_time_limit_min(0);
  EXPECT_EQ(TimeLimitIn(PartitionLimits::Of(part), job), 60u);
  part.set_default_time_min(10);
  EXPECT_EQ(TimeLimitIn(PartitionLimits::Of(part), job), 10u);
}

}  // namespace
}  // namespace gantry::sched
