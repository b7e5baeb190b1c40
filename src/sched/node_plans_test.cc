#include "sched/node_plans.h"

#include <gtest/gtest.h>

#include <vector>

namespace gantry::sched {
namespace {

constexpr int64_t kNever = NodePlans::kNever;

std::vector<std::pair<int64_t, uint32_t>> Open(const NodePlans& plans) {
  return {plans.by_open().begin(), plans.by_open().end()};
}

TEST(NodePlansTest, NodesOpenInTheOrderTheyFreeUpNeverFreeOnesLeftOut) {
  const NodePlans plans({300, 100, kNever, 100});
  EXPECT_EQ(Open(plans), (std::vector<std::pair<int64_t, uint32_t>>{{100, 1}, {100, 3}, {300, 0}}));
  EXPECT_EQ(plans.EarliestFree(2, 0, 60), kNever);
  EXPECT_EQ(plans.EarliestFree(0, 0, 60), 300);
  EXPECT_EQ(plans.EarliestFree(0, 500, 60), 500);
}

TEST(NodePlansTest, AKeepFromTheFreeTimeMovesTheNodeToTheKeepsEnd) {
  NodePlans plans({100, 100});
  plans.Keep(0, 100, 400);
  EXPECT_EQ(Open(plans), (std::vector<std::pair<int64_t, uint32_t>>{{100, 1}, {400, 0}}));
  plans.Keep(0, 400, 700);  // back to back: open after both
  EXPECT_EQ(Open(plans).back(), (std::pair<int64_t, uint32_t>{700, 0}));
  EXPECT_EQ(plans.keeps(), 2u);
  plans.Keep(1, 100, kNever);  // kept for ever: never open again
  EXPECT_EQ(Open(plans), (std::vector<std::pair<int64_t, uint32_t>>{{700, 0}}));
}

TEST(NodePlansTest, ARunFitsInAGapBeforeAKeepOnlyWhenItEndsInTime) {
  NodePlans plans({100});
  plans.Keep(0, 500, 900);
  EXPECT_EQ(Open(plans).front().first, 100);      // free from 100 until the keep
  EXPECT_EQ(plans.EarliestFree(0, 0, 400), 100);  // [100, 500) fits
  EXPECT_EQ(plans.EarliestFree(0, 0, 401), 900);  // one second more: after the keep
  EXPECT_EQ(plans.EarliestFree(0, 0, kNever), 900);
  EXPECT_TRUE(plans.Kept(0, 499, 501));
  EXPECT_FALSE(plans.Kept(0, 900, 1000));
  EXPECT_TRUE(plans.FreeOver(0, 100, 500));
  EXPECT_FALSE(plans.FreeOver(0, 99, 500));  // not free yet
  EXPECT_FALSE(plans.FreeOver(0, 100, 501));
}

TEST(NodePlansTest, KeepsInAnyOrderChainTheEarliestFreeTime) {
  NodePlans plans({0});
  plans.Keep(0, 200, 300);
  plans.Keep(0, 0, 200);  // made later, earlier in time
  EXPECT_EQ(plans.EarliestFree(0, 0, 50), 300);
  EXPECT_EQ(Open(plans).front().first, 300);
}

TEST(NodePlansTest, AStartInThePassDelaysTheFreeTime) {
  NodePlans plans({100, 100});
  plans.FreeNoEarlierThan(1, 3700);
  plans.FreeNoEarlierThan(0, 50);  // never earlier than it was
  EXPECT_EQ(Open(plans), (std::vector<std::pair<int64_t, uint32_t>>{{100, 0}, {3700, 1}}));
  plans.FreeNoEarlierThan(0, kNever);  // a job without a time limit
  EXPECT_EQ(Open(plans), (std::vector<std::pair<int64_t, uint32_t>>{{3700, 1}}));
}

}  // namespace
}  // namespace gantry::sched
