#include "text/suggest.h"

#include <gtest/gtest.h>

namespace gantry::text {
namespace {

TEST(EditDistanceTest, Basics) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("node_pools", "node_pool"), 1u);
}

TEST(SuggestTest, FindsTyposAndPrefixes) {
  const std::vector<std::string> fields = {"node_pools", "display_name", "orchestrator_spec"};
  EXPECT_EQ(Suggest("node_pool", fields), std::vector<std::string>{"node_pools"});
  EXPECT_EQ(Suggest("DISPLAY_NAME", fields), std::vector<std::string>{"display_name"});
  EXPECT_EQ(Suggest("orchestrator", fields), std::vector<std::string>{"orchestrator_spec"});
  EXPECT_TRUE(Suggest("zzzz", fields).empty());
}

TEST(SuggestTest, OrdersByDistanceAndCapsCount) {
  const std::vector<std::string> words = {"MaxTime", "MinNodes", "MaxNodes"};
  EXPECT_EQ(Suggest("MxNodes", words, 2), (std::vector<std::string>{"MaxNodes", "MinNodes"}));
}

TEST(DidYouMeanTest, Phrases) {
  EXPECT_EQ(DidYouMean({}), "");
  EXPECT_EQ(DidYouMean({"a"}), " (did you mean \"a\"?)");
  EXPECT_EQ(DidYouMean({"a", "b"}), " (did you mean \"a\" or \"b\"?)");
  EXPECT_EQ(DidYouMean({"a", "b", "c"}), " (did you mean \"a\", \"b\" or \"c\"?)");
}

}  // namespace
}  // namespace gantry::text
