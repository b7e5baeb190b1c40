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

TEST(CpuListTest, ParsesAndFormatsKernelLists) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11"), (std::vector<uint32_t>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList(""), std::vector<uint32_t>{});
  EXPECT_EQ(ParseCpuList("5,1-2,2"), (std::vector<uint32_t>{1, 2, 5}));
  for (const char* bad : {"x", "1-", "-1", "3-1", "1,,2", "70000", "1 2"}) {
    EXPECT_EQ(ParseCpuList(bad), std::nullopt) << bad;
  }
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({4}), "4");
  EXPECT_EQ(FormatCpuList({}), "");
}

TEST(CpuListTest, PicksTheLowestFreeCpusOrTheWholeNode) {
  const std::vector<uint32_t> node = {0, 1, 2, 3};
  EXPECT_EQ(PickCpus(node, {}, 2), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(PickCpus(node, {0, 2}, 2), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(PickCpus(node, {0, 1, 2}, 2), node);  // too few free
  EXPECT_EQ(PickCpus(node, {}, 0), node);
  EXPECT_EQ(PickCpus(node, {}, 4), node);
}

TEST_F(JobLimiterTest, GivesEachJobCpusOfItsOwn) {
  fs::create_directories(root_ / "cpuset");
  std::ofstream(root_ / "cpuset/cpuset.cpus") << "0-3\n";
  std::ofstream(root_ / "cpuset/cpuset.mems") << "0\n";
  // What the kernel makes in each new cpuset directory (empty until inherited).
  const std::string base = (root_ / "cpuset/gantry.slice/n1-x").string();
  Touch((root_ / "cpuset/gantry.slice").string(), {"cpuset.cpus", "cpuset.mems"});
  Touch(base, {"cpuset.cpus", "cpuset.mems"});
  std::ofstream(base + "/cpuset.effective_cpus") << "0-3\n";
  for (int job : {7, 8, 9}) {
    Touch(base + "/job_" + std::to_string(job), {"cpuset.cpus", "cpuset.mems"});
  }
  JobLimiter limiter = JobLimiter::Open(
      "", "n1-x",
      "33 25 0:29 / " + (root_ / "cpuset").string() + " rw,relatime - cgroup cgroup rw,cpuset\n");
  EXPECT_EQ(limiter.Describe(), "cpuset (cgroup v1)");
  EXPECT_EQ(Read(base + "/cpuset.cpus"), "0-3");  // inherited, as the kernel requires
  ASSERT_TRUE(limiter.Apply(7, "", JobLimits{0, 1, 0}).ok());
  ASSERT_TRUE(limiter.Apply(8, "", JobLimits{0, 2, 0}).ok());
  EXPECT_EQ(Read(base + "/job_7/cpuset.cpus"), "0");
  EXPECT_EQ(Read(base + "/job_8/cpuset.cpus"), "1-2");
  EXPECT_EQ(Read(base + "/job_8/cpuset.mems"), "0");
  EXPECT_EQ(limiter.JobCpus(8, ""), (std::vector<uint32_t>{1, 2}));
  // Only CPU 3 is free: a 2-CPU job gets the whole node (and its bandwidth limit).
  ASSERT_TRUE(limiter.Apply(9, "", JobLimits{0, 2, 0}).ok());
  EXPECT_EQ(Read(base + "/job_9/cpuset.cpus"), "0-3");
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
