// The controller's core: owns the cluster state, turns each accepted request into events that
// are applied in memory and made durable before the caller gets its answer, runs the scheduler
// and the timers (time limits, silent nodes), and drives the agents through AgentLink.
//
// Concurrency: one writer lock (`mu_`) guards the state; readers (GetJobs, GetNodes) take it
// shared. The scheduling pass holds it exclusively but gives way to waiting requests every
// bf_yield_interval (sched::PassYield), so a request waits a slice of a pass, not all of it. A
// change is applied under the lock and queued to the store in the same order (Store::EnqueueWrite),
// then the caller waits for durability with no lock held, so concurrent requests share one commit.
// Agent calls for a change are issued only once it is durable. Every public method is thread-safe.
#ifndef GANTRY_CTLD_CONTROLLER_H_
#define GANTRY_CTLD_CONTROLLER_H_

#include <sys/types.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "base/time.h"
#include "core/context.h"
#include "core/effects.h"
#include "core/pass_log.h"
#include "ctld/agent_link.h"
#include "ctld/config.h"
#include "ctld/diag_stats.h"
#include "ctld/listing_cache.h"
#include "ctld/record_cache.h"
#include "ctld/user_tokens.h"
#include "ctld/waited_mutex.h"
#include "gantry/v1/agent.pb.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/events.pb.h"
#include "metrics/histogram.h"
#include "model/job_brief.h"
#include "model/job_state.h"
#include "state/cluster_state.h"
#include "state/step_plan.h"
#include "state/usage.h"
#include "store/store.h"
#include "wire/frame.h"

namespace gantry::ctld {

// Who is calling, as the transport proved it.
struct Caller {
  uid_t uid = 0;
  gid_t gid = 0;
};

class Controller {
 public:
  // `store`, `clock` and `agents` must outlive the controller.
  Controller(ControllerConfig config, store::Store* store, const Clock* clock, AgentLink* agents);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Restores the state from the store (snapshot + log), then records `nodes_and_partitions`
  // from the spec when it differs from what the state holds. Call once, before Start.
  Status Recover(const v1::ConfigLoaded& nodes_and_partitions);
  // Starts the background loop (scheduling, time limits, node timeouts); Stop joins it and
  // saves a snapshot.
  void Start();
  void Stop();

  // Commands. Errors carry Slurm's texts; codes as in controller.proto.
  Result<v1::SubmitJobReply> Submit(const Caller& caller, const v1::SubmitJobRequest& request);
  Result<v1::SignalJobReply> Signal(const Caller& caller, const v1::SignalJobRequest& request);
  Result<v1::UpdateJobReply> UpdateJob(const Caller& caller, const v1::UpdateJobRequest& request);
  // srun in a running job: a new step (its id) or the end of one. Only the job's owner, root
  // or an operator; errors: "Invalid job id specified", "Access/permission denied", "Job is
  // not running" (InvalidArgument / PermissionDenied / FailedPrecondition).
  Result<v1::JobStepReply> JobStep(const Caller& caller, const v1::JobStepRequest& request);
  // With request.history (sacct): also the jobs the store archived, sorted by id. Fails only
  // when the archive cannot be read.
  Status GetJobs(const v1::GetJobsRequest& request, v1::GetJobsReply* reply) const;
  // The listing a request with `squeue` asks for (listing_cache.h) and the time it was made at.
  Result<std::shared_ptr<const ListingCache::Listing>> SqueueListing(
      const v1::GetJobsRequest& request, UnixTime* now) const;
  // The same reply in its wire form (the local command socket's listings), `now` and
  // `jobs_at_most` before the jobs. A listing's records are slices of the kept wire records
  // (RecordCache), written out after the locks are released.
  Status GetJobsSerialized(const v1::GetJobsRequest& request, wire::Slices* out) const;
  // InvalidArgument naming the field when request.shard is not below request.shards (>1).
  static Status CheckShard(const v1::GetJobsRequest& request);
  // The blocks of request.shard (of request.shards): a contiguous range; all of them for 0 or 1
  // shards. A shard past the last gets the last one's (CheckShard refuses it first).
  static std::vector<std::shared_ptr<const RecordCache::Block>> ShardOf(
      const v1::GetJobsRequest& request,
      std::vector<std::shared_ptr<const RecordCache::Block>> all);
  void GetNodes(const v1::GetNodesRequest& request, v1::GetNodesReply* reply) const;
  Status UpdateNode(const Caller& caller, const v1::UpdateNodeRequest& request);
  // sacctmgr: the accounting database (state/accounting.h).
  v1::AccountingDb GetAccounting() const;
  // sprio/sshare: pending jobs' priority factors and the fair-share tree, at the clock's now.
  v1::GetPrioritiesReply GetPriorities(const v1::GetPrioritiesRequest& request) const;
  // sacctmgr's changes, checked against the database's rules and committed as one event.
  // Allowed to operators (root, SlurmUser) and to users the database makes Operator or
  // Administrator (else PermissionDenied "Access/permission denied"). FailedPrecondition when
  // the database changed since request.expected_version, or when a removed association still
  // has pending or running jobs ("Job(s) active, cancel job(s) before remove").
  Result<v1::UpdateAccountingReply> UpdateAccounting(const Caller& caller,
                                                     const v1::UpdateAccountingRequest& request);
  // scontrol update PartitionName=: operators only (else "Invalid user id", as Slurm 22.05).
  Status UpdatePartition(const Caller& caller, const v1::UpdatePartitionRequest& request);
  void GetConfig(v1::GetConfigReply* reply) const;
  bool IsOperator(const Caller& caller) const;
  // sdiag: the statistics (`self` is the sdiag call, left out of the pending RPCs), or with
  // request.reset a fresh start of them: operators only (else PermissionDenied
  // "Access/permission denied").
  // A job's batch script from the store (an array task's is its array's): its owner and
  // operators only. Errors as the GetJobScript RPC says.
  Result<v1::GetJobScriptReply> GetJobScript(const Caller& caller,
                                             const v1::GetJobScriptRequest& request) const;
  Result<v1::GetStatsReply> GetStats(const Caller& caller, const v1::GetStatsRequest& request,
                                     const DiagStats::Call* self);
  // Where the RPC entry points count their calls.
  DiagStats& stats() { return stats_; }
  // scontrol token, and the users of calls that carry a token (ctld/user_tokens.h).
  const UserTokens& tokens() const { return tokens_; }
  // OpenMetrics text of one of Slurm 25.11's endpoints ("jobs", "nodes", "partitions",
  // "scheduler", "jobs-users-accts"; "" = all of them) and Gantry's own figures with the
  // scheduler's (commit latency, store size). NotFound for another name. Takes the lock shared,
  // as a listing does.
  Result<std::string> Metrics(std::string_view endpoint) const;

  // Node agents.
  Result<v1::RegisterReply> Register(const Caller& caller, const v1::RegisterRequest& request);
  Result<v1::HeartbeatReply> Heartbeat(const Caller& caller, const v1::HeartbeatRequest& request);
  Status Report(const Caller& caller, const v1::JobReport& report);
  // What `node`'s health checks need (core::HealthSettingsFor). NotFound for an unknown node.
  Result<v1::HealthSettings> HealthSettings(const Caller& caller, const std::string& node);
  // A run of a node's health checks: kept for `gantry nodes health`, counted, and its effects
  // (core::OnHealthReport) committed. Register applies the run its request carries the same way.
  Status ReportHealth(const Caller& caller, const v1::HealthReport& report);

  // The controller's TCP address (host:port), once the server listens.
  void set_controller_address(const std::string& address);
  // A replicated controller (decision 0017): its name and "NAME HOST:PORT", which Ping reports
  // as the leader's. Set once, before the services are started.
  void set_replica(std::string name, std::string holder) {
    replica_name_ = std::move(name);
    replica_holder_ = std::move(holder);
  }
  const std::string& replica_name() const { return replica_name_; }
  // Runs instead of exiting when a commit fails (a replica starts again as a standby); it must
  // not return. Set once, before the services are started.
  void set_on_fatal(std::function<void()> on_fatal) { on_fatal_ = std::move(on_fatal); }
  // scontrol takeover: `hand_over(name)` gives the lead to that replica (and must return at
  // once: this process stops serving after the answer). Set once, before serving.
  void set_on_takeover(std::function<Status(const std::string&)> hand_over) {
    on_takeover_ = std::move(hand_over);
  }
  // Operators only; FailedPrecondition for a lone controller, InvalidArgument for no name.
  Status Takeover(const Caller& caller, const std::string& to) const;
  const std::string& replica_holder() const { return replica_holder_; }
  // Saves a snapshot of the whole state now (at a clean stop, so the next start replays little).
  void SaveSnapshotNow();

  // One pass of the background loop at the clock's now (tests drive it directly). Returns the
  // milliseconds until one of the core's timers is due (core/timers.h; nullopt: none is set).
  std::optional<int64_t> RunOnce();
  // Wakes the background loop early (after a submit or a node freed).
  void Kick();

  // The last event applied, for tests.
  uint64_t events_applied() const { return events_applied_.load(); }

 private:
  // Work to do once a change is durable (agent calls), built under the lock.
  using AfterCommit = std::vector<std::function<void()>>;

  // Applies `events` (each must apply; a failure is a bug, logged, and the event dropped) and
  // queues them with `puts`/`erases` to the store. Call with mu_ held exclusively.
  std::unique_ptr<store::PendingWrite> CommitLocked(
      std::vector<v1::Event> events, std::vector<std::pair<std::string, std::string>> puts = {},
      std::vector<std::string> erases = {}, std::vector<store::ArchivedJob> archive = {})
      GANTRY_REQUIRES(mu_);
  // Waits for `pending` (no lock held), then runs `after`. Returns the commit's status.
  Status Finish(std::unique_ptr<store::PendingWrite> pending, AfterCommit after);
  // `event` alone, for CommitLocked.
  static std::vector<v1::Event> OneEvent(v1::Event event);
  Status GetJobHistory(const v1::GetJobsRequest& request, v1::GetJobsReply* reply) const;
  // The jobs a history request selects (live ones, then the archive for the rest), as
  // (id, serialized v1::Job) in id order; *now = the controller's clock.
  Status HistoryRecords(const v1::GetJobsRequest& request, UnixTime* now,
                        std::vector<std::pair<uint32_t, std::string>>* out) const;
  // Calls fn for each live job the request selects (ids, an array's id naming all its records,
  // user_ids). Call with mu_ held (shared is enough).
  void VisitLiveJobsLocked(const v1::GetJobsRequest& request,
                           const std::function<void(const v1::Job&)>& fn) const
      GANTRY_REQUIRES_SHARED(mu_);
  // Why one job of an UpdateJob request was not changed: Slurm's text and error number.
  struct JobRefusal {
    std::string message;
    int code;
  };
  // An UpdateJob `action` refused to a caller who neither owns the job nor operates the
  // cluster, in Slurm's words: "Invalid user id" for a change or a hold (slurmctld's update_job),
  // "Access/permission denied" for a requeue or an allocation's completion.
  static JobRefusal NotTheirs(const std::string& action);
  // Under mu_: the events (and agent calls) for one job of an UpdateJob request.
  std::optional<JobRefusal> UpdateOneJobLocked(const Caller& caller,
                                               const v1::UpdateJobRequest& request,
                                               const v1::Job& job, std::vector<v1::Event>* events,
                                               AfterCommit* after) GANTRY_REQUIRES(mu_);

  // Under mu_: scontrol suspend/resume of one job id as typed (controller_suspend.cc).
  std::optional<JobRefusal> SuspendOneJobLocked(const Caller& caller, bool suspend,
                                                const std::string& text,
                                                std::vector<v1::Event>* events, AfterCommit* after)
      GANTRY_REQUIRES(mu_);
  // Under mu_: `sig` to the job's processes that `scope` names on each of its nodes (or
  // `only_node`) once the change is durable (SIGNAL_BATCH: the first node only).
  void SignalOnNodesLocked(const v1::Job& job, int sig, v1::SignalScope scope, AfterCommit* after,
                           const std::string& only_node = "") GANTRY_REQUIRES(mu_);

  v1::Event NewEvent() const;
  // core::RequeueEvent at the clock's now.
  v1::Event RequeueEvent(const v1::Job& job) GANTRY_REQUIRES(mu_);
  // Under mu_: keeps a node's health report for `gantry nodes health` and counts it.
  void NoteHealthLocked(const v1::HealthReport& report) GANTRY_REQUIRES(mu_);
  // The core's view of this call (core/context.h): the state, its settings, the controller's
  // memory and the clocks now. Call with mu_ held exclusively (the core may update memory_).
  core::Context CoreLocked() GANTRY_REQUIRES(mu_);
  // The shell's part of the core's effects: log lines logged, volatile updates applied, events
  // appended to `events` (committed by the caller; none are expected where it is null), agent
  // calls queued in `after`.
  void CarryOutLocked(core::Effects effects, std::vector<v1::Event>* events, AfterCommit* after)
      GANTRY_REQUIRES(mu_);
  // Queues (in `after`) the agent call `action` names.
  void CallAgentLocked(const core::AgentAction& action, AfterCommit* after)
      GANTRY_REQUIRES_SHARED(mu_);
  std::string UserName(uid_t uid) const;
  // The accounting database a new cluster starts with.
  v1::AccountingChange DefaultAccountingLocked() const GANTRY_REQUIRES_SHARED(mu_);
  std::string GroupName(gid_t gid) const;
  // Who `uid` (primary group `gid`) is for admission: names, whether an operator, and every
  // group (getgrouplist) when a partition has AllowGroups (group_lists_needed_; the group
  // file is not read for every submission otherwise).
  state::Caller AdmissionCaller(uid_t uid, gid_t gid) const;
  // Unavailable naming the free space when the store's disk is below store_min_free_bytes.
  Status CheckRoomForNewWork() const;

  // Job lifecycle pieces (core/job_actions.h carried out), all with mu_ held; they append
  // events and agent calls. `grace_sec` (a preempted job's GraceTime) goes before the KillWait.
  void EndJobLocked(const v1::Job& job, model::JobBaseState state, int32_t exit_status,
                    const std::string& cause, std::vector<v1::Event>* events, AfterCommit* after,
                    uint32_t grace_sec = 0) GANTRY_REQUIRES(mu_);
  void TerminateOnNodesLocked(const v1::Job& job, AfterCommit* after, uint32_t grace_sec = 0)
      GANTRY_REQUIRES(mu_);
  void RequeueOrFailLocked(const v1::Job& job, const std::string& node, const std::string& why,
                           std::vector<v1::Event>* events, AfterCommit* after) GANTRY_REQUIRES(mu_);
  v1::JobContext ContextLocked(const v1::Job& job, uint32_t node_index) const
      GANTRY_REQUIRES_SHARED(mu_);
  // After the step's commit: each step node's agent starts its tasks (LaunchTasks).
  void LaunchStepLocked(const v1::Job& job, const v1::JobStep& step,
                        const state::StepPlacement& placement, const v1::StepLaunch& launch,
                        AfterCommit* after) const GANTRY_REQUIRES_SHARED(mu_);
  // sshare's TRESRunMins: per association (and every account above), the TRES x minutes left
  // of the time limits of its running jobs. Call with mu_ held.
  std::map<uint32_t, state::TresAmounts> TresRunMinutesLocked(UnixTime now) const
      GANTRY_REQUIRES_SHARED(mu_);
  void MaybeSnapshot(bool force = false);
  // The loop's: frees the listings' dropped views, and gives the heap's free pages back.
  void CollectListings();
  void PurgeLocked(UnixTime now) GANTRY_REQUIRES(mu_);
  // Drops the serialized records of the jobs state_.changed_jobs names, and clears it. Call with
  // mu_ held exclusively after changing job records.
  void ForgetChangedRecordsLocked() GANTRY_REQUIRES(mu_);
  // Every kept block of wire records in `form`, up to date. Call with mu_ held (shared is
  // enough).
  std::vector<std::shared_ptr<const RecordCache::Block>> RecordBlocksLocked(
      model::JobRecordForm form = model::JobRecordForm::kFull) const GANTRY_REQUIRES_SHARED(mu_)
      GANTRY_EXCLUDES(records_mu_);

  const ControllerConfig config_;
  store::Store* const store_;
  const Clock* const clock_;
  AgentLink* const agents_;
  const UserTokens tokens_;
  // How long each commit took to be durable (Finish's wait), for /metrics.
  mutable metrics::LatencyHistogram commit_latency_;

  // The pass holds it exclusively, giving way to waiting requests (RunOnce's PassYield).
  mutable WaitedMutex mu_;
  state::ClusterState state_ GANTRY_GUARDED_BY(mu_);
  // While the scheduling pass gives way: what the commits of others change (CommitLocked
  // records it), for the pass to drop its decisions about it. Guarded by mu_.
  sched::Interference* interference_ GANTRY_GUARDED_BY(mu_) = nullptr;
  // The core's settings (from config_; boot_time set by Recover) and the controller's memory
  // between calls (core/context.h), guarded by mu_.
  core::Config core_config_ GANTRY_GUARDED_BY(mu_);
  core::Memory memory_ GANTRY_GUARDED_BY(mu_);
  // Health check runs received since the start, by result (the metrics count them).
  struct HealthCounts {
    uint64_t passed = 0;
    uint64_t failed = 0;
  };
  HealthCounts health_counts_ GANTRY_GUARDED_BY(mu_);
  // The cycles a replay must run where they ran (core/pass_log.h), guarded by mu_.
  core::PassLogWriter pass_log_ GANTRY_GUARDED_BY(mu_);
  // Whether a partition restricts AllowGroups: set by Recover (partitions come only from the
  // spec's ConfigLoaded), before requests are served.
  bool group_lists_needed_ = false;
  // Added to under mu_ held exclusively; MaybeSnapshot resets it holding mu_ shared.
  std::atomic<uint64_t> events_since_snapshot_{0};
  std::atomic<uint64_t> events_applied_{0};
  UnixTime boot_time_ = 0;
  UnixTime last_purge_ GANTRY_GUARDED_BY(mu_) = 0;
  std::string controller_address_ GANTRY_GUARDED_BY(mu_);
  std::string replica_name_;                               // set before serving, then read only
  std::string replica_holder_;                             // likewise
  std::function<void()> on_fatal_;                         // likewise
  std::function<Status(const std::string&)> on_takeover_;  // likewise
  // Each job's record in its wire form, for listings: made when first listed, made again when
  // the job changes (ForgetChangedRecordsLocked). Used with mu_ held shared and records_mu_, or
  // with mu_ held exclusively.
  mutable Mutex records_mu_;
  // One cache per model::JobRecordForm, in its order; a form's blocks are made when a listing
  // first asks for it.
  mutable std::array<RecordCache, 3> record_caches_ GANTRY_GUARDED_BY(records_mu_){
      RecordCache(model::JobRecordForm::kFull), RecordCache(model::JobRecordForm::kBrief),
      RecordCache(model::JobRecordForm::kSlim)};
  // squeue listings made here (GetJobsRequest.squeue), from record_caches_' blocks.
  mutable ListingCache listings_;

  DiagStats stats_;

  Mutex loop_mu_;
  std::condition_variable_any loop_cv_;
  bool kicked_ GANTRY_GUARDED_BY(loop_mu_) = false;
  bool stopping_ GANTRY_GUARDED_BY(loop_mu_) = false;
  // CollectListings' (the loop thread's alone).
  bool trim_wanted_ = false;
  std::chrono::steady_clock::time_point last_trim_;
  std::thread loop_;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_CONTROLLER_H_
