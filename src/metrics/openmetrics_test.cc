#include "metrics/openmetrics.h"

#include <gtest/gtest.h>

namespace gantry::metrics {
namespace {

TEST(MetricsTextTest, GaugesCountersAndLabels) {
  MetricsText out;
  out.Gauge("slurm_nodes", "Nodes in the cluster.", 4);
  out.Counter("gantry_jobs_ended", "Jobs ended.");
  out.Sample(3, {{"how", "completed"}});
  out.Sample(0.5, {{"how", "a \"b\"\\c\nd"}});
  EXPECT_EQ(out.Finish(),
            "# TYPE slurm_nodes gauge\n"
            "# HELP slurm_nodes Nodes in the cluster.\n"
            "slurm_nodes 4\n"
            "# TYPE gantry_jobs_ended counter\n"
            "# HELP gantry_jobs_ended Jobs ended.\n"
            "gantry_jobs_ended_total{how=\"completed\"} 3\n"
            "gantry_jobs_ended_total{how=\"a \\\"b\\\"\\\\c\\nd\"} 0.5\n"
            "# EOF\n");
}

TEST(MetricsTextTest, HistogramsAreCumulativeWithCountAndSum) {
  LatencyHistogram h;
  h.Observe(50);        // 50 µs: the first bucket (0.0001 s)
  h.Observe(100);       // on the bound: still the first
  h.Observe(3000);      // 3 ms: the 0.005 bucket
  h.Observe(60000000);  // a minute: +Inf
  MetricsText out;
  out.HistogramFamily("gantry_commit_seconds", "Commits.");
  out.Histogram(h.Snapshot(), {{"type", "x"}});
  const std::string text = out.Finish();
  EXPECT_NE(text.find("gantry_commit_seconds_bucket{type=\"x\",le=\"0.0001\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gantry_commit_seconds_bucket{type=\"x\",le=\"0.0025\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("gantry_commit_seconds_bucket{type=\"x\",le=\"0.005\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("gantry_commit_seconds_bucket{type=\"x\",le=\"10\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("gantry_commit_seconds_bucket{type=\"x\",le=\"+Inf\"} 4\n"),
            std::string::npos);
  EXPECT_NE(text.find("gantry_commit_seconds_count{type=\"x\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find("gantry_commit_seconds_sum{type=\"x\"} 60.00315\n"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace gantry::metrics
