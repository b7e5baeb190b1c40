#include "text/array_spec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gantry::text {
namespace {

// A parsed spec written back: "1-3,7%2", or the error.
std::string Show(std::string_view text, uint32_t max = 1001) {
  Result<ArraySpec> spec = ParseArraySpec(text, max);
  if (!spec.ok()) return "error: " + spec.status().message();
  std::string out = FormatTaskIds(spec->tasks);
  if (spec->throttle != 0) out += "%" + std::to_string(spec->throttle);
  return out;
}

TEST(ParseArraySpecTest, AcceptsSlurmsForms) {
  const std::pair<const char*, const char*> cases[] = {
      {"0-3", "0-3"},
      {"5", "5"},
      {"1,3,5-7", "1,3,5-7"},
      {"0-15:4", "0,4,8,12"},
      {"1-7:2,20%3", "1,3,5,7,20%3"},
      {"3-1:1,2", "error: array range \"3-1:1\" runs backwards"},
      {"1-3%0", "1-3"},
      {"2,1,2", "1-2"},
      {"1000", "1000"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(Show(text), want) << text;
}

TEST(ParseArraySpecTest, NamesTheBrokenRule) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "error: the array index list is empty"},
      {"a", "error: array item \"a\" is not a number or range"},
      {"1-", "error: array item \"1-\" is not a number or range"},
      {"3-1", "error: array range \"3-1\" runs backwards"},
      {"1-9:0", "error: array item \"1-9:0\": the step after ':' must be a number >= 1"},
      {"1001", "error: array index 1001 is not below MaxArraySize (1001)"},
      {"1-3%x", "error: array throttle \"x\" after '%' must be a number"},
      {"1,,2", "error: array item \"\" is not a number or range"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(Show(text), want) << text;
}

TEST(FormatTaskIdsTest, RunsBecomeRanges) {
  EXPECT_EQ(FormatTaskIds(std::vector<uint32_t>{}), "");
  EXPECT_EQ(FormatTaskIds(std::vector<uint32_t>{4}), "4");
  EXPECT_EQ(FormatTaskIds(std::vector<uint32_t>{1, 2, 3, 7, 9, 10}), "1-3,7,9-10");
}

// Found by fuzz/array_spec_fuzz.cc: expansions are bounded before they are made, so no text
// makes gantryd (which parses users' job ids) hold billions of ids.
TEST(ParseTaskIdsTest, RefusesIdsNoArrayCanHaveAndEndlessRepeats) {
  Result<std::vector<uint32_t>> huge = ParseTaskIds("0-4294967295");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("4000001"), std::string::npos) << huge.status().message();
  EXPECT_FALSE(ParseJobIdText("1_[0-4294967295]").has_value());
  std::string repeats = "0-999";
  for (int i = 0; i < 5; ++i) repeats += ",0-999";
  Result<ArraySpec> spec = ParseArraySpec(repeats, 1001);
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("more than 2002 indexes"), std::string::npos)
      << spec.status().message();
  EXPECT_TRUE(ParseArraySpec("0-999,0-999", 1001).ok());  // a repeat or two is fine
}

TEST(ParseTaskIdsTest, ReadsWhatFormatPrints) {
  Result<std::vector<uint32_t>> ids = ParseTaskIds("1-3,7,9-10");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<uint32_t>{1, 2, 3, 7, 9, 10}));
  EXPECT_FALSE(ParseTaskIds("1-3%2").ok());
}

TEST(ShapeOfTest, StepIsTheCommonGapElseOne) {
  struct Case {
    std::vector<uint32_t> tasks;
    ArrayShape want;
  };
  const Case cases[] = {
      {{3, 6, 9}, {3, 3, 9, 3}},
      {{1, 4, 10}, {3, 1, 10, 1}},
      {{2}, {1, 2, 2, 1}},
      {{0, 1, 2, 3}, {4, 0, 3, 1}},
  };
  for (const Case& c : cases) {
    const ArrayShape got = ShapeOf(c.tasks);
    EXPECT_EQ(got.count, c.want.count);
    EXPECT_EQ(got.min, c.want.min);
    EXPECT_EQ(got.max, c.want.max);
    EXPECT_EQ(got.step, c.want.step);
  }
}

}  // namespace
}  // namespace gantry::text
