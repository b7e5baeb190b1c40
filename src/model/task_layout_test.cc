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

TEST(TaskLayoutTest, PlaneDealsOutBlocksOfRanks) {
  EXPECT_EQ(PlaneTaskLayout(8, 2, 2), (std::vector<uint32_t>{4, 4}));
  EXPECT_EQ(PlaneTaskLayout(5, 2, 2), (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(TaskRanks({4, 4}, TaskDistribution::kPlane, 2), (Ranks{{0, 1, 4, 5}, {2, 3, 6, 7}}));
  EXPECT_EQ(TaskRanks({3, 2}, TaskDistribution::kPlane, 2), (Ranks{{0, 1, 4}, {2, 3}}));
}

TEST(TaskLayoutTest, DistributionsParseAndPrintTheirFirstLevel) {
  EXPECT_EQ(ParseDistribution("cyclic:block")->ToString(), "cyclic");
  EXPECT_EQ(ParseDistribution("*")->ToString(), "block");
  EXPECT_EQ(ParseDistribution("plane=4")->ToString(), "plane=4");
  EXPECT_EQ(ParseDistribution("plane=4")->plane_size, 4u);
  EXPECT_FALSE(ParseDistribution("plane=0").has_value());
  EXPECT_FALSE(ParseDistribution("arbitrary").has_value());
  EXPECT_FALSE(ParseDistribution("plane=x").has_value());
}

}  // namespace
}  // namespace gantry::model
