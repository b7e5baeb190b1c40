#include "cluster/cluster_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster/testing/specs.h"
#include "spec/spec_json.h"
#include "spec/validate.h"
#include "tests/testing/spec_files.h"

namespace gantry::cluster {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

spec::ClusterSpec Parse(const std::string& text) {
  spec::CheckedSpec c = spec::CheckSpecText(text);
  EXPECT_TRUE(c.ok());
  return *c.spec;
}

class ClusterFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-files-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = NormalizePath(pattern);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string root_;
};

TEST_F(ClusterFilesTest, CreateWritesSpecConfKeyAndFolders) {
  const StateDir dir(root_ + "/t");
  const spec::ClusterSpec spec = Parse(testing::SmallSpecText(2));
  Result<Cluster> c = CreateClusterFiles(spec, dir);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->config.cluster_name, "t");
  EXPECT_EQ(Read(dir.spec()), spec::SpecToJsonText(spec));
  EXPECT_EQ(Read(dir.conf()), "ClusterName=t\nStateDir=" + dir.dir() + "\nCommandSocket=" +
                                  dir.dir() + "/run/commands.sock\nControllerSocket=" + dir.dir() +
                                  "/run/gantryd.sock\nControllerAddressFile=" + dir.dir() +
                                  "/run/gantryd.addr\nKeyFile=" + dir.dir() +
                                  "/cluster.key\nCaFile=" + dir.dir() + "/tls/ca.crt\n");
  const std::string key = Read(dir.key());
  ASSERT_EQ(key.size(), 65u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), 64u);
  EXPECT_EQ(key.back(), '\n');
  // Other users reach the sockets, the conf, the spool and the home folders; nothing else.
  const std::pair<std::string, unsigned> modes[] = {
      {dir.dir(), 0711u}, {dir.key(), 0600u},  {dir.spec(), 0600u},  {dir.conf(), 0644u},
      {dir.run(), 0755u}, {dir.logs(), 0700u}, {dir.spool(), 0711u}, {dir.home(), 0755u}};
  for (const auto& [path, mode] : modes) {
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
    EXPECT_EQ(st.st_mode & 0777, mode) << path;
  }
  EXPECT_TRUE(dir.HoldsCluster());
  // Another create in the same place is refused, and leaves the first one alone.
  Result<Cluster> again = CreateClusterFiles(spec, dir);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(Read(dir.key()), key);
}

TEST_F(ClusterFilesTest, KeysDiffer) {
  Result<std::string> a = NewKeyText();
  Result<std::string> b = NewKeyText();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST_F(ClusterFilesTest, CreateRefusesAFolderWithOtherFilesButTakesAnEmptyOne) {
  const StateDir busy(root_ + "/busy");
  fs::create_directories(busy.dir());
  std::ofstream(busy.dir() + "/notes.txt") << "mine";
  const spec::ClusterSpec spec = Parse(testing::SmallSpecText(1));
  Result<Cluster> c = CreateClusterFiles(spec, busy);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            busy.dir() + " exists and is not empty; a cluster needs a folder of its own");
  EXPECT_FALSE(busy.HoldsCluster());

  const StateDir empty(root_ + "/empty");
  fs::create_directories(empty.dir());
  EXPECT_TRUE(CreateClusterFiles(spec, empty).ok());
}

TEST_F(ClusterFilesTest, ReadSpecFileReportsEveryProblemLikeSpecValidate) {
  const std::string path = root_ + "/bad.json";
  std::ofstream(path) << R"({"display_name": "Bad_Name", "node_pools": []})";
  Result<spec::ClusterSpec> s = ReadSpecFile(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  const std::string m = s.status().message();
  EXPECT_TRUE(m.starts_with(path + ": display_name: \"Bad_Name\" must be")) << m;
  EXPECT_TRUE(m.ends_with(" problems")) << m;
  EXPECT_EQ(m.find("\n" + path + ": "), m.find('\n')) << "every line names the file";

  Result<spec::ClusterSpec> missing = ReadSpecFile(root_ + "/missing.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(missing.status().message().starts_with("cannot read " + root_ + "/missing.json"));
}

TEST_F(ClusterFilesTest, LoadAndRewriteSpec) {
  const StateDir dir(root_ + "/t");
  ASSERT_TRUE(CreateClusterFiles(Parse(testing::SmallSpecText(2)), dir).ok());
  Result<Cluster> c = LoadCluster(dir);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(ComputeNodes(c->config), (std::vector<std::string>{"t-cpu-0", "t-cpu-1"}));
  ASSERT_TRUE(WriteSpecFile(dir, Parse(testing::SmallSpecText(3))).ok());
  c = LoadCluster(dir);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ComputeNodes(c->config).size(), 3u);
  EXPECT_FALSE(fs::exists(dir.spec() + ".tmp"));
}

TEST_F(ClusterFilesTest, TheDemoSpecMakesSixComputeNodesAndThreePartitions) {
  const std::string path = (gantry::testing::SourceRoot() / "examples" / "demo.json").string();
  Result<spec::ClusterSpec> s = ReadSpecFile(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*s);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(ComputeNodes(*config),
            (std::vector<std::string>{"demo-cpu-0", "demo-cpu-1", "demo-cpu-2", "demo-cpu-3",
                                      "demo-a4-0", "demo-a4-1"}));
  ASSERT_EQ(config->partitions.size(), 3u);
  EXPECT_EQ(config->DefaultPartition()->name, "cpu");
}

// A cluster made before the state dir was private gets its modes at the next `gantry up`, and
// loses the sockets left at their old places.
TEST_F(ClusterFilesTest, SecureTightensAnOlderStateDir) {
  const StateDir dir(root_ + "/old");
  fs::create_directories(dir.logs());
  for (const char* f :
       {"/spec.json", "/state.db", "/state.db-wal", "/logs/gantryd.log", "/commands.sock"}) {
    std::ofstream(dir.dir() + f) << "x";
    fs::permissions(dir.dir() + f, fs::perms(0644));
  }
  fs::permissions(dir.dir(), fs::perms(0755));
  ASSERT_TRUE(dir.Secure().ok());
  for (const char* f : {"/spec.json", "/state.db", "/state.db-wal", "/logs/gantryd.log"}) {
    struct stat st {};
    ASSERT_EQ(stat((dir.dir() + f).c_str(), &st), 0) << f;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
  struct stat st {};
  ASSERT_EQ(stat(dir.dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0711u);
  EXPECT_FALSE(fs::exists(dir.dir() + "/commands.sock"));
  EXPECT_TRUE(fs::is_directory(dir.run()));
  // Its gantry.conf named the sockets at their old places: written again.
  std::ofstream(dir.conf()) << "CommandSocket=" << dir.dir() << "/commands.sock\n";
  ASSERT_TRUE(RefreshGantryConf(dir, "old").ok());
  EXPECT_EQ(Read(dir.conf()), RenderGantryConf("old", dir));
}

}  // namespace
}  // namespace gantry::cluster
