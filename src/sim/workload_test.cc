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

}  // namespace
}  // namespace gantry::sim
