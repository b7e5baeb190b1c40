#include "agent/spool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gantry::agent {
namespace {

namespace fs = std::filesystem;

class SpoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-spool-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string root_;
};

// H2: the job's folder is the user's; removing it never follows a link the user put there,
// at any depth, and removes the link itself.
TEST_F(SpoolTest, RemovingAJobDirFollowsNoLink) {
  const std::string outside = root_ + "/outside";
  fs::create_directories(outside + "/sub");
  std::ofstream(outside + "/victim") << "keep";
  std::ofstream(outside + "/sub/victim") << "keep";
  Result<Spool> spool = Spool::Open(root_ + "/spool");
  ASSERT_TRUE(spool.ok()) << spool.status().ToString();
  const std::string job = spool->JobDir(7);
  fs::create_directories(job + "/a/b/c");
  std::ofstream(job + "/a/b/c/file") << "x";
  std::ofstream(job + "/top") << "x";
  fs::create_directory_symlink(outside, job + "/link");
  fs::create_directory_symlink(outside + "/sub", job + "/a/b/link");
  fs::create_symlink(outside + "/victim", job + "/a/file-link");
  spool->RemoveJobDir(7);
  EXPECT_FALSE(fs::exists(fs::symlink_status(job)));
  EXPECT_TRUE(fs::exists(outside + "/victim"));
  EXPECT_TRUE(fs::exists(outside + "/sub/victim"));
  // A job dir that is a link (never made so; still not followed) and a missing one.
  fs::create_directory_symlink(outside, spool->JobDir(8));
  spool->RemoveJobDir(8);
  spool->RemoveJobDir(9);
  EXPECT_FALSE(fs::exists(fs::symlink_status(spool->JobDir(8))));
  EXPECT_TRUE(fs::exists(outside + "/sub/victim"));
}

}  // namespace
}  // namespace gantry::agent
