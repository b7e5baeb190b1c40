#include "agent/agent.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "agent/agent_flags.h"
#include "agent/log.h"
#include "agent/spool.h"
#include "sys/files.h"

namespace gantry::agent {
namespace {

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

std::string OsName() {
  utsname u{};
  if (uname(&u) != 0) return "Linux";
  return std::string(u.sysname) + " " + u.release;
}

bool IsWildcard(const std::string& host) {
  return host == "0.0.0.0" || host == "::" || host == "*";
}

// The host of "HOST:PORT" as a URL names it (a wildcard as this host's name).
std::string HostOf(const std::string& address) {
  Result<HostPort> hp = ParseHostPort(address);
  if (!hp.ok()) return "localhost";
  return IsWildcard(hp->host) ? HostName() : hp->host;
}

// /metrics, /livez, /readyz, /healthz; GET only.
http::HttpResponse ServeMetrics(const JobManager& manager, const HealthMonitor& monitor,
                                const http::HttpRequest& request) {
  if (std::optional<http::HttpResponse> health = http::HealthPage(request)) return *health;
  if (request.path != "/metrics" && request.path != "/metrics/") {
    return {404, "text/plain", "no such page: " + request.path + "\n", {}, {}};
  }
  metrics::MetricsText text;
  manager.WriteMetrics(&text);
  monitor.WriteMetrics(&text);
  return {200, metrics::kContentType, text.Finish(), {}, {}};
}

}  // namespace

Result<std::unique_ptr<AgentDaemon>> AgentDaemon::Start(const AgentOptions& options) {
  if (options.clock == nullptr) return InvalidArgument("clock: missing");
  GANTRY_ASSIGN_OR_RETURN(HostPort listen, ParseHostPort(options.listen));
  SetLogNode(options.node);
  std::unique_ptr<AgentDaemon> agent(new AgentDaemon());
  agent->options_ = options;
  AgentDaemon* self = agent.get();

  // The spool first: the link keeps its reports there (DIR/reports, spool.h).
  GANTRY_RETURN_IF_ERROR(Spool::Open(options.spool).status());
  ControllerLinkOptions link_options;
  link_options.node = options.node;
  link_options.controller = options.controller;
  link_options.identity = options.identity;
  link_options.journal_dir = options.spool + "/reports";
  link_options.lease_file = SpoolLeasePath(options.spool);
  link_options.hostname = HostName();
  link_options.os = OsName();
  link_options.version = kAgentVersion;
  link_options.boot_time = options.clock->Now();
  const int64_t cpus = sysconf(_SC_NPROCESSORS_ONLN);
  link_options.cpus = cpus > 0 ? static_cast<uint32_t>(cpus) : 1;
  const int64_t pages = sysconf(_SC_PHYS_PAGES);
  const int64_t page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    link_options.memory_mb =
        (static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)) >> 20;
  }
  link_options.retry_min = options.retry_min;
  link_options.retry_max = options.retry_max;
  link_options.heartbeat_override = options.heartbeat_override;
  // The callbacks reach the manager, created next; the link starts only after both exist.
  ControllerLinkCallbacks callbacks;
  callbacks.on_register = [self](const gantry::v1::RegisterReply& reply) {
    self->manager_->SetSettings(SettingsFromRegisterReply(reply));
  };
  callbacks.running_jobs = [self] { return self->manager_->JobIds(); };
  callbacks.launched_jobs = [self] { return self->manager_->LaunchedJobIds(); };
  callbacks.ending_jobs = [self] { return self->manager_->EndingJobIds(); };
  callbacks.job_epochs = [self] { return self->manager_->JobEpochs(); };
  callbacks.on_fenced = [self] { self->manager_->Fence(); };
  callbacks.on_stale = [self](const std::vector<uint32_t>& ids) {
    self->manager_->KillStaleJobs(ids);
  };
  callbacks.check_health_at_start = [self](const gantry::v1::HealthSettings& settings) {
    return self->health_->RunNow(settings, /*at_start=*/true);
  };
  agent->link_ = std::make_unique<ControllerLink>(std::move(link_options), std::move(callbacks));

  JobManagerOptions manager_options;
  manager_options.node = options.node;
  manager_options.spool_dir = options.spool;
  manager_options.cgroup_root = options.cgroup_root;
  manager_options.keeper_path = options.keeper_path;
  manager_options.stepd_path = options.stepd_path;
  // Where the NVIDIA device files are (tests point it at fake ones); /dev by default.
  if (const char* dev = std::getenv("GANTRY_DEV_DIR"); dev != nullptr && *dev != '\0') {
    manager_options.dev_dir = dev;
  }
  manager_options.clock = options.clock;
  health::HealthHost health_host;
  health_host.node = options.node;
  health_host.spool = options.spool;
  health_host.home = options.home;
  health_host.dev_dir = manager_options.dev_dir;
  health_host.emulated = options.emulated;
  agent->health_ =
      std::make_unique<HealthMonitor>(std::move(health_host), agent->link_.get(), options.clock);
  GANTRY_ASSIGN_OR_RETURN(agent->manager_,
                          JobManager::Create(std::move(manager_options), agent->link_.get()));
  const JobManager::Leftovers leftovers = agent->manager_->TakeOverLeftovers();
  if (leftovers.adopted + leftovers.killed > 0) {
    Log("from the previous agent: " + std::to_string(leftovers.adopted) + " job(s) taken over, " +
        std::to_string(leftovers.killed) + " job(s) or task(s) ended");
  }

  agent->service_ = std::make_unique<AgentService>(agent->manager_.get());
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(
      JoinHostPort(listen.host, listen.port),
      tls::ServerCredentials(options.identity, tls::ClientCertificates::kRequire), &bound_port);
  builder.RegisterService(agent->service_.get());
  // A launch carries what gantryd accepted (a submission of up to 64 MiB: script and
  // environment) and the job's context; gRPC's default 4 MiB dropped larger ones.
  builder.SetMaxReceiveMessageSize(80 << 20);
  agent->server_ = builder.BuildAndStart();
  if (agent->server_ == nullptr || bound_port == 0) {
    return Unavailable("--listen " + options.listen + ": cannot listen there");
  }
  agent->port_ = bound_port;
  std::string host = options.advertise;
  if (host.empty()) host = IsWildcard(listen.host) ? HostName() : listen.host;
  agent->address_ = JoinHostPort(host, bound_port);
  Log("serving the Agent service on " + JoinHostPort(listen.host, bound_port) + " (advertised as " +
      agent->address_ + "), spool " + options.spool);

  if (!options.metrics.empty()) {
    http::HttpServer::Options http;
    http.tcp = options.metrics;
    http.max_body_bytes = 4096;
    JobManager* manager = agent->manager_.get();
    HealthMonitor* health = agent->health_.get();
    Result<std::unique_ptr<http::HttpServer>> metrics =
        http::HttpServer::Start(http, [manager, health](const http::HttpRequest& request) {
          return ServeMetrics(*manager, *health, request);
        });
    if (!metrics.ok()) return Unavailable("--metrics: " + metrics.status().message());
    agent->metrics_server_ = std::move(*metrics);
    // As gantryd's run/metrics.url: the base, the pages under it.
    const std::string url =
        "http://" + JoinHostPort(HostOf(options.metrics), agent->metrics_server_->tcp_port());
    GANTRY_RETURN_IF_ERROR(sys::WriteFileAtomically(options.spool + "/metrics.url", url + "\n",
                                                    0644, sys::Durability::kProcess));
    Log("serving /metrics on " + url + "/metrics");
  }
  agent->link_->set_agent_address(agent->address_);
  agent->link_->Start();
  agent->health_->Start();
  return agent;
}

AgentDaemon::~AgentDaemon() { Shutdown(); }

void AgentDaemon::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (manager_) {
    std::vector<uint32_t> ids = manager_->JobIds();
    if (!ids.empty()) Log("ending " + std::to_string(ids.size()) + " job(s) before exiting");
    manager_->Shutdown();
  }
  if (health_) health_->Stop();
  if (link_) {
    if (!link_->Flush(options_.flush_timeout)) {
      Log(std::to_string(link_->queued_reports()) +
          " report(s) not acknowledged by the controller: kept in the spool for the next start");
    }
    link_->Stop();
  }
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (metrics_server_) metrics_server_->Stop();
  Log("stopped");
}

}  // namespace gantry::agent
