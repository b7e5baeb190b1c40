#include "model/task_layout.h"

#include <gtest/gtest.h>

#include <vector>

namespace gantry::model {
namespace {

using Ranks = std::vector<std::vector<uint32_t>>;

TEST(TaskLayoutTest, BlockGivesConsecutiveRanksPerNode) {
  EXPECT_EQ(TaskRanks({2, 2}, TaskDistribution::kBlock), (Ranks{{0, 1}, {2, 3}}));
  EXPECT_EQ(TaskRanks({3, 1}, TaskDistribution::kBlock), (Ranks{{0, 1, 2}, {3}}));
}

TEST(TaskLayoutTest, CyclicDealsRanksOutRoundRobin) {
  EXPECT_EQ(TaskRanks({2, 2}, TaskDistribution::kCyclic), (Ranks{{0, 2}, {1, 3}}));
  EXPECT_EQ(TaskRanks({3, 1}, TaskDistribution::kCyclic), (Ranks{{0, 2, 3}, {1}}));
  EXPECT_EQ(TaskRanks({8, 8, 8, 8, 8, 8, 8, 8}, TaskDistribution::kCyclic)[7].back(), 63u);
}

}  // namespace
}  // namespace gantry::model
