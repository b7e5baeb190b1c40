// gantry-agent as a whole: the Agent gRPC service, the job manager and the controller link,
// started and stopped together.
//
// Start order: spool and cgroups (JobManager), leftovers of a previous instance killed, Agent
// service bound (its port known), the metrics page (when asked; its URL in SPOOL/metrics.url),
// then the link asks the controller for the health settings, runs the health checks
// (agent/health_monitor.h) and registers with their result (retrying until it answers); the
// periodic health checks start. Shutdown: new jobs
// refused, every job ended as TerminateJob does (epilog, reports), reports flushed for up to
// `flush_timeout`, link and server stopped.
//
// Thread-safety: Start and Shutdown from one thread; the rest is internal.
#ifndef GANTRY_AGENT_AGENT_H_
#define GANTRY_AGENT_AGENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "agent/agent_service.h"
#include "agent/controller_link.h"
#include "agent/health_monitor.h"
#include "agent/job_manager.h"
#include "base/status.h"
#include "base/time.h"
#include "http/http_server.h"
#include "tls/cluster_tls.h"

namespace gantry::agent {

// The version the agent registers with.
inline constexpr char kAgentVersion[] = "0.1.0";

struct AgentOptions {
  std::string node;
  std::string controller;  // host:port
  tls::Identity identity;  // this node's certificate, key and the cluster's CA
  std::string spool;
  std::string listen = "127.0.0.1:0";
  std::string advertise;         // empty = the listen host (host name for a wildcard)
  std::string metrics;           // HOST:PORT of the metrics page ("" = none)
  std::string home = "/home";    // the shared home, for the health checks
  bool emulated = false;         // see health::HealthHost::emulated
  std::string cgroup_root;       // see JobManagerOptions
  std::string keeper_path;       // see JobManagerOptions
  std::string stepd_path;        // see JobManagerOptions
  const Clock* clock = nullptr;  // required
  std::chrono::milliseconds retry_min{500};
  std::chrono::milliseconds retry_max{10000};
  std::chrono::milliseconds heartbeat_override{0};
  std::chrono::milliseconds flush_timeout{10000};
};

class AgentDaemon {
 public:
  static Result<std::unique_ptr<AgentDaemon>> Start(const AgentOptions& options);
  ~AgentDaemon();  // Shutdown()
  AgentDaemon(const AgentDaemon&) = delete;
  AgentDaemon& operator=(const AgentDaemon&) = delete;

  // host:port as registered with the controller.
  const std::string& address() const { return address_; }
  int port() const { return port_; }
  JobManager& manager() { return *manager_; }
  ControllerLink& link() { return *link_; }

  // See the header comment. Idempotent.
  void Shutdown();

 private:
  AgentDaemon() = default;

  AgentOptions options_;
  std::string address_;
  int port_ = 0;
  // Destroyed in reverse order: the server before the service, the manager before the link.
  std::unique_ptr<ControllerLink> link_;
  std::unique_ptr<HealthMonitor> health_;
  std::unique_ptr<JobManager> manager_;
  std::unique_ptr<AgentService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<http::HttpServer> metrics_server_;
  bool shut_down_ = false;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_AGENT_H_
