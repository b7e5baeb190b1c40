// The agent's side of NodeLink (proto/gantry/v1/controller.proto): registration, heartbeats and
// job reports, over mutual TLS: the channel presents this node's certificate and accepts only the
// controller's (tls/cluster_tls.h).
//
// One background thread does all of it, in order:
//   - Register until the controller answers (backoff from retry_min, doubling up to LongestRetry),
//     then
//     hand the reply to on_register (settings) and its stale_job_ids to on_stale;
//   - send queued reports in the order they were queued; a report leaves the queue when the
//     controller acknowledges it (OK) or refuses it for good (INVALID_ARGUMENT, NOT_FOUND,
//     FAILED_PRECONDITION, ALREADY_EXISTS, OUT_OF_RANGE: logged and dropped); any other error
//     keeps it queued;
//   - Heartbeat every RegisterReply.heartbeat_interval_sec (10 when 0) with running_jobs();
//     HeartbeatReply.stale_job_ids go to on_stale; reregister = register again.
// Any call failing otherwise (controller down, timeout, credential refused) marks the link
// unregistered: it registers again (with running_jobs()) when the controller is back, and sends
// the queued reports after that. Reports are also kept in `journal_dir` (report_journal.h) until
// acknowledged: those found at construction (an earlier agent's) are sent first, before
// registering, so that the controller learns how those jobs ended before it hears that this
// agent does not hold them.
//
// The lease (self-fencing): a second thread watches the time since the sending of the last call
// the controller acknowledged; past RegisterReply.fence_after_sec it calls on_fenced once (the
// agent ends its jobs), since the controller will by then count the node lost and run its jobs
// elsewhere. The next acknowledged call lifts the fence. Each renewal is also written to
// `lease_file` for the keepers of the node's jobs (lease_file.h); a deadline found there at
// construction (an earlier agent's) holds until the first acknowledged call, so that an agent
// that takes over jobs and never reaches the controller still ends them in time. Stop() writes
// that no lease is held (the agent's jobs have ended by then).
//
// Thread-safety: Report, Flush, registered and WaitRegistered may be called from any thread,
// including while holding the caller's locks (they never call back). Callbacks run on the link's
// thread without the link's lock.
#ifndef GANTRY_AGENT_CONTROLLER_LINK_H_
#define GANTRY_AGENT_CONTROLLER_LINK_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/job_manager.h"
#include "agent/lease_file.h"
#include "agent/report_journal.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "tls/cluster_tls.h"

namespace gantry::agent {

struct ControllerLinkOptions {
  std::string node;
  // host:port; replicated controllers: every one's, comma-separated (the link follows the
  // leader: a call refused or unanswered goes to the next).
  std::string controller;
  tls::Identity identity;     // this node's certificate and the cluster's CA
  std::string agent_address;  // host:port the Agent service is reachable at
  std::string hostname;
  std::string os;
  std::string version;
  int64_t boot_time = 0;
  uint32_t cpus = 0;
  uint64_t memory_mb = 0;
  std::chrono::milliseconds retry_min{500};
  std::chrono::milliseconds retry_max{10000};
  std::chrono::milliseconds call_timeout{10000};
  // Where reports wait for their acknowledgement on disk; empty = in memory only.
  std::string journal_dir;
  // Where the lease is kept for the keepers (lease_file.h); empty = nowhere.
  std::string lease_file;
  // Overrides the controller's heartbeat interval when > 0 (tests).
  std::chrono::milliseconds heartbeat_override{0};
};

// The longest wait between two tries: retry_max, or while a lease runs (lease > 0) a tenth of it,
// at least retry_min, so that a controller back within the lease is found before it ends.
std::chrono::milliseconds LongestRetry(std::chrono::milliseconds retry_min,
                                       std::chrono::milliseconds retry_max,
                                       std::chrono::milliseconds lease);

struct ControllerLinkCallbacks {
  std::function<void(const gantry::v1::RegisterReply&)> on_register;
  std::function<std::vector<uint32_t>()> running_jobs;
  // Of those, the jobs whose batch script was started here (HeartbeatRequest.launched_job_ids).
  std::function<std::vector<uint32_t>()> launched_jobs;
  // Of those, the jobs being ended here (HeartbeatRequest.ending_job_ids).
  std::function<std::vector<uint32_t>()> ending_jobs;
  // The launch each held job belongs to (HeartbeatRequest.epochs).
  std::function<std::map<uint32_t, uint64_t>()> job_epochs;
  std::function<void(const std::vector<uint32_t>&)> on_stale;
  // The lease ran out (see the header comment).
  std::function<void()> on_fenced;
  // The health checks to run before the agent first registers, with the settings the
  // controller gave (GetHealthSettings, asked until it answers): their report goes with the
  // registration. Unset, or a controller that does not know the call: none.
  std::function<gantry::v1::HealthReport(const gantry::v1::HealthSettings&)> check_health_at_start;
};

class ControllerLink final : public ReportSink {
 public:
  ControllerLink(ControllerLinkOptions options, ControllerLinkCallbacks callbacks);
  ~ControllerLink() override;  // Stop()
  ControllerLink(const ControllerLink&) = delete;
  ControllerLink& operator=(const ControllerLink&) = delete;

  // The address sent in RegisterRequest.address; set before Start (the port is known only once
  // the Agent service is bound).
  void set_agent_address(std::string address) { options_.agent_address = std::move(address); }
  void Start();
  // Stops the thread; queued reports stay in the journal (if any) for the next agent (Flush
  // first to send them).
  void Stop();

  // Queues a report (never blocks on the network).
  void Report(gantry::v1::JobReport report) override;
  // Waits until every queued report is acknowledged; false after `timeout`.
  bool Flush(std::chrono::milliseconds timeout);

  // NodeLink.GetHealthSettings and ReportHealth for this node, from any thread.
  grpc::Status FetchHealthSettings(gantry::v1::HealthSettings* settings) const;
  grpc::Status SendHealth(const gantry::v1::HealthReport& report) const;

  bool registered() const;
  // Waits until the link is registered; false after `timeout`.
  bool WaitRegistered(std::chrono::milliseconds timeout);
  size_t queued_reports() const;

 private:
  void Loop();
  void Watchdog();
  // A call sent at `sent` was acknowledged: the lease starts again from there.
  void RenewLeaseLocked(std::chrono::steady_clock::time_point sent);
  grpc::Status CallRegister(gantry::v1::RegisterReply* reply);
  grpc::Status CallHeartbeat(gantry::v1::HeartbeatReply* reply);
  grpc::Status CallReport(const gantry::v1::JobReport& report);
  void SetContext(grpc::ClientContext* context) const;
  void LoseController(const std::string& what, const grpc::Status& status);

  gantry::v1::NodeLink::Stub* Stub() const { return stubs_[current_.load()].get(); }
  const std::string& Address() const { return addresses_[current_.load()]; }

  ControllerLinkOptions options_;  // agent_address may change before Start
  const ControllerLinkCallbacks callbacks_;
  std::vector<std::string> addresses_;  // the controllers, in the order tried
  std::vector<std::unique_ptr<gantry::v1::NodeLink::Stub>> stubs_;  // one per address
  std::atomic<size_t> current_{0};                                  // the one calls go to

  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Queued {
    uint64_t seq = 0;  // in journal_; 0 = not kept there
    gantry::v1::JobReport report;
  };
  std::optional<ReportJournal> journal_;
  std::deque<Queued> reports_;  // front = next to send
  size_t replay_ = 0;           // how many of the first reports came from the journal
  bool sending_ = false;        // the front report is being sent
  bool registered_ = false;
  // The start's health report, until a registration carried it (only the first does).
  std::optional<gantry::v1::HealthReport> start_health_;
  bool start_health_done_ = false;
  bool stop_ = false;
  std::chrono::milliseconds heartbeat_interval_{10000};
  std::string last_error_;              // to log a failure once, not at every retry
  std::chrono::milliseconds lease_{0};  // 0: none (not registered yet, or the controller's is 0)
  std::chrono::steady_clock::time_point lease_start_;
  // An earlier agent's deadline (lease_file), kept until the first acknowledged call.
  std::optional<std::chrono::steady_clock::time_point> inherited_deadline_;
  std::optional<LeaseFile> lease_file_;
  LeaseRecord lease_record_;  // what lease_file_ holds
  bool fenced_ = false;
  std::thread thread_;
  std::thread watchdog_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_CONTROLLER_LINK_H_
