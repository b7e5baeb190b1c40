#include "rest/job_desc.h"

#include <gtest/gtest.h>

namespace gantry::rest {
namespace {

using nlohmann::json;

constexpr UnixTime kNow = 1'800'000'000;

JobDescResult Translate(json job) {
  return SubmissionFromJobDesc(job, "#/job", {"login1", kNow, nullptr});
}

json Minimal() {
  return {{"script", "#!/bin/sh\ntrue\n"},
          {"environment", {"PATH=/bin", "A=1"}},
          {"current_working_directory", "/home/alice"}};
}

TEST(JobDescTest, MembersMeanWhatSbatchsOptionsMean) {
  json job = Minimal();
  job.update({{"name", "train"},
              {"partition", "gpu"},
              {"tasks", 8},
              {"cpus_per_task", 4},
              {"memory_per_cpu", {{"set", true}, {"infinite", false}, {"number", 2048}}},
              {"time_limit", 90},
              {"nodes", "2-4"},
              {"tres_per_node", "gres/gpu:4"},
              {"standard_output", "out-%j.txt"},
              {"account", "ml"},
              {"dependency", "afterok:12"},
              {"excluded_nodes", {"n1", "n2"}},
              {"shared", {"none"}},
              {"requeue", false},
              {"hold", true}});
  const JobDescResult result = Translate(job);
  ASSERT_TRUE(result.errors.empty()) << result.errors[0].description;
  const v1::JobRequest& r = result.request.request();
  EXPECT_EQ(r.name(), "train");
  EXPECT_EQ(r.partitions(0), "gpu");
  EXPECT_EQ(r.num_tasks(), 8u);
  EXPECT_EQ(r.cpus_per_task(), 4u);
  EXPECT_EQ(r.mem_per_cpu_mb(), 2048u);
  EXPECT_EQ(r.time_limit_min(), 90u);
  EXPECT_EQ(r.min_nodes(), 2u);
  EXPECT_EQ(r.max_nodes(), 4u);
  EXPECT_EQ(r.gres(), "gres:gpu:4");
  EXPECT_EQ(r.std_out(), "out-%j.txt");
  EXPECT_EQ(r.account(), "ml");
  EXPECT_EQ(r.dependency(), "afterok:12");
  EXPECT_EQ(r.exc_nodes(), "n1,n2");
  EXPECT_TRUE(r.exclusive());
  EXPECT_EQ(r.requeue(), 2u);
  EXPECT_TRUE(r.hold());
  EXPECT_EQ(r.work_dir(), "/home/alice");
  EXPECT_EQ(r.submit_host(), "login1");
  EXPECT_EQ(result.request.payload().script(), "#!/bin/sh\ntrue\n");
  // The environment given, plus what Slurm sets for every batch job.
  const auto& env = result.request.payload().environment();
  EXPECT_NE(std::find(env.begin(), env.end(), "A=1"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "SLURM_SUBMIT_DIR=/home/alice"), env.end());
}

TEST(JobDescTest, UnlimitedAndUnsetNumbers) {
  json job = Minimal();
  job["time_limit"] = {{"set", false}, {"infinite", true}, {"number", 0}};
  job["nice"] = {{"set", false}, {"infinite", false}, {"number", 5}};
  const JobDescResult result = Translate(job);
  ASSERT_TRUE(result.errors.empty()) << result.errors[0].description;
  EXPECT_EQ(result.request.request().time_limit_min(), 0xFFFFFFFFu);
  EXPECT_EQ(result.request.request().nice(), 0);
}

TEST(JobDescTest, BadValuesAreRefusedWithSbatchsWordsAndTheMember) {
  struct Case {
    json change;
    std::string source;
    std::string description;
  };
  for (const Case& c : std::vector<Case>{
           {{{"tasks", "x"}}, "#/job/tasks", "tasks: Invalid numeric value \"x\" for --ntasks."},
           {{{"time_limit", "soon"}},
            "#/job/time_limit",
            "time_limit: Invalid --time specification"},
           {{{"nodes", "two"}}, "#/job/nodes", "nodes: \"two\" is not a valid node count"},
           {{{"environment", "A=1"}},
            "#/job/environment",
            "environment: expected an array of strings, got string"},
           {{{"current_working_directory", "rel"}},
            "#/job/current_working_directory",
            "current_working_directory: expected an absolute path"},
           {{{"reservation", "maint"}},
            "#/job/reservation",
            "reservation: is not supported by Gantry"},
           {{{"shared", {"user"}}},
            "#/job/shared",
            "shared: only \"none\" (--exclusive) is supported, not \"user\""},
           {{{"tasks", {{"a", 1}}}},
            "#/job/tasks",
            "tasks: expected a string or a number, got object"},
       }) {
    json job = Minimal();
    job.update(c.change);
    const JobDescResult result = Translate(job);
    ASSERT_EQ(result.errors.size(), 1u) << c.change.dump();
    EXPECT_EQ(result.errors[0].source, c.source);
    EXPECT_EQ(result.errors[0].description, c.description);
    EXPECT_EQ(result.errors[0].error, "Invalid job description");
  }
}

TEST(JobDescTest, WhatSlurmrestdRequires) {
  const JobDescResult result = Translate(json::object({{"script", "#!/bin/sh\n"}}));
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_EQ(result.errors[0].source, "#/job/current_working_directory");
  EXPECT_EQ(result.errors[1].source, "#/job/environment");
  EXPECT_EQ(Translate(json::array()).errors[0].description,
            "expected a job description object, got array");
}

TEST(JobDescTest, HarmlessMembersDrawAWarning) {
  json job = Minimal();
  job["cpu_binding"] = "cores";
  const JobDescResult result = Translate(job);
  EXPECT_TRUE(result.errors.empty());
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_EQ(result.warnings[0].source, "#/job/cpu_binding");
}

}  // namespace
}  // namespace gantry::rest
