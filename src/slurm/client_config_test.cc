#include "slurm/client_config.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace gantry::slurm {
namespace {

TEST(ClientConfigTest, ParsesKeysCaseInsensitivelyWithComments) {
  Result<ClientConfig> c = ParseClientConfig(
      "# written by gantry\n"
      "ClusterName=demo\n"
      "  statedir = /var/lib/gantry/demo   # the state dir\n"
      "CONTROLLERSOCKET=/var/lib/gantry/demo/gantryd.sock\n"
      "ControllerAddressFile=/var/lib/gantry/demo/gantryd.addr\n"
      "KeyFile=/var/lib/gantry/demo/cluster.key\n"
      "FutureKey=ignored\n"
      "\n",
      "gantry.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->cluster_name, "demo");
  EXPECT_EQ(c->state_dir, "/var/lib/gantry/demo");
  EXPECT_EQ(c->controller_socket, "/var/lib/gantry/demo/gantryd.sock");
  EXPECT_EQ(c->controller_address_file, "/var/lib/gantry/demo/gantryd.addr");
  EXPECT_EQ(c->key_file, "/var/lib/gantry/demo/cluster.key");
}

TEST(ClientConfigTest, LineWithoutEqualsIsAnError) {
  Result<ClientConfig> c = ParseClientConfig("ClusterName=a\nbogus line\n", "/etc/g.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "/etc/g.conf:2: expected Key=Value, got \"bogus line\"");
}

TEST(ClientConfigTest, MissingFileNamesThePath) {
  Result<ClientConfig> c = LoadClientConfig("/nonexistent/gantry.conf");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "cannot read /nonexistent/gantry.conf: No such file or directory");
}

class EndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gantry-slurm-conf-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(EndpointTest, PrefersAnExistingSocket) {
  const std::string sock = dir_ + "/gantryd.sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ClientConfig c;
  c.controller_socket = sock;
  c.controller_address = "10.0.0.5:6817";
  Result<Endpoint> e = ResolveEndpoint(c);
  close(fd);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->target, "unix:" + sock);
  EXPECT_TRUE(e->local);
}

TEST_F(EndpointTest, FallsBackToTheAddressFile) {
  std::ofstream(dir_ + "/gantryd.addr") << "10.0.0.5:40123\n";
  ClientConfig c;
  c.controller_socket = dir_ + "/gantryd.sock";  // not there
  c.controller_address_file = dir_ + "/gantryd.addr";
  Result<Endpoint> e = ResolveEndpoint(c);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->target, "10.0.0.5:40123");
  EXPECT_FALSE(e->local);
  EXPECT_EQ(e->host, "10.0.0.5");
}

TEST_F(EndpointTest, ReplicatedControllersAreListedInOrder) {
  ClientConfig c;
  c.controller_address = "10.0.0.1:6817, 10.0.0.2:6817,10.0.0.3:6817";
  std::vector<Endpoint> all = ResolveEndpoints(c);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].target, "10.0.0.2:6817");
  EXPECT_EQ(all[2].host, "10.0.0.3");
  // Sockets: all listed once one exists (a replica taking the lead has none for a moment).
  const std::string sock = dir_ + "/c2.sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  c.command_socket = dir_ + "/c1.sock," + sock;
  all = ResolveEndpoints(c);
  close(fd);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].target, dir_ + "/c1.sock");
  EXPECT_TRUE(all[0].frames);
  EXPECT_EQ(all[1].target, sock);
}

TEST_F(EndpointTest, NothingConfiguredIsUnavailable) {
  ClientConfig c;
  c.path = "x.conf";
  c.controller_socket = dir_ + "/gantryd.sock";
  Result<Endpoint> e = ResolveEndpoint(c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace gantry::slurm
