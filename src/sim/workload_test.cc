#include "sim/workload.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/trace_file.h"

namespace gantry::sim {
namespace {

// An SWF line with the fields a conversion reads; the rest not known.
std::string Line(int64_t number, int64_t submit, int64_t run, int64_t procs, int64_t requested,
                 int64_t status = 1, int64_t queue = -1, int64_t preceding = -1,
                 int64_t think = -1) {
  return std::to_string(number) + " " + std::to_string(submit) + " -1 " + std::to_string(run) +
         " -1 -1 -1 " + std::to_string(procs) + " " + std::to_string(requested) + " -1 " +
         std::to_string(status) + " 7 3 -1 " + std::to_string(queue) + " -1 " +
         std::to_string(preceding) + " " + std::to_string(think) + "\n";
}

Workload Convert(const std::string& text, uint32_t cpus_per_node) {
  Result<SwfTrace> trace = ParseSwf(text, "t");
  EXPECT_TRUE(trace.ok()) << trace.status().ToString();
  Result<Workload> workload = WorkloadFromSwf(*trace, SwfConversion{cpus_per_node});
  EXPECT_TRUE(workload.ok()) << workload.status().ToString();
  return workload.ok() ? *workload : Workload{};
}

TEST(WorkloadFromSwfTest, MakesJobsOfTheTracesLines) {
  const Workload w = Convert("; Queue: 1 batch\n" +                          //
                                 Line(10, 1000, 300, 6, 200, 1, 1) +         // limit below its run
                                 Line(11, 1500, 60, 4, 600, 1, 2, 10, 30) +  // after job 10
                                 Line(12, 1600, 5, 1, -1),                   // no limit asked
                             /*cpus_per_node=*/4);
  ASSERT_EQ(w.jobs.size(), 3u);
  WorkloadJob first;
  first.id = 10;
  first.submit_s = 0;
  first.run_s = 300;
  first.time_limit_s = 300;
  first.nodes = 2;
  first.cpus = 6;
  first.user = "u7";
  first.account = "g3";
  first.partition = "batch";
  first.exclusive = true;  // the trace's machine gave whole nodes
  EXPECT_EQ(w.jobs[0], first);
  EXPECT_EQ(w.jobs[1].submit_s, 500);
  EXPECT_EQ(w.jobs[1].time_limit_s, 600);
  EXPECT_EQ(w.jobs[1].nodes, 1u);
  EXPECT_EQ(w.jobs[1].partition, "q2");  // no name in the header
  EXPECT_EQ(w.jobs[1].after, 10u);
  EXPECT_EQ(w.jobs[1].after_delay_s, 30);
  EXPECT_EQ(w.jobs[2].time_limit_s, 5);
  EXPECT_EQ(w.jobs[2].partition, "");  // the default partition
  EXPECT_EQ(w.never_ran, 0u);
  EXPECT_EQ(w.dropped_dependencies, 0u);
}

TEST(WorkloadFromSwfTest, LeavesOutJobsThatNeverRanAndDependenciesOnThem) {
  const Workload w = Convert(Line(1, 0, -1, 1, 10) +                // no run time
                                 Line(2, 0, 0, 1, 10, 5) +          // cancelled before it ran
                                 Line(3, 5, 0, 1, 10, 1) +          // ran, for no time
                                 Line(4, 6, 10, 1, 10, 1, -1, 2) +  // after a job left out
                                 Line(5, 7, 10, 1, 10, 1, -1, 99),  // after one not in the trace
                             1);
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].id, 3u);
  EXPECT_EQ(w.jobs[0].submit_s, 5);  // the trace's first line sets 0
  EXPECT_EQ(w.jobs[1].after, std::nullopt);
  EXPECT_EQ(w.jobs[2].after, std::nullopt);
  EXPECT_EQ(w.never_ran, 2u);
  EXPECT_EQ(w.dropped_dependencies, 2u);
}

TEST(WorkloadFromSwfTest, RefusesAJobWithoutProcessors) {
  Result<SwfTrace> trace = ParseSwf(Line(8, 0, 10, -1, 10), "t");
  ASSERT_TRUE(trace.ok());
  Result<Workload> w = WorkloadFromSwf(*trace, SwfConversion{1});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "job 8: field 8 (requested processors) and field 5 (allocated processors): neither "
            "is known; a job needs at least one");
  EXPECT_EQ(WorkloadFromSwf(*trace, SwfConversion{0}).status().message(),
            "cpus per node: 0: must be 1 or more");
}

// The shipped NASA trace: every line becomes a job of at most the machine's 128 nodes.
TEST(WorkloadFromSwfTest, ConvertsTheShippedNasaTrace) {
  Result<std::string> text =
      ReadTraceText(std::string(GANTRY_SOURCE_DIR) + "/data/traces/NASA-iPSC-1993-3.1-cln.swf.gz");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<SwfTrace> trace = ParseSwf(*text, "nasa");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  Result<Workload> w = WorkloadFromSwf(*trace, SwfConversion{1});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->jobs.size() + w->never_ran, 18239u);
  uint32_t widest = 0;
  for (const WorkloadJob& job : w->jobs) widest = std::max(widest, job.nodes);
  EXPECT_EQ(widest, 128u);
  EXPECT_EQ(w->jobs.size(), 18239u);  // every job ran
  EXPECT_EQ(w->jobs.front().submit_s, 0);
  EXPECT_EQ(w->jobs.front().run_s, 1451);
  EXPECT_EQ(w->jobs.front().partition, "");  // the log has no queues
}

TEST(WorkloadJsonTest, ReadsJobsWithTheirDefaults) {
  Result<Workload> w = ParseWorkloadJson(R"({"jobs": [
      {"submit": 30, "run": 60, "user": "alice"},
      {"id": 7, "submit": 0, "run": 600, "time_limit": 300, "nodes": 2, "cpus": 8,
       "user": "bob", "account": "ml", "partition": "gpu", "qos": "high", "array": "0-9%2"},
      {"submit": 30, "run": 5, "user": "carol", "after": 1, "after_delay": 10}]})",
                                         "w.json");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->jobs.size(), 3u);
  // By submit time; the two at 30 s keep their order.
  const WorkloadJob& first = w->jobs[0];
  EXPECT_EQ(first.id, 7u);
  EXPECT_EQ(first.time_limit_s, 300);  // below its run: it ends at its limit
  EXPECT_EQ(first.nodes, 2u);
  EXPECT_EQ(first.cpus, 8u);
  EXPECT_EQ(first.account, "ml");
  EXPECT_EQ(first.partition, "gpu");
  EXPECT_EQ(first.qos, "high");
  EXPECT_EQ(first.array, "0-9%2");
  WorkloadJob alice;
  alice.id = 1;  // its position
  alice.submit_s = 30;
  alice.run_s = 60;
  alice.time_limit_s = 60;
  alice.user = "alice";
  EXPECT_EQ(w->jobs[1], alice);
  EXPECT_EQ(w->jobs[2].id, 3u);
  EXPECT_EQ(w->jobs[2].after, 1u);
  EXPECT_EQ(w->jobs[2].after_delay_s, 10);
}

// Each mistake names the file, the job, the key, the value and the rule.
TEST(WorkloadJsonTest, RefusesMistakesNamingJobKeyAndRule) {
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"[1]", "w: not a JSON object with \"jobs\""},
      {"{\"job\": []}", "w: job: unknown key (only \"jobs\")"},
      {"{}", "w: jobs: a list of jobs is required"},
      {R"({"jobs": [{"run": 1, "user": "a"}]})", "w: jobs[0].submit: required"},
      {R"({"jobs": [{"submit": 0, "user": "a"}]})", "w: jobs[0].run: required"},
      {R"({"jobs": [{"submit": 0, "run": 1}]})", "w: jobs[0].user: required (a user name)"},
      {R"({"jobs": [{"submit": -1, "run": 1, "user": "a"}]})",
       "w: jobs[0].submit: -1: must be 0 or more"},
      {R"({"jobs": [{"submit": 0, "run": 1.5, "user": "a"}]})",
       "w: jobs[0].run: 1.5: not a whole number"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": 5}]})", "w: jobs[0].user: 5: not a string"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": "a", "nodes": 4, "cpus": 2}]})",
       "w: jobs[0].cpus: 2: fewer than its nodes (4)"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": "a", "runtime": 5}]})",
       "w: jobs[0].runtime: unknown key (id, submit, run, time_limit, nodes, cpus, user, "
       "account, partition, qos, array, exclusive, after, after_delay)"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": "a", "array": "5-1"}]})",
       "w: jobs[0].array: \"5-1\": "},
      {R"({"jobs": [{"id": 2, "submit": 0, "run": 1, "user": "a"},
                    {"id": 2, "submit": 0, "run": 1, "user": "b"}]})",
       "w: jobs[1].id: 2: jobs[0] has it too"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": "a", "after": 9}]})",
       "w: jobs[0].after: 9: no job has that id"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": "a", "after": 2},
                    {"submit": 5, "run": 1, "user": "b"}]})",
       "w: jobs[0].after: 2: that job is not submitted before this one (a dependency names a job "
       "that exists)"},
      {R"({"jobs": [{"submit": 0, "run": 1, "user": "a", "after": 1}]})",
       "w: jobs[0].after: 1: that job is not submitted before this one (a dependency names a job "
       "that exists)"},
  };
  for (const Case& c : cases) {
    Result<Workload> w = ParseWorkloadJson(c.text, "w");
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(w.status().message().substr(0, c.error.size()), c.error) << c.text;
  }
  for (const char* broken : {"{\"jobs\": [", "{\"jobs\": [{\"run\": 1e400}]}"}) {
    Result<Workload> w = ParseWorkloadJson(broken, "w");
    EXPECT_EQ(w.status().message().rfind("w: not JSON: ", 0), 0u) << w.status().message();
  }
}

}  // namespace
}  // namespace gantry::sim
