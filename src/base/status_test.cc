#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>

namespace gantry {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0) return InvalidArgument("value: " + std::to_string(v) + " is not positive");
  return v;
}

Result<int> Doubled(int v) {
  GANTRY_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  return 2 * x;
}

Status Check(int v) {
  GANTRY_RETURN_IF_ERROR(ParsePositive(v).status());
  return Status::Ok();
}

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeAndMessage) {
  Status s = NotFound("job 7");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not found: job 7");
}

TEST(ResultTest, HoldsValueOrError) {
  EXPECT_EQ(*Doubled(4), 8);
  Result<int> bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "value: -1 is not positive");
  EXPECT_TRUE(Check(3).ok());
  EXPECT_EQ(Check(0).code(), StatusCode::kInvalidArgument);
}

TEST(ResultTest, MovesOnlyTypes) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

}  // namespace
}  // namespace gantry
