// The node's health checks (health/checks.h) over the agent's life: the first run before the
// agent registers (the link asks for it: ControllerLink's check_health_at_start calls RunNow),
// then one every HealthCheckInterval while the node is in a state HealthCheckNodeState names
// (with CYCLE, the cluster's nodes spread over the interval), each sent to the controller
// (NodeLink.ReportHealth), which drains the node on a failure and resumes it when a later run
// passes. The settings are asked again before every run, so a `gantry cluster update` of
// HealthCheck* reaches running agents; with no interval they are asked every minute.
//
// Thread-safety: RunNow from any thread (runs never overlap); Start/Stop from one thread.
#ifndef GANTRY_AGENT_HEALTH_MONITOR_H_
#define GANTRY_AGENT_HEALTH_MONITOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "agent/controller_link.h"
#include "base/time.h"
#include "gantry/v1/node.pb.h"
#include "health/checks.h"
#include "metrics/openmetrics.h"

namespace gantry::agent {

class HealthMonitor {
 public:
  // `link` and `clock` outlive the monitor.
  HealthMonitor(health::HealthHost host, const ControllerLink* link, const Clock* clock);
  ~HealthMonitor();  // Stop()
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  // Runs every check `settings` asks for now; logs the result when it differs from the last
  // one's, counts it. The report's node and time are set.
  gantry::v1::HealthReport RunNow(const gantry::v1::HealthSettings& settings, bool at_start);

  // The periodic runs, on a thread of their own, from the link's registration on.
  void Start();
  void Stop();

  // gantry_agent_health_checks_total{result}, gantry_agent_health_check_seconds (the last
  // run's length), gantry_agent_health_ok (whether the last run passed).
  void WriteMetrics(metrics::MetricsText* out) const;

 private:
  void Loop();
  // Waits `delay` or until Stop; false when stopped.
  bool Sleep(std::chrono::milliseconds delay);

  const ControllerLink* const link_;
  const Clock* const clock_;
  std::mutex run_mu_;  // one run at a time
  health::HealthHost host_;
  std::string last_reason_;  // of the last run ("" = passed); guarded by run_mu_
  bool ran_ = false;         // guarded by run_mu_

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;

  std::atomic<uint64_t> passed_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<int64_t> last_ms_{0};
  std::atomic<bool> last_ok_{true};
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_HEALTH_MONITOR_H_
