#include "sys/random_bytes.h"

#include <gtest/gtest.h>

namespace gantry::sys {
namespace {

TEST(RandomBytesTest, GivesDistinctNonces) {
  Result<std::string> a = RandomBytes(32);
  Result<std::string> b = RandomBytes(32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 32u);
  EXPECT_NE(*a, *b);
}

}  // namespace
}  // namespace gantry::sys
