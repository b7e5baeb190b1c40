#include "agent/health_monitor.h"

#include <utility>

#include "agent/log.h"
#include "health/schedule.h"
#include "model/health_report.h"

namespace gantry::agent {
namespace {

constexpr std::chrono::milliseconds kSettingsRetry{10000};
constexpr std::chrono::milliseconds kIdlePoll{60000};

}  // namespace

HealthMonitor::HealthMonitor(health::HealthHost host, const ControllerLink* link,
                             const Clock* clock)
    : link_(link), clock_(clock), host_(std::move(host)) {}

HealthMonitor::~HealthMonitor() { Stop(); }

gantry::v1::HealthReport HealthMonitor::RunNow(const gantry::v1::HealthSettings& settings,
                                               bool at_start) {
  std::lock_guard<std::mutex> lock(run_mu_);
  const auto start = std::chrono::steady_clock::now();
  gantry::v1::HealthReport report = health::RunHealthChecks(host_, settings);
  last_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
                 .count();
  report.set_node(host_.node);
  report.set_time(clock_->Now());
  report.set_at_start(at_start);
  const std::string reason = model::HealthDrainReason(report);
  (reason.empty() ? passed_ : failed_)++;
  last_ok_ = reason.empty();
  if (!ran_ || reason != last_reason_) {
    if (reason.empty()) {
      std::string checks;
      for (const auto& check : report.checks()) {
        checks += (checks.empty() ? "" : ", ") + check.name();
      }
      Log("health check passed (" + checks + ")");
    } else {
      Log("health check failed: " + reason);
    }
  }
  ran_ = true;
  last_reason_ = reason;
  return report;
}

void HealthMonitor::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void HealthMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool HealthMonitor::Sleep(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, delay, [this] { return stop_; });
}

void HealthMonitor::Loop() {
  // The first periodic run: one interval (or the node's CYCLE share of it) after registering.
  while (!link_->registered()) {
    if (!Sleep(std::chrono::milliseconds(200))) return;
  }
  gantry::v1::HealthSettings settings;
  while (!link_->FetchHealthSettings(&settings).ok()) {
    if (!Sleep(kSettingsRetry)) return;
  }
  Result<health::NodeStates> states = health::ParseNodeStates(settings.node_state());
  std::chrono::milliseconds wait =
      settings.interval_sec() == 0
          ? kIdlePoll
          : health::FirstRunDelay(states.ok() ? *states : health::NodeStates{.any = true},
                                  settings.interval_sec(), settings.node_index(),
                                  settings.node_count());
  while (Sleep(wait)) {
    if (grpc::Status status = link_->FetchHealthSettings(&settings); !status.ok()) {
      wait = kSettingsRetry;
      continue;
    }
    wait = settings.interval_sec() == 0 ? kIdlePoll
                                        : std::chrono::milliseconds(settings.interval_sec() * 1000);
    if (settings.interval_sec() == 0) continue;
    states = health::ParseNodeStates(settings.node_state());
    if (!states.ok()) {
      Log("health checks: " + states.status().message());
      continue;
    }
    if (!health::RunsInState(*states, settings.state(), settings.state_flags())) continue;
    const gantry::v1::HealthReport report = RunNow(settings, /*at_start=*/false);
    if (grpc::Status sent = link_->SendHealth(report); !sent.ok()) {
      Log("health check: the controller did not take the report: " + sent.error_message());
    }
  }
}

void HealthMonitor::WriteMetrics(metrics::MetricsText* out) const {
  const metrics::Labels node = {{"node", host_.node}};
  out->Counter("gantry_agent_health_checks", "Runs of this node's health checks, by result");
  out->Sample(static_cast<double>(passed_.load()), {{"node", host_.node}, {"result", "pass"}});
  out->Sample(static_cast<double>(failed_.load()), {{"node", host_.node}, {"result", "fail"}});
  out->Gauge("gantry_agent_health_check_seconds", "How long the last run of the checks took");
  out->Sample(static_cast<double>(last_ms_.load()) / 1000.0, node);
  out->Gauge("gantry_agent_health_ok", "1 when the last run of the checks passed");
  out->Sample(last_ok_.load() ? 1 : 0, node);
}

}  // namespace gantry::agent
