#include "agent/controller_link.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "agent/log.h"
#include "proc/proc.h"
#include "text/ascii.h"

namespace gantry::agent {
namespace {

constexpr std::chrono::milliseconds kReplicaCallTimeout{3000};

using SteadyClock = std::chrono::steady_clock;

// Errors that retrying the same report cannot cure: the controller has looked at it and said no.
bool RefusedForGood(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::UNIMPLEMENTED:
      return true;
    default:
      return false;
  }
}

std::string CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    default:
      return "code " + std::to_string(static_cast<int>(code));
  }
}

std::string Describe(const grpc::Status& status) {
  return CodeName(status.error_code()) + ": " + status.error_message();
}

}  // namespace

ControllerLink::ControllerLink(ControllerLinkOptions options, ControllerLinkCallbacks callbacks)
    : options_(std::move(options)), callbacks_(std::move(callbacks)) {
  if (!options_.lease_file.empty()) {
    Result<LeaseFile> lease = LeaseFile::Open(options_.lease_file);
    if (lease.ok()) {
      lease_file_ = std::move(*lease);
      lease_record_.deadline_ms = lease_file_->inherited().deadline_ms;
      lease_record_.agent_pid = getpid();
      if (std::optional<proc::ProcStat> self = proc::ReadProcStat(getpid())) {
        lease_record_.agent_start_ticks = self->start_ticks;
      }
      if (lease_record_.deadline_ms > 0) {
        inherited_deadline_ =
            SteadyClock::time_point(std::chrono::milliseconds(lease_record_.deadline_ms));
      }
      // This agent holds the lease now (its predecessor's deadline until renewed).
      if (Status written = lease_file_->Write(lease_record_); !written.ok()) {
        Log("lease file: " + written.message());
      }
    } else {
      Log("lease kept in memory only (the keepers cannot see it): " + lease.status().message());
    }
  }
  if (!options_.journal_dir.empty()) {
    Result<ReportJournal> journal = ReportJournal::Open(options_.journal_dir);
    if (journal.ok()) {
      journal_ = std::move(*journal);
      std::vector<std::string> problems;
      for (auto& [seq, report] : journal_->Load(&problems)) {
        reports_.push_back({seq, std::move(report)});
      }
      for (const std::string& p : problems) Log("unreadable report " + p + ": removed");
      replay_ = reports_.size();
      if (replay_ > 0) {
        Log(std::to_string(replay_) +
            " report(s) kept from before this agent started: delivering them first");
      }
    } else {
      Log("reports kept in memory only: " + journal.status().message());
    }
  }
  // gRPC's own reconnection backoff grows to 2 minutes by default; the link's retry bounds keep a
  // returning controller from waiting that long for its agents.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, static_cast<int>(options_.retry_min.count()));
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, static_cast<int>(options_.retry_min.count()));
  // A call made while the channel waits out its backoff fails at once, so that backoff stays
  // short: a lease of a few seconds must see the controller's return within it.
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
              static_cast<int>(std::min<int64_t>(options_.retry_max.count(), 1000)));
  tls::ExpectServerName(&args, tls::kControllerName);
  for (const std::string& address : text::SplitList(options_.controller, ',')) {
    addresses_.push_back(address);
    stubs_.push_back(gantry::v1::NodeLink::NewStub(grpc::CreateCustomChannel(
        address, tls::ChannelCredentials(options_.identity.ca_pem, &options_.identity), args)));
  }
}

ControllerLink::~ControllerLink() { Stop(); }

void ControllerLink::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
  watchdog_ = std::thread([this] { Watchdog(); });
}

void ControllerLink::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  if (watchdog_.joinable()) watchdog_.join();
  // A stopping agent has ended its jobs (AgentDaemon::Shutdown): no lease is held any more.
  std::lock_guard<std::mutex> lock(mu_);
  if (lease_file_ && lease_record_.deadline_ms != 0) {
    lease_record_.deadline_ms = 0;
    (void)lease_file_->Write(lease_record_);
  }
}

void ControllerLink::RenewLeaseLocked(SteadyClock::time_point sent) {
  lease_start_ = std::max(lease_start_, sent);
  inherited_deadline_.reset();
  if (lease_file_) {
    const int64_t deadline_ms = lease_.count() == 0
                                    ? 0
                                    : std::chrono::duration_cast<std::chrono::milliseconds>(
                                          (lease_start_ + lease_).time_since_epoch())
                                          .count();
    if (deadline_ms != lease_record_.deadline_ms) {
      lease_record_.deadline_ms = deadline_ms;
      if (Status written = lease_file_->Write(lease_record_); !written.ok()) {
        Log("lease file: " + written.message());
      }
    }
  }
  if (fenced_) {
    fenced_ = false;
    Log("controller " + Address() + " answers again: the lease is renewed");
  }
}

std::chrono::milliseconds LongestRetry(std::chrono::milliseconds retry_min,
                                       std::chrono::milliseconds retry_max,
                                       std::chrono::milliseconds lease) {
  if (lease.count() <= 0) return retry_max;
  return std::max(retry_min, std::min(retry_max, lease / 10));
}

void ControllerLink::Watchdog() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if ((lease_.count() == 0 && !inherited_deadline_) || fenced_) {
      cv_.wait_for(lock, std::chrono::seconds(1));
      continue;
    }
    const SteadyClock::time_point deadline =
        inherited_deadline_ ? *inherited_deadline_ : lease_start_ + lease_;
    if (SteadyClock::now() < deadline) {
      cv_.wait_until(lock, deadline);
      continue;
    }
    fenced_ = true;
    Log(inherited_deadline_
            ? "the previous agent's lease ran out before controller " + Address() +
                  " answered: ending every job here, which the controller will run elsewhere"
            : "no call acknowledged by controller " + Address() + " for " +
                  std::to_string(lease_.count() / 1000) +
                  " s (the lease): ending every job here, which the controller will run "
                  "elsewhere");
    lock.unlock();
    if (callbacks_.on_fenced) callbacks_.on_fenced();
    lock.lock();
  }
}

void ControllerLink::Report(gantry::v1::JobReport report) {
  std::lock_guard<std::mutex> lock(mu_);
  if (report.node().empty()) report.set_node(options_.node);
  uint64_t seq = 0;
  if (journal_) {
    Result<uint64_t> kept = journal_->Append(report);
    if (kept.ok()) {
      seq = *kept;
    } else {
      Log("job " + std::to_string(report.job_id()) +
          ": report kept in memory only: " + kept.status().message());
    }
  }
  reports_.push_back({seq, std::move(report)});
  cv_.notify_all();
}

bool ControllerLink::Flush(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return reports_.empty() && !sending_; });
}

bool ControllerLink::registered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return registered_;
}

bool ControllerLink::WaitRegistered(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return registered_; });
}

size_t ControllerLink::queued_reports() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reports_.size();
}

void ControllerLink::SetContext(grpc::ClientContext* context) const {
  // With several controllers, one that went silent (its host cut off) is left for the next
  // within a few seconds.
  const std::chrono::milliseconds timeout =
      stubs_.size() > 1 ? std::min(options_.call_timeout, kReplicaCallTimeout)
                        : options_.call_timeout;
  context->set_deadline(std::chrono::system_clock::now() + timeout);
}

grpc::Status ControllerLink::CallRegister(gantry::v1::RegisterReply* reply) {
  gantry::v1::RegisterRequest request;
  request.set_node(options_.node);
  request.set_address(options_.agent_address);
  request.set_hostname(options_.hostname);
  request.set_boot_time(options_.boot_time);
  request.set_version(options_.version);
  if (callbacks_.running_jobs) {
    for (uint32_t id : callbacks_.running_jobs()) request.add_running_job_ids(id);
  }
  request.set_cpus(options_.cpus);
  request.set_memory_mb(options_.memory_mb);
  request.set_os(options_.os);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (start_health_) *request.mutable_health() = *start_health_;
  }
  grpc::ClientContext context;
  SetContext(&context);
  return Stub()->Register(&context, request, reply);
}

grpc::Status ControllerLink::FetchHealthSettings(gantry::v1::HealthSettings* settings) const {
  gantry::v1::GetHealthSettingsRequest request;
  request.set_node(options_.node);
  grpc::ClientContext context;
  SetContext(&context);
  return Stub()->GetHealthSettings(&context, request, settings);
}

grpc::Status ControllerLink::SendHealth(const gantry::v1::HealthReport& report) const {
  gantry::v1::ReportHealthReply reply;
  grpc::ClientContext context;
  SetContext(&context);
  return Stub()->ReportHealth(&context, report, &reply);
}

grpc::Status ControllerLink::CallHeartbeat(gantry::v1::HeartbeatReply* reply) {
  gantry::v1::HeartbeatRequest request;
  request.set_node(options_.node);
  request.set_boot_time(options_.boot_time);
  if (callbacks_.running_jobs) {
    for (uint32_t id : callbacks_.running_jobs()) request.add_job_ids(id);
  }
  if (callbacks_.ending_jobs) {
    for (uint32_t id : callbacks_.ending_jobs()) request.add_ending_job_ids(id);
  }
  if (callbacks_.job_epochs) {
    for (const auto& [id, epoch] : callbacks_.job_epochs()) (*request.mutable_epochs())[id] = epoch;
  }
  if (callbacks_.launched_jobs) {
    for (uint32_t id : callbacks_.launched_jobs()) request.add_launched_job_ids(id);
  }
  grpc::ClientContext context;
  SetContext(&context);
  return Stub()->Heartbeat(&context, request, reply);
}

grpc::Status ControllerLink::CallReport(const gantry::v1::JobReport& report) {
  gantry::v1::JobReportReply reply;
  grpc::ClientContext context;
  SetContext(&context);
  return Stub()->ReportJob(&context, report, &reply);
}

void ControllerLink::LoseController(const std::string& what, const grpc::Status& status) {
  // Under mu_.
  std::string error = Address() + " " + what + ": " + Describe(status);
  if (error != last_error_) {
    Log("controller " + Address() + " " + (registered_ ? "lost" : "not answering") + " (" + error +
        "); " + (stubs_.size() > 1 ? "trying the next controller" : "retrying"));
    last_error_ = error;
  }
  registered_ = false;
  // Replicated controllers: the next address (a standby refuses every call but Ping, so the
  // round ends at the leader).
  if (stubs_.size() > 1) current_ = (current_.load() + 1) % stubs_.size();
}

void ControllerLink::Loop() {
  std::chrono::milliseconds backoff = options_.retry_min;
  SteadyClock::time_point next_heartbeat = SteadyClock::now();
  std::unique_lock<std::mutex> lock(mu_);
  size_t tried = 0;  // controllers tried since the last wait
  auto fail = [&](const std::string& what, const grpc::Status& status) {
    LoseController(what, status);
    // With several controllers, every one is tried before the link waits.
    if (++tried < stubs_.size()) return;
    tried = 0;
    cv_.wait_for(lock, backoff, [&] { return stop_; });
    backoff = std::min(backoff * 2, LongestRetry(options_.retry_min, options_.retry_max, lease_));
  };
  while (!stop_) {
    // Reports kept from before a restart go first, even before registering: the controller
    // must learn how those jobs ended before it hears that this agent no longer holds them.
    if (!reports_.empty() && (registered_ || replay_ > 0)) {
      gantry::v1::JobReport report = reports_.front().report;
      sending_ = true;
      lock.unlock();
      const SteadyClock::time_point sent = SteadyClock::now();
      grpc::Status status = CallReport(report);
      lock.lock();
      sending_ = false;
      if (status.ok() || RefusedForGood(status.error_code())) {
        RenewLeaseLocked(sent);
        if (!status.ok()) {
          Log("job " + std::to_string(report.job_id()) + ": controller refused report " +
              gantry::v1::JobReport::Kind_Name(report.kind()) + " (" + Describe(status) +
              "); dropped");
        }
        if (journal_ && reports_.front().seq != 0) journal_->Remove(reports_.front().seq);
        reports_.pop_front();
        if (replay_ > 0) --replay_;
        backoff = options_.retry_min;
        cv_.notify_all();
        continue;
      }
      fail("report", status);
      continue;
    }
    if (!registered_ && !start_health_done_ && callbacks_.check_health_at_start) {
      lock.unlock();
      gantry::v1::HealthSettings settings;
      grpc::Status status = FetchHealthSettings(&settings);
      std::optional<gantry::v1::HealthReport> report;
      if (status.ok()) report = callbacks_.check_health_at_start(settings);
      lock.lock();
      if (!status.ok() && status.error_code() != grpc::StatusCode::UNIMPLEMENTED) {
        fail("health settings", status);
        continue;
      }
      start_health_ = std::move(report);
      start_health_done_ = true;
      continue;
    }
    if (!registered_) {
      lock.unlock();
      gantry::v1::RegisterReply reply;
      const SteadyClock::time_point sent = SteadyClock::now();
      grpc::Status status = CallRegister(&reply);
      if (status.ok()) {
        if (callbacks_.on_register) callbacks_.on_register(reply);
        std::vector<uint32_t> stale(reply.stale_job_ids().begin(), reply.stale_job_ids().end());
        if (!stale.empty() && callbacks_.on_stale) callbacks_.on_stale(stale);
      }
      lock.lock();
      if (!status.ok()) {
        fail("register", status);
        continue;
      }
      registered_ = true;
      tried = 0;
      start_health_.reset();
      last_error_.clear();
      lease_ = std::chrono::seconds(reply.fence_after_sec());
      RenewLeaseLocked(sent);
      heartbeat_interval_ =
          options_.heartbeat_override.count() > 0
              ? options_.heartbeat_override
              : std::chrono::milliseconds(1000 * (reply.heartbeat_interval_sec() > 0
                                                      ? reply.heartbeat_interval_sec()
                                                      : 10));
      next_heartbeat = SteadyClock::now() + heartbeat_interval_;
      const int64_t ms = heartbeat_interval_.count();
      Log("registered with controller " + Address() + " as " + options_.node + " at " +
          options_.agent_address + " (cluster " + reply.cluster_name() + ", heartbeat every " +
          (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") + ")");
      cv_.notify_all();
      continue;
    }
    if (SteadyClock::now() >= next_heartbeat) {
      lock.unlock();
      gantry::v1::HeartbeatReply reply;
      const SteadyClock::time_point sent = SteadyClock::now();
      grpc::Status status = CallHeartbeat(&reply);
      std::vector<uint32_t> stale(reply.stale_job_ids().begin(), reply.stale_job_ids().end());
      if (status.ok() && !stale.empty() && callbacks_.on_stale) callbacks_.on_stale(stale);
      lock.lock();
      next_heartbeat = SteadyClock::now() + heartbeat_interval_;
      if (!status.ok()) {
        fail("heartbeat", status);
        continue;
      }
      // A controller that asks for registration counts this node lost already: no renewal.
      if (!reply.reregister()) RenewLeaseLocked(sent);
      backoff = options_.retry_min;
      if (reply.reregister()) {
        Log("controller " + Address() + " asks this node to register again");
        registered_ = false;
      }
      continue;
    }
    cv_.wait_until(lock, next_heartbeat, [&] { return stop_ || !reports_.empty(); });
  }
}

}  // namespace gantry::agent
