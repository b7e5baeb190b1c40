// The controller's core: owns the cluster state, turns each accepted request into events that
// are applied in memory and made durable before the caller gets its answer, runs the scheduler
// and the timers (time limits, silent nodes), and drives the agents through AgentLink.
//
// Concurrency: one writer lock (`mu_`) guards the state; readers (GetJobs, GetNodes) take it
// shared. A change is applied under the lock and queued to the store in the same order
// (Store::EnqueueWrite), then the caller waits for durability with no lock held, so concurrent
// requests share one commit. Agent calls for a change are issued only once it is durable.
// Every public method is thread-safe.
#ifndef GANTRY_CTLD_CONTROLLER_H_
#define GANTRY_CTLD_CONTROLLER_H_

#include <sys/types.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "ctld/agent_link.h"
#include "ctld/config.h"
#include "ctld/diag_stats.h"
#include "ctld/listing_cache.h"
#include "ctld/record_cache.h"
#include "gantry/v1/agent.pb.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/events.pb.h"
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

  // Node agents.
  Result<v1::RegisterReply> Register(const Caller& caller, const v1::RegisterRequest& request);
  Result<v1::HeartbeatReply> Heartbeat(const Caller& caller, const v1::HeartbeatRequest& request);
  Status Report(const Caller& caller, const v1::JobReport& report);

  // The controller's TCP address (host:port), once the server listens.
  void set_controller_address(const std::string& address);
  // Saves a snapshot of the whole state now (at a clean stop, so the next start replays little).
  void SaveSnapshotNow();

  // One pass of the background loop at the clock's now (tests drive it directly).
  void RunOnce();
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
      std::vector<std::string> erases = {}, std::vector<store::ArchivedJob> archive = {});
  // Waits for `pending` (no lock held), then runs `after`. Returns the commit's status.
  Status Finish(std::unique_ptr<store::PendingWrite> pending, AfterCommit after);
  // Commits one event (mu_ held exclusively through `lock`), releases the lock and waits until
  // the event is durable.
  Status CommitOneAndUnlock(v1::Event event, std::unique_lock<std::shared_mutex>& lock);
  Status GetJobHistory(const v1::GetJobsRequest& request, v1::GetJobsReply* reply) const;
  // The jobs a history request selects (live ones, then the archive for the rest), as
  // (id, serialized v1::Job) in id order; *now = the controller's clock.
  Status HistoryRecords(const v1::GetJobsRequest& request, UnixTime* now,
                        std::vector<std::pair<uint32_t, std::string>>* out) const;
  // Calls fn for each live job the request selects (ids, an array's id naming all its records,
  // user_ids). Call with mu_ held (shared is enough).
  void VisitLiveJobsLocked(const v1::GetJobsRequest& request,
                           const std::function<void(const v1::Job&)>& fn) const;
  // Why one job of an UpdateJob request was not changed: Slurm's text and error number.
  struct JobRefusal {
    std::string message;
    int code;
  };
  // Under mu_: the events (and agent calls) for one job of an UpdateJob request.
  std::optional<JobRefusal> UpdateOneJobLocked(const Caller& caller,
                                               const v1::UpdateJobRequest& request,
                                               const v1::Job& job, std::vector<v1::Event>* events,
                                               AfterCommit* after);

  // Under mu_: scontrol suspend/resume of one job id as typed (controller_suspend.cc).
  std::optional<JobRefusal> SuspendOneJobLocked(const Caller& caller, bool suspend,
                                                const std::string& text,
                                                std::vector<v1::Event>* events, AfterCommit* after);
  // Under mu_: `sig` to the job's processes that `scope` names on each of its nodes (or
  // `only_node`) once the change is durable (SIGNAL_BATCH: the first node only).
  void SignalOnNodesLocked(const v1::Job& job, int sig, v1::SignalScope scope, AfterCommit* after,
                           const std::string& only_node = "");

  v1::Event NewEvent() const;
  // A JobRequeued event for `job`, with Slurm's requeue delay: it may start again only once the
  // launch credential of the run that ends has expired (AuthInfo cred_expire + 1 s), unless its
  // own begin time is later. Slurm counts from the requeue's end, here from its start.
  v1::Event RequeueEvent(const v1::Job& job) const;
  std::string UserName(uid_t uid) const;
  // The accounting database a new cluster starts with.
  v1::AccountingChange DefaultAccountingLocked() const;
  std::string GroupName(gid_t gid) const;
  // Who `uid` (primary group `gid`) is for admission: names, whether an operator, and every
  // group (getgrouplist) when a partition has AllowGroups (group_lists_needed_; the group
  // file is not read for every submission otherwise).
  state::Caller AdmissionCaller(uid_t uid, gid_t gid) const;
  // Unavailable naming the free space when the store's disk is below store_min_free_bytes.
  Status CheckRoomForNewWork() const;

  // Job lifecycle pieces, all with mu_ held; they append events and agent calls.
  // `grace_sec` (a preempted job's GraceTime) goes before the KillWait.
  void EndJobLocked(const v1::Job& job, model::JobBaseState state, int32_t exit_status,
                    const std::string& cause, std::vector<v1::Event>* events, AfterCommit* after,
                    uint32_t grace_sec = 0);
  void TerminateOnNodesLocked(const v1::Job& job, AfterCommit* after, uint32_t grace_sec = 0);
  // Queues (in `after`) a TerminateJob of `job`'s launch `epoch` (its agent_epoch, or an earlier
  // one an agent still holds) to `node`, the job's node number `index` (SLURM_NODEID; 0 for a
  // node the job no longer lists), with KillWait + grace_sec.
  void TerminateOnNodeLocked(const v1::Job& job, const v1::Node& node, uint32_t index,
                             uint64_t epoch, uint32_t grace_sec, AfterCommit* after);
  // Queues (in `after`) a PrepareJob of `job` to `node`, its node number `index`.
  void PrepareOnNodeLocked(const v1::Job& job, const v1::Node& node, uint32_t index,
                           AfterCommit* after);
  // Sends the job's batch script to its first node (the payload read from the store after the
  // commit), with `state_flags` in its context.
  void LaunchBatchLocked(const v1::Job& job, uint32_t state_flags, AfterCommit* after);
  // Delivery until confirmed: what a heartbeat shows the node still owes (the epilog of an ended
  // job, the batch script of a running one) is sent again once it stays owed for a while.
  void ReconcileLocked(const v1::Node& node, const v1::HeartbeatRequest& request,
                       AfterCommit* after);
  void RequeueOrFailLocked(const v1::Job& job, const std::string& node, const std::string& why,
                           std::vector<v1::Event>* events, AfterCommit* after);
  v1::JobContext ContextLocked(const v1::Job& job, uint32_t node_index) const;
  // After the step's commit: each step node's agent starts its tasks (LaunchTasks).
  void LaunchStepLocked(const v1::Job& job, const v1::JobStep& step,
                        const state::StepPlacement& placement, const v1::StepLaunch& launch,
                        AfterCommit* after) const;
  void ScheduleLocked(UnixTime now, std::vector<v1::Event>* events, std::vector<uint32_t>* started,
                      AfterCommit* after);
  // Preemption (controller_preempt.cc): carries out one of the pass's preemptions (suspends,
  // requeues or cancels the victim), and resumes the jobs preemption suspended once the CPUs
  // they gave up are free again.
  void PreemptLocked(const sched::Preemption& preemption, std::vector<v1::Event>* events,
                     AfterCommit* after);
  void ResumePreemptedLocked(std::vector<v1::Event>* events, AfterCommit* after);
  // Gang time-slicing: suspends the running jobs whose turn is over (sched::TimeSlice).
  void TimeSliceLocked(UnixTime now, std::vector<v1::Event>* events, AfterCommit* after);
  // JobSuspended{preemptor} and SIGSTOP to the job's processes (both of the above).
  void SuspendForLocked(const v1::Job& job, uint32_t preemptor, std::vector<v1::Event>* events,
                        AfterCommit* after);
  // priority/multifactor: every PriorityCalcPeriod, every pending job's priority is computed
  // again; in between, those of jobs that entered the queue (state_.entered_pending). In
  // memory only, like reasons (controller_priority.cc).
  void UpdatePrioritiesLocked(UnixTime now);
  // PriorityUsageResetPeriod: once per period boundary, the usage tallies not charged since it
  // start again from nothing (one AccountingChanged event; a controller that was down across a
  // boundary resets the tallies untouched since). Call with mu_ held exclusively.
  void ResetUsageLocked(UnixTime now, std::vector<v1::Event>* events);
  // sshare's TRESRunMins: per association (and every account above), the TRES x minutes left
  // of the time limits of its running jobs. Call with mu_ held.
  std::map<uint32_t, state::TresAmounts> TresRunMinutesLocked(UnixTime now) const;
  // Asks every node of each newly started job to run its prologs (after the start is durable).
  void PrepareStartedLocked(const std::vector<uint32_t>& started, AfterCommit* after);
  void TimersLocked(UnixTime now, std::vector<v1::Event>* events, AfterCommit* after);
  void MaybeSnapshot(bool force = false);
  void PurgeLocked(UnixTime now);
  // Drops the serialized records of the jobs state_.changed_jobs names, and clears it. Call with
  // mu_ held exclusively after changing job records.
  void ForgetChangedRecordsLocked();
  // Every kept block of wire records in `form`, up to date. Call with mu_ held (shared is
  // enough).
  std::vector<std::shared_ptr<const RecordCache::Block>> RecordBlocksLocked(
      model::JobRecordForm form = model::JobRecordForm::kFull) const;

  const ControllerConfig config_;
  store::Store* const store_;
  const Clock* const clock_;
  AgentLink* const agents_;

  mutable std::shared_mutex mu_;
  state::ClusterState state_;  // guarded by mu_
  // node -> when it was last heard from (Clock::MonotonicMs: a wall-clock step marks no node
  // down), guarded by mu_.
  std::map<std::string, int64_t> last_heard_;
  // Calls an agent has not acted on, by (job, node): when the heartbeats first showed it
  // missing (monotonic ms). Heartbeat sends the call again once it stays missing for
  // ResendAfterMs(); see ReconcileLocked.
  std::map<std::pair<uint32_t, std::string>, int64_t> missing_since_;
  // A running job's time limit counts monotonic time: job -> (the wall time its running time
  // counts from, the monotonic ms that stood for it when first seen). Not durable: after a
  // restart the wall clock anchors it again. Guarded by mu_.
  std::map<uint32_t, std::pair<UnixTime, int64_t>> run_anchors_;
  // Whether a partition restricts AllowGroups: set by Recover (partitions come only from the
  // spec's ConfigLoaded), before requests are served.
  bool group_lists_needed_ = false;
  // The wall time a running job's time limit counts from (its start, or its resume less what
  // it ran before the suspend).
  static UnixTime RunningSince(const v1::Job& job);
  // Under mu_: when a running job that ends `now` (wall clock) ended as its running time counts:
  // its start plus the monotonic time it ran, when the wall clock stepped by more than 5 s
  // meanwhile (so a step neither puts its end before its start nor changes its elapsed time);
  // `now` otherwise.
  UnixTime EndTimeLocked(const v1::Job& job, UnixTime now) const;
  // Under mu_: anchors the job's running time at the monotonic clock now.
  void AnchorRunLocked(uint32_t job_id);
  UnixTime last_wall_ = 0;    // the wall and monotonic clocks at the last timer pass, to
  int64_t last_mono_ms_ = 0;  // log a step of the wall clock; guarded by mu_
  std::map<uint32_t, std::set<std::string>> prologs_;  // job -> nodes whose prolog is running
  uint64_t events_since_snapshot_ = 0;                 // guarded by mu_
  std::atomic<uint64_t> events_applied_{0};
  UnixTime boot_time_ = 0;
  UnixTime last_purge_ = 0;           // guarded by mu_
  UnixTime last_priority_calc_ = 0;   // guarded by mu_
  UnixTime usage_reset_checked_ = 0;  // the last reset boundary looked at, guarded by mu_
  std::set<uint32_t> planned_jobs_;   // jobs with an expected start set, guarded by mu_
  UnixTime last_backfill_ = 0;        // when a pass last backfilled (bf_interval); guarded by mu_
  // Running jobs (id, epoch) that got their --signal warning; not durable: after a restart a
  // job may be warned again. Guarded by mu_.
  std::set<std::pair<uint32_t, uint64_t>> warned_;
  std::string controller_address_;  // guarded by mu_
  // Each job's record in its wire form, for listings: made when first listed, made again when
  // the job changes (ForgetChangedRecordsLocked). Used with mu_ held shared and records_mu_, or
  // with mu_ held exclusively.
  mutable std::mutex records_mu_;
  // One cache per model::JobRecordForm, in its order; a form's blocks are made when a listing
  // first asks for it.
  mutable std::array<RecordCache, 3> record_caches_{RecordCache(model::JobRecordForm::kFull),
                                                    RecordCache(model::JobRecordForm::kBrief),
                                                    RecordCache(model::JobRecordForm::kSlim)};
  // squeue listings made here (GetJobsRequest.squeue), from record_caches_' blocks.
  mutable ListingCache listings_;

  DiagStats stats_;

  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool kicked_ = false;  // guarded by loop_mu_
  bool stopping_ = false;
  std::thread loop_;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_CONTROLLER_H_
