// `gantry sim` end to end through the command's entry point: a JSON workload on the shipped
// example cluster, its files, and what bad input gets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/gantry_command.h"
#include "tests/testing/spec_files.h"

namespace gantry::cli {
namespace {

class SimCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("gantry-sim-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    spec_ = (testing::SourceRoot() / "examples" / "sim-ipsc.json").string();
    std::ofstream(dir_ / "w.json") << R"({"jobs": [
      {"id": 1, "submit": 0, "run": 3600, "nodes": 128, "user": "ann", "exclusive": true},
      {"id": 2, "submit": 60, "run": 600, "nodes": 4, "user": "bob", "account": "physics"},
      {"id": 3, "submit": 60, "run": 600, "nodes": 4, "user": "cy", "time_limit": 300}
    ]})";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  int Run(const std::vector<std::string>& args) {
    out_.str("");
    err_.str("");
    std::vector<std::string> all = {"sim"};
    all.insert(all.end(), args.begin(), args.end());
    return RunGantry(all, out_, err_);
  }

  std::filesystem::path dir_;
  std::string spec_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(SimCommandTest, WritesJobsSummaryAndReport) {
  ASSERT_EQ(Run({"--spec", spec_, "--trace", (dir_ / "w.json").string(), "--out",
                 (dir_ / "out").string(), "--report", (dir_ / "report").string()}),
            0)
      << err_.str();
  const std::string csv = testing::ReadFile(dir_ / "out" / "jobs.csv");
  // The first job takes every node; the others wait for it, and job 3 reaches its limit.
  EXPECT_NE(csv.find("\n1,1,ann,,batch,COMPLETED,0,0,3600,0,3600,128,512,ipsc-cube-[0-127],0\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n2,2,bob,physics,batch,COMPLETED,60,3600,4200,3540,600,4,4,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n3,3,cy,,batch,TIMEOUT,60,3600,3900,3540,600,"), std::string::npos) << csv;
  const std::string summary = testing::ReadFile(dir_ / "out" / "summary.json");
  EXPECT_NE(summary.find("\"makespan_s\": 4200"), std::string::npos) << summary;
  const std::string html = testing::ReadFile(dir_ / "report" / "index.html");
  EXPECT_NE(html.find("<h2>Utilization"), std::string::npos);
  EXPECT_NE(out_.str().find("jobs 3 (2 COMPLETED, 1 TIMEOUT)"), std::string::npos) << out_.str();
}

TEST_F(SimCommandTest, ComparesTwoSettings) {
  ASSERT_EQ(Run({"--spec", spec_, "--trace", (dir_ / "w.json").string(), "--compare",
                 "SchedulerType=sched/builtin", "--out", (dir_ / "out").string()}),
            0)
      << err_.str();
  EXPECT_NE(out_.str().find("as specified SchedulerType=sched/builtin"), std::string::npos)
      << out_.str();
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / "compare" / "jobs.csv"));
}

TEST_F(SimCommandTest, BadInputNamesTheProblem) {
  const std::string trace = (dir_ / "w.json").string();
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--trace", trace}, 2, "gantry sim: --spec is required"},
      {{"--spec", spec_, "--trace", trace, "--set", "PriorityWeightFairshar=5"},
       2,
       "gantry sim: --set PriorityWeightFairshar=5: \"PriorityWeightFairshar\" is not a "
       "cluster-wide slurm.conf setting (did you mean \"PriorityWeightFairshare\"?)"},
      {{"--spec", spec_, "--trace", trace, "--set", "SchedulerType=sched/fast"},
       2,
       "gantry sim: --set SchedulerType=sched/fast: "},
      {{"--spec", spec_, "--trace", (dir_ / "none.swf").string()}, 1, "none.swf"},
      {{"--spec", spec_, "--trace", trace, "--swf-cpus-per-node", "0"},
       2,
       "gantry sim: --swf-cpus-per-node 0: not a whole number of at least 1"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Run(c.args), c.code) << c.error;
    EXPECT_NE(err_.str().find(c.error), std::string::npos) << err_.str();
  }
}

}  // namespace
}  // namespace gantry::cli
