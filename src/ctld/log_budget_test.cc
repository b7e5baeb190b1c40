#include "ctld/log_budget.h"

#include <gtest/gtest.h>

namespace gantry::ctld {
namespace {

TEST(LogBudgetTest, AllowsSoManyLinesAWindowAndCountsTheRest) {
  LogBudget budget(2, 1000);
  uint64_t dropped = 99;
  EXPECT_TRUE(budget.Allow(0, &dropped));
  EXPECT_EQ(dropped, 0u);
  EXPECT_TRUE(budget.Allow(10, &dropped));
  EXPECT_FALSE(budget.Allow(20, &dropped));
  EXPECT_FALSE(budget.Allow(999, &dropped));
  // A new window: the next line says how many were not written.
  EXPECT_TRUE(budget.Allow(1000, &dropped));
  EXPECT_EQ(dropped, 2u);
  EXPECT_TRUE(budget.Allow(1001, &dropped));
  EXPECT_EQ(dropped, 0u);
}

}  // namespace
}  // namespace gantry::ctld
