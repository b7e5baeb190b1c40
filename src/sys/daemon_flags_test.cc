#include "sys/daemon_flags.h"

#include <gtest/gtest.h>

namespace gantry::sys {
namespace {

TEST(DaemonFlagsTest, ValuesAfterTheFlagOrAfterAnEqualsSign) {
  const std::vector<std::string> args = {"--conf", "/etc/g.conf", "--listen=:0", "--conf", "--x"};
  size_t i = 0;
  EXPECT_EQ(FlagValue(args, &i, "--conf"), "/etc/g.conf");
  EXPECT_EQ(i, 1u);
  i = 2;
  EXPECT_EQ(FlagValue(args, &i, "--listen"), ":0");
  EXPECT_EQ(FlagValue(args, &i, "--list"), std::nullopt);  // a prefix is not the flag
  i = 4;
  EXPECT_EQ(FlagValue(args, &i, "--x"), std::nullopt);  // nothing after it
  EXPECT_EQ(i, 4u);
  EXPECT_EQ(HelpOrVersion("--conf", "usage", "d", "1"), std::nullopt);
}

}  // namespace
}  // namespace gantry::sys
