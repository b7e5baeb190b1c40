#include "cluster/controller_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cluster/testing/fake_daemons.h"

namespace gantry::cluster {
namespace {

using std::chrono::milliseconds;

class ControllerClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-client-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ControllerClientTest, PingAndGetNodesOverTheUnixSocket) {
  std::filesystem::create_directories(dir_ + "/spool/n1");
  std::ofstream(dir_ + "/spool/n1/registered") << "1700000000\n";
  testing::FakeController controller(dir_);
  ASSERT_TRUE(controller.ok());
  Result<v1::PingReply> ping = PingController(dir_ + "/run/gantryd.sock", milliseconds(2000));
  ASSERT_TRUE(ping.ok()) << ping.status().message();
  EXPECT_EQ(ping->cluster_name(), "fake");
  Result<v1::GetNodesReply> nodes =
      GetControllerNodes(dir_ + "/run/gantryd.sock", milliseconds(2000));
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->nodes_size(), 1);
  EXPECT_EQ(nodes->nodes(0).name(), "n1");
  EXPECT_EQ(nodes->nodes(0).boot_time(), 1700000000);
}

TEST_F(ControllerClientTest, UnimplementedCallsAreRecognised) {
  testing::FakeController controller(dir_, /*nodes_unimplemented=*/true);
  Result<v1::GetNodesReply> nodes =
      GetControllerNodes(dir_ + "/run/gantryd.sock", milliseconds(2000));
  ASSERT_FALSE(nodes.ok());
  EXPECT_TRUE(IsUnimplemented(nodes.status())) << nodes.status().message();
}

TEST_F(ControllerClientTest, NothingListeningIsUnavailable) {
  Result<v1::PingReply> ping = PingController(dir_ + "/run/gantryd.sock", milliseconds(500));
  ASSERT_FALSE(ping.ok());
  EXPECT_EQ(ping.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(IsUnimplemented(ping.status()));
}

TEST_F(ControllerClientTest, OverlongSocketPathIsRefusedClearly) {
  const std::string path = "/tmp/" + std::string(120, 'x') + "/gantryd.sock";
  Result<v1::PingReply> ping = PingController(path, milliseconds(500));
  ASSERT_FALSE(ping.ok());
  EXPECT_EQ(ping.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ping.status().message().starts_with("the controller socket path " + path +
                                                  " is longer than 107 bytes"));
}

}  // namespace
}  // namespace gantry::cluster
