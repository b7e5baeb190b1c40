// Controller::Metrics: gantryd's OpenMetrics endpoints (metrics/cluster_metrics.h for what the
// state says, DiagStats for the scheduler and the calls).
#include <sys/stat.h>

#include "ctld/controller.h"
#include "metrics/cluster_metrics.h"
#include "metrics/openmetrics.h"

namespace gantry::ctld {
namespace {

double FileBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0;
}

}  // namespace

Result<std::string> Controller::Metrics(std::string_view endpoint) const {
  const bool all = endpoint.empty();
  if (!all && endpoint != "jobs" && endpoint != "nodes" && endpoint != "partitions" &&
      endpoint != "scheduler" && endpoint != "jobs-users-accts") {
    return NotFound("no metrics endpoint named " + std::string(endpoint));
  }
  metrics::MetricsText out;
  if (all || endpoint == "scheduler") {
    stats_.WriteMetrics(&out);
    out.HistogramFamily("gantry_commit_seconds",
                        "Time for a change to be durable in the store, per commit.");
    out.Histogram(commit_latency_.Snapshot());
    if (!config_.store_path.empty()) {
      double bytes = 0;
      for (const char* suffix : {"", "-wal", "-shm"}) {
        bytes += FileBytes(config_.store_path + suffix);
      }
      out.Gauge("gantry_store_bytes", "Size of the controller's store on disk (SQLite).", bytes);
    }
    const AgentLink::Load load = agents_->CurrentLoad();
    out.Gauge("slurm_agent_queue_size", "Calls to agents waiting.", load.queued);
    out.Gauge("slurm_agent_cnt", "Calls to agents in progress.", load.active);
    out.Gauge("slurm_agent_thread_cnt", "Threads calling agents.", load.threads);
  }
  ReaderLock lock(mu_);
  if (all || endpoint == "jobs") metrics::JobMetrics(state_, &out);
  if (all || endpoint == "nodes") {
    metrics::NodeMetrics(state_, &out);
    out.Counter("gantry_node_health_checks",
                "Runs of the nodes' health checks received, by result.");
    out.Sample(static_cast<double>(health_counts_.passed), {{"result", "pass"}});
    out.Sample(static_cast<double>(health_counts_.failed), {{"result", "fail"}});
    double drained = 0;
    for (const v1::Node& node : state_.nodes) drained += node.health_drained() ? 1 : 0;
    out.Gauge("gantry_nodes_health_drained", "Nodes drained by a failing health check.", drained);
  }
  if (all || endpoint == "partitions") metrics::PartitionMetrics(state_, &out);
  if (endpoint == "jobs-users-accts") metrics::UserAccountMetrics(state_, &out);
  return out.Finish();
}

}  // namespace gantry::ctld
