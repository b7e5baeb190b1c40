#include "cluster/state_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gantry::cluster {
namespace {

namespace fs = std::filesystem;

class StateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-statedir-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = NormalizePath(pattern);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A folder that looks like a cluster (spec.json present).
  std::string MakeCluster(const std::string& name) {
    std::string dir = root_ + "/" + name;
    fs::create_directories(dir);
    std::ofstream(dir + "/spec.json") << "{}";
    return dir;
  }

  std::string root_;
};

TEST_F(StateDirTest, PathsFollowTheContract) {
  const StateDir d(root_ + "/demo/");
  EXPECT_EQ(d.dir(), root_ + "/demo");
  EXPECT_EQ(d.spec(), root_ + "/demo/spec.json");
  EXPECT_EQ(d.conf(), root_ + "/demo/gantry.conf");
  EXPECT_EQ(d.key(), root_ + "/demo/cluster.key");
  EXPECT_EQ(d.socket(), root_ + "/demo/run/gantryd.sock");
  EXPECT_EQ(d.command_socket(), root_ + "/demo/run/commands.sock");
  EXPECT_EQ(d.addr_file(), root_ + "/demo/run/gantryd.addr");
  EXPECT_EQ(d.gantryd_pid(), root_ + "/demo/run/gantryd.pid");
  EXPECT_EQ(d.gantryd_log(), root_ + "/demo/logs/gantryd.log");
  EXPECT_EQ(d.agent_pid("demo-cpu-0"), root_ + "/demo/run/agent-demo-cpu-0.pid");
  EXPECT_EQ(d.agent_log("demo-cpu-0"), root_ + "/demo/logs/agent-demo-cpu-0.log");
  EXPECT_EQ(d.agent_spool("demo-cpu-0"), root_ + "/demo/spool/demo-cpu-0");
  EXPECT_EQ(d.home(), root_ + "/demo/home");
}

TEST_F(StateDirTest, SocketPathMustFitAUnixSocketAddress) {
  EXPECT_TRUE(StateDir("/tmp/" + std::string(84, 'x')).CheckSocketPath().ok());  // 107 bytes
  const StateDir long_dir("/tmp/" + std::string(85, 'x'));
  const Status s = long_dir.CheckSocketPath();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the state dir " + long_dir.dir() + " is too long: its command socket " +
                             long_dir.command_socket() +
                             " would exceed the 107-byte limit of unix socket paths; use a "
                             "shorter --state-dir");
}

TEST_F(StateDirTest, RelativeAndDottedPathsNormalize) {
  const std::string cwd = fs::current_path().string();
  fs::current_path(root_);
  EXPECT_EQ(StateDir("a/../b/./c").dir(), root_ + "/b/c");
  fs::current_path(cwd);
}

TEST_F(StateDirTest, NodesWithPidFilesAreListedSorted) {
  const StateDir d(MakeCluster("c"));
  fs::create_directories(d.run());
  for (const char* f :
       {"agent-c-cpu-1.pid", "agent-c-cpu-0.pid", "gantryd.pid", "agent-.pid", "other.txt"}) {
    std::ofstream(d.run() + "/" + f) << "1\n";
  }
  EXPECT_EQ(d.NodesWithPidFiles(), (std::vector<std::string>{"c-cpu-0", "c-cpu-1"}));
}

TEST_F(StateDirTest, StateRootComesFromGantryHomeThenHome) {
  Environment env;
  EXPECT_FALSE(StateRoot(env).ok());
  env.home = "/home/u";
  EXPECT_EQ(*StateRoot(env), "/home/u/.local/share/gantry");
  env.gantry_home = root_ + "/g";
  EXPECT_EQ(*StateRoot(env), root_ + "/g");
}

TEST_F(StateDirTest, ResolveStateDirPrefersFlagThenEnvThenTheOnlyCluster) {
  Environment env;
  env.gantry_home = root_;
  // No cluster at all.
  Result<StateDir> none = ResolveStateDir(std::nullopt, env);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "no cluster under " + root_ +
                "; create one with: gantry cluster create --spec FILE (or pass --state-dir DIR)");

  const std::string a = MakeCluster("a");
  EXPECT_EQ(ResolveStateDir(std::nullopt, env)->dir(), a);

  const std::string b = MakeCluster("b");
  fs::create_directories(root_ + "/not-a-cluster");
  Result<StateDir> several = ResolveStateDir(std::nullopt, env);
  ASSERT_FALSE(several.ok());
  EXPECT_EQ(several.status().message(),
            "several clusters under " + root_ +
                "; pick one with --state-dir DIR (or set GANTRY_STATE_DIR):\n  " + a + "\n  " + b);

  env.gantry_state_dir = b;
  EXPECT_EQ(ResolveStateDir(std::nullopt, env)->dir(), b);
  EXPECT_EQ(ResolveStateDir(a, env)->dir(), a);

  Result<StateDir> not_cluster = ResolveStateDir(root_ + "/not-a-cluster", env);
  ASSERT_FALSE(not_cluster.ok());
  EXPECT_EQ(not_cluster.status().message(),
            root_ +
                "/not-a-cluster (--state-dir) holds no cluster (no spec.json); create one "
                "with: gantry cluster create --spec FILE");
}

TEST_F(StateDirTest, ListClusterDirsSkipsFoldersWithoutSpec) {
  EXPECT_TRUE(ListClusterDirs(root_ + "/missing").empty());
  const std::string z = MakeCluster("z");
  const std::string a = MakeCluster("a");
  fs::create_directories(root_ + "/empty");
  std::ofstream(root_ + "/file") << "x";
  EXPECT_EQ(ListClusterDirs(root_), (std::vector<std::string>{a, z}));
}

TEST_F(StateDirTest, FindBinaryLooksInBinDirThenSelfDirThenPath) {
  const std::string bin = root_ + "/bin";
  const std::string self = root_ + "/self";
  const std::string path1 = root_ + "/p1";
  for (const std::string& d : {bin, self, path1}) fs::create_directories(d);
  auto make_exe = [](const std::string& path) {
    std::ofstream(path) << "#!/bin/sh\n";
    chmod(path.c_str(), 0755);
  };
  Environment env;
  env.path = path1 + ":/nonexistent";
  Result<std::string> missing = FindBinary(env, "gantryd");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "gantryd not found (looked in PATH)");

  make_exe(path1 + "/gantryd");
  EXPECT_EQ(*FindBinary(env, "gantryd"), path1 + "/gantryd");
  env.self_dir = self;
  make_exe(self + "/gantryd");
  EXPECT_EQ(*FindBinary(env, "gantryd"), self + "/gantryd");
  env.gantry_bin_dir = bin;
  std::ofstream(bin + "/gantryd") << "not executable";
  EXPECT_EQ(*FindBinary(env, "gantryd"), self + "/gantryd");
  chmod((bin + "/gantryd").c_str(), 0755);
  EXPECT_EQ(*FindBinary(env, "gantryd"), bin + "/gantryd");
}

}  // namespace
}  // namespace gantry::cluster
