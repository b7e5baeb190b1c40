// The OpenMetrics 1.0 text format (what Prometheus scrapes): families of samples, each family
// announced by "# TYPE" and "# HELP" lines, the whole ended by "# EOF".
//
//   # TYPE slurm_nodes gauge
//   # HELP slurm_nodes Nodes in the cluster.
//   slurm_nodes 4
//   # TYPE gantry_commit_seconds histogram
//   gantry_commit_seconds_bucket{le="0.001"} 12
//   ...
// Counters' samples carry the "_total" suffix, histograms' "_bucket"/"_count"/"_sum"; label
// values are escaped (\\, \", \n). Names are the caller's: Slurm's where Slurm has the metric
// (slurm_nodes_idle, slurm_schedule_cycle_cnt, ...), gantry_ for what Gantry adds.
// Thread-compatible.
#ifndef GANTRY_METRICS_OPENMETRICS_H_
#define GANTRY_METRICS_OPENMETRICS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/histogram.h"

namespace gantry::metrics {

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

class MetricsText {
 public:
  void Gauge(std::string_view name, std::string_view help);
  void Counter(std::string_view name, std::string_view help);
  void HistogramFamily(std::string_view name, std::string_view help);

  // A sample of the family announced last (a counter's gets "_total").
  void Sample(double value, const Labels& labels = {});
  // A gauge family with one sample.
  void Gauge(std::string_view name, std::string_view help, double value) {
    Gauge(name, help);
    Sample(value);
  }
  // A histogram's buckets, count and sum under the family announced last.
  void Histogram(const HistogramSnapshot& snapshot, const Labels& labels = {});

  // The text, with "# EOF".
  std::string Finish();

 private:
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Line(std::string_view suffix, const Labels& labels, std::string_view extra_label,
            std::string_view extra_value, double value);

  std::string out_;
  std::string family_;
  bool counter_ = false;
};

// The content type Prometheus asks for and gets.
inline constexpr char kContentType[] = "application/openmetrics-text; version=1.0.0; charset=utf-8";

}  // namespace gantry::metrics

#endif  // GANTRY_METRICS_OPENMETRICS_H_
