#include "agent/job_limits.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gantry::agent {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(JobLimitsTest, SplitsTheAllocationEvenlyOverTheNodes) {
  v1::Job job;
  job.add_nodes("n1");
  job.add_nodes("n2");
  job.set_num_cpus(8);
  job.set_alloc_mem_mb(2048);
  const JobLimits limits = LimitsOf(job);
  EXPECT_EQ(limits.cpus, 4u);
  EXPECT_EQ(limits.memory_bytes, uint64_t{1024} << 20);
  EXPECT_EQ(limits.pids, kJobPidsMax);
}

// A fake hybrid host: cgroup v1 hierarchies for memory, cpu and pids in a temporary folder (the
// files the kernel would show are made by hand).
class JobLimiterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gantry-limits-" + std::to_string(getpid()));
    for (const char* c : {"memory", "cpu,cpuacct", "pids"}) fs::create_directories(root_ / c);
    mountinfo_ = "30 25 0:26 / " + (root_ / "memory").string() +
                 " rw,relatime - cgroup cgroup rw,memory\n"
                 "31 25 0:27 / " +
                 (root_ / "cpu,cpuacct").string() +
                 " rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
                 "32 25 0:28 / " +
                 (root_ / "pids").string() + " rw,relatime - cgroup cgroup rw,pids\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  // Makes the files a v1 job directory would have.
  void Touch(const std::string& dir, const std::vector<std::string>& files) {
    fs::create_directories(dir);
    for (const std::string& f : files) std::ofstream(dir + "/" + f) << "";
  }

  fs::path root_;
  std::string mountinfo_;
};

TEST_F(JobLimiterTest, WritesTheLimitsIntoEachV1HierarchyAndReadsOomKills) {
  JobLimiter limiter = JobLimiter::Open("", "n1-x", mountinfo_);
  EXPECT_EQ(limiter.Describe(), "memory, cpu, pids (cgroup v1)");
  const std::string memory = (root_ / "memory/gantry.slice/n1-x/job_7").string();
  const std::string cpu = (root_ / "cpu,cpuacct/gantry.slice/n1-x/job_7").string();
  const std::string pids = (root_ / "pids/gantry.slice/n1-x/job_7").string();
  Touch(memory, {"memory.limit_in_bytes", "memory.oom_control"});
  Touch(cpu, {"cpu.cfs_period_us", "cpu.cfs_quota_us"});
  Touch(pids, {"pids.max"});
  Result<std::vector<std::string>> join =
      limiter.Apply(7, "/v2/job_7", JobLimits{512 << 20, 2, 100});
  ASSERT_TRUE(join.ok()) << join.status().message();
  EXPECT_EQ(*join, (std::vector<std::string>{memory, cpu, pids}));
  EXPECT_EQ(Read(memory + "/memory.limit_in_bytes"), "536870912");
  EXPECT_EQ(Read(cpu + "/cpu.cfs_period_us"), "100000");
  EXPECT_EQ(Read(cpu + "/cpu.cfs_quota_us"), "200000");
  EXPECT_EQ(Read(pids + "/pids.max"), "100");
  EXPECT_FALSE(limiter.OomKilled(7, "/v2/job_7"));
  std::ofstream(memory + "/memory.oom_control") << "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n";
  EXPECT_TRUE(limiter.OomKilled(7, "/v2/job_7"));
}

TEST_F(JobLimiterTest, AFileItCannotWriteIsNamed) {
  JobLimiter limiter = JobLimiter::Open("", "n1-x", mountinfo_);
  // No memory.limit_in_bytes in the job's directory: the kernel would have made it.
  Result<std::vector<std::string>> join = limiter.Apply(8, "", JobLimits{1 << 20, 0, 0});
  ASSERT_FALSE(join.ok());
  EXPECT_NE(join.status().message().find("job_8/memory.limit_in_bytes"), std::string::npos)
      << join.status().message();
}

TEST(JobLimiterNoCgroupsTest, WithoutControllersItEnforcesNothing) {
  JobLimiter limiter = JobLimiter::Open("", "n1", "");
  EXPECT_FALSE(limiter.enforces());
  EXPECT_EQ(limiter.Describe(), "none");
  Result<std::vector<std::string>> join = limiter.Apply(1, "", JobLimits{1, 1, 1});
  ASSERT_TRUE(join.ok());
  EXPECT_TRUE(join->empty());
}

}  // namespace
}  // namespace gantry::agent
