#include "ctld/controller.h"

#include <grp.h>
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <utility>

#include "core/cycle.h"
#include "core/health.h"
#include "core/job_actions.h"
#include "core/reactions.h"
#include "core/registration.h"
#include "core/submit.h"
#include "core/timers.h"
#include "ctld/log.h"
#include "model/health_report.h"
#include "model/job_brief.h"
#include "model/job_state.h"
#include "model/node_state.h"
#include "rpc/grpc_status.h"
#include "sched/scheduler.h"
#include "sched/will_run.h"
#include "spec/show_config.h"
#include "state/admission.h"
#include "state/events.h"
#include "state/job_ids.h"
#include "state/job_update.h"
#include "state/records.h"
#include "state/step_plan.h"
#include "state/volatile_updates.h"
#include "sys/passwd.h"
#include "sys/system_time.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/hostlist.h"
#include "wire/frame.h"

namespace gantry::ctld {
namespace {

// What the controller adds to a silent node's lease before running its jobs elsewhere: the
// agent's timers and a busy host's scheduling.

// The form a listing asks its records in (slim wins over brief).
model::JobRecordForm FormOf(const v1::GetJobsRequest& request) {
  if (request.slim()) return model::JobRecordForm::kSlim;
  return request.brief() ? model::JobRecordForm::kBrief : model::JobRecordForm::kFull;
}

// What srun sends for a step the agents launch, before anything is recorded.
Status CheckStepLaunch(const v1::StepLaunch& launch) {
  if (launch.argv().empty() || launch.argv(0).empty()) {
    return InvalidArgument("launch.argv: no command to run");
  }
  if (launch.io_host().empty() || launch.io_port() == 0 || launch.io_port() > 65535) {
    return InvalidArgument("launch.io_port: " + std::to_string(launch.io_port()) +
                           " is not a port 1-65535 on a named host");
  }
  if (launch.io_key().size() < 16) {
    return InvalidArgument("launch.io_key: " + std::to_string(launch.io_key().size()) +
                           " bytes; at least 16 needed");
  }
  return Status::Ok();
}

// "host:port" (or "[v6]:port") split at its last ':'; the port is empty when there is none.
std::pair<std::string, std::string> SplitHostPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || address.find(']', colon) != std::string::npos) {
    return {address, ""};
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, address.substr(colon + 1)};
}

using model::JobBaseState;
using model::JobFlag;

constexpr uint32_t kUnlimited = 0xFFFFFFFF;
constexpr char kMarkerKind[] = "marker";
constexpr const char* kEventKind = store::kEventRecordKind;

std::string PayloadKey(uint32_t job_id) { return "payload/" + std::to_string(job_id); }

// The store key of a job's script and environment: an array's tasks share the array's.
std::string PayloadKeyOf(const v1::Job& job) {
  return PayloadKey(job.array_job_id() != 0 ? job.array_job_id() : job.job_id());
}

JobBaseState Base(const v1::Job& job) { return static_cast<JobBaseState>(job.state()); }
bool IsPending(const v1::Job& job) { return Base(job) == JobBaseState::kPending; }
bool HasFlag(const v1::Job& job, JobFlag flag) {
  return (job.state_flags() & static_cast<uint32_t>(flag)) != 0;
}

store::ArchivedJob ArchiveEntry(const v1::Job& job) {
  return store::ArchivedJob{job.job_id(),  job.submit_time(),       job.end_time(),
                            job.user_id(), job.SerializeAsString(), job.array_job_id()};
}

std::optional<uint32_t> ParseNumber(std::string_view text) {
  uint32_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

Controller::Controller(ControllerConfig config, store::Store* store, const Clock* clock,
                       AgentLink* agents)
    : config_(std::move(config)),
      store_(store),
      clock_(clock),
      agents_(agents),
      tokens_(config_.token_key, config_.slurm_user_uid, clock),
      core_config_(config_.core),
      stats_(clock->Now()) {
  core_config_.time_zone = &sys::LocalTimeZone::Get();
}

Controller::~Controller() { Stop(); }

v1::Event Controller::NewEvent() const {
  v1::Event event;
  event.set_time(clock_->Now());
  return event;
}

v1::Event Controller::RequeueEvent(const v1::Job& job) {
  return core::RequeueEvent(CoreLocked(), job);
}

core::Context Controller::CoreLocked() {
  return core::Context{state_, core_config_, memory_, clock_->Now(), clock_->MonotonicMs()};
}

void Controller::CarryOutLocked(core::Effects effects, std::vector<v1::Event>* events,
                                AfterCommit* after) {
  for (const std::string& line : effects.log) Log(line);
  if (!effects.volatile_updates.empty()) {
    state::ApplyVolatile(&state_, effects.volatile_updates);
    ForgetChangedRecordsLocked();
  }
  if (events != nullptr) {
    events->insert(events->end(), std::make_move_iterator(effects.events.begin()),
                   std::make_move_iterator(effects.events.end()));
  }
  for (const core::AgentAction& action : effects.actions) CallAgentLocked(action, after);
}

void Controller::CallAgentLocked(const core::AgentAction& action, AfterCommit* after) {
  const v1::Node* node = state_.FindNode(action.node);
  if (node == nullptr) return;
  switch (action.kind) {
    case core::AgentAction::Kind::kPrepare: {
      v1::PrepareJobRequest request;
      *request.mutable_context() = ContextLocked(*action.job, action.node_index);
      after->push_back(
          [this, name = node->name(), address = node->address(), request = std::move(request)] {
            agents_->PrepareJob(name, address, request);
          });
      return;
    }
    case core::AgentAction::Kind::kLaunchBatch: {
      // The batch script's payload is read from the store once the start is durable.
      v1::LaunchBatchRequest launch;
      *launch.mutable_context() = ContextLocked(*action.job, 0);
      launch.mutable_context()->mutable_job()->set_state_flags(action.state_flags);
      after->push_back([this, payload_key = PayloadKeyOf(*action.job), name = node->name(),
                        address = node->address(), launch = std::move(launch)]() mutable {
        Result<std::optional<std::string>> payload = store_->Get(payload_key);
        if (payload.ok() && payload->has_value()) {
          launch.mutable_payload()->ParseFromString(**payload);
        }
        agents_->LaunchBatch(name, address, std::move(launch));
      });
      return;
    }
    case core::AgentAction::Kind::kTerminate: {
      v1::TerminateJobRequest request;
      request.set_job_id(action.job->job_id());
      request.set_epoch(action.epoch);
      request.set_kill_wait_sec(action.kill_wait_sec);
      *request.mutable_context() = ContextLocked(*action.job, action.node_index);
      request.mutable_context()->set_epoch(action.epoch);
      after->push_back(
          [this, name = node->name(), address = node->address(), request = std::move(request)] {
            agents_->TerminateJob(name, address, request);
          });
      return;
    }
    case core::AgentAction::Kind::kSignal: {
      v1::SignalJobOnNodeRequest call;
      call.set_job_id(action.job->job_id());
      call.set_epoch(action.epoch);
      call.set_signal(action.signal);
      call.set_scope(action.scope);
      after->push_back([this, name = node->name(), address = node->address(), call] {
        agents_->SignalJob(name, address, call);
      });
      return;
    }
  }
}

std::string Controller::UserName(uid_t uid) const {
  return sys::LookupUserName(uid).value_or(std::to_string(uid));
}

std::string Controller::GroupName(gid_t gid) const {
  return sys::LookupGroupName(gid).value_or(std::to_string(gid));
}

state::Caller Controller::AdmissionCaller(uid_t uid, gid_t gid) const {
  state::Caller who;
  who.uid = uid;
  who.gid = gid;
  who.user_name = UserName(uid);
  who.group_name = GroupName(gid);
  who.is_operator = IsOperator(Caller{uid, gid});
  if (!group_lists_needed_) return who;
  std::vector<gid_t> groups(64);
  int count = static_cast<int>(groups.size());
  if (getgrouplist(who.user_name.c_str(), gid, groups.data(), &count) < 0 && count > 0 &&
      count <= 65536) {
    groups.resize(static_cast<size_t>(count));
    getgrouplist(who.user_name.c_str(), gid, groups.data(), &count);
  }
  groups.resize(static_cast<size_t>(std::clamp(count, 0, static_cast<int>(groups.size()))));
  for (gid_t g : groups) who.group_names.push_back(GroupName(g));
  return who;
}

Status Controller::CheckRoomForNewWork() const {
  const std::optional<uint64_t> free = store_->FreeBytes();
  if (!free || *free >= config_.store_min_free_bytes) return Status::Ok();
  return Unavailable("the state store's disk is full: it has " + std::to_string(*free >> 20) +
                     " MiB free, and new work is refused below " +
                     std::to_string(config_.store_min_free_bytes >> 20) +
                     " MiB (jobs already accepted go on)");
}

bool Controller::IsOperator(const Caller& caller) const {
  return caller.uid == 0 || caller.uid == config_.slurm_user_uid;
}

std::vector<v1::Event> Controller::OneEvent(v1::Event event) {
  std::vector<v1::Event> events;
  events.push_back(std::move(event));
  return events;
}

v1::AccountingChange Controller::DefaultAccountingLocked() const {
  v1::AccountingChange change = state::DefaultAccounting();
  // The user gantryd runs as (a local cluster started by someone other than root) administers
  // accounting like root, and may submit under account root.
  const std::string self = UserName(config_.slurm_user_uid);
  if (config_.slurm_user_uid != 0 && !self.empty() && self != "root") {
    v1::AccountingUser* user = change.add_users();
    user->set_name(self);
    user->set_default_account("root");
    user->set_admin_level(state::kAdminAdministrator);
    v1::Association a = change.associations(change.associations_size() - 1);  // root user's
    a.set_id(a.id() + 1);
    a.set_user(self);
    *change.add_associations() = std::move(a);
  }
  return change;
}

// ---- durability ------------------------------------------------------------------------------

std::unique_ptr<store::PendingWrite> Controller::CommitLocked(
    std::vector<v1::Event> events, std::vector<std::pair<std::string, std::string>> puts,
    std::vector<std::string> erases, std::vector<store::ArchivedJob> archive) {
  store::WriteBatch batch;
  batch.records.reserve(events.size());
  batch.archive = std::move(archive);
  for (const v1::Event& event : events) {
    Status applied = state::Apply(&state_, event);
    if (!applied.ok()) {
      Log("internal: event not applied (" + applied.ToString() + "): " + event.ShortDebugString());
      continue;
    }
    stats_.CountEvent(event);
    core::NoteApplied(CoreLocked(), event);
    batch.records.emplace_back(kEventKind, event.SerializeAsString());
    // An ended job goes to the archive in the same commit: sacct lists it after the controller
    // forgets it (MinJobAge).
    if (event.has_job_ended()) {
      if (const v1::Job* job = state_.FindJob(event.job_ended().job_id())) {
        batch.archive.push_back(ArchiveEntry(*job));
      }
    }
    if (interference_ != nullptr && sched::MayTakeCapacity(event)) {
      interference_->capacity = true;
    }
  }
  if (interference_ != nullptr) {
    interference_->jobs.insert(interference_->jobs.end(), state_.changed_jobs.begin(),
                               state_.changed_jobs.end());
  }
  ForgetChangedRecordsLocked();
  events_applied_ += batch.records.size();
  events_since_snapshot_ += batch.records.size();
  batch.puts = std::move(puts);
  batch.erases = std::move(erases);
  return store_->EnqueueWrite(std::move(batch));
}

Status Controller::Finish(std::unique_ptr<store::PendingWrite> pending, AfterCommit after) {
  const auto start = std::chrono::steady_clock::now();
  Result<std::vector<uint64_t>> seqs = pending->Wait();
  commit_latency_.Observe(
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                std::chrono::steady_clock::now() - start)
                                .count()));
  if (!seqs.ok()) {
    // The state in memory may now be ahead of the disk; the controller cannot go on safely.
    Log("fatal: the store failed a commit: " + seqs.status().ToString());
    if (on_fatal_) on_fatal_();
    std::_Exit(70);
  }
  for (auto& fn : after) fn();
  return Status::Ok();
}

Status Controller::Takeover(const Caller& caller, const std::string& to) const {
  if (!IsOperator(caller)) return PermissionDenied("Access/permission denied");
  if (replica_name_.empty() || !on_takeover_) {
    return FailedPrecondition("this cluster has a single controller: no backup to take over");
  }
  if (to.empty()) return InvalidArgument("takeover: no controller named");
  if (to == replica_name_) return Status::Ok();  // it leads already
  Log("takeover: handing the lead to " + to);
  return on_takeover_(to);
}

// ---- recovery and the loop -------------------------------------------------------------------

Status Controller::Recover(const v1::ConfigLoaded& nodes_and_partitions) {
  WriterLock lock(mu_);
  group_lists_needed_ = std::any_of(
      nodes_and_partitions.partitions().begin(), nodes_and_partitions.partitions().end(),
      [](const v1::Partition& p) {
        return !p.allow_groups().empty() && !text::EqualsIgnoreCase(p.allow_groups(), "ALL");
      });
  boot_time_ = clock_->Now();
  core_config_.boot_time = boot_time_;
  GANTRY_ASSIGN_OR_RETURN(pass_log_, core::PassLogWriter::Resume([this](const std::string& key) {
                            return store_->Get(key);
                          }));
  GANTRY_ASSIGN_OR_RETURN(std::optional<store::Snapshot> snapshot, store_->LatestSnapshot());
  uint64_t after = 0;
  if (snapshot) {
    Result<v1::ClusterSnapshot> message = state::DecodeSnapshot(snapshot->payload);
    if (!message.ok()) {
      return Internal("the store's snapshot at seq " + std::to_string(snapshot->seq) +
                      " is unusable (" + message.status().message() +
                      "); recovery stops rather than start from a wrong cluster");
    }
    GANTRY_ASSIGN_OR_RETURN(state_, state::FromSnapshot(*message));
    after = snapshot->seq;
  }
  core::ConfigureState(core_config_, &state_);
  uint64_t replayed = 0;
  uint64_t not_applied = 0;
  GANTRY_RETURN_IF_ERROR(store_->ReadFrom(after, [&](const store::Record& record) {
    if (record.kind != kEventKind) return Status::Ok();
    v1::Event event;
    if (!event.ParseFromString(record.payload)) {
      // A damaged log: going on would lose what the record said (a job's end, say).
      return Internal("recovery: the store's record " + std::to_string(record.seq) +
                      " does not parse as an event; recovery stops (restore the store from a "
                      "backup, or remove that record to accept losing it)");
    }
    Status applied = state::Apply(&state_, event);
    if (!applied.ok()) {
      ++not_applied;  // e.g. a record about a node the spec no longer has
      Log("recovery: record " + std::to_string(record.seq) + " not applied: " + applied.ToString());
    }
    ++replayed;
    return Status::Ok();
  }));
  if (not_applied > 0) {
    Log("recovery: WARNING: " + std::to_string(not_applied) +
        " record(s) did not apply (listed above)");
  }
  {
    MutexLock records(records_mu_);
    for (RecordCache& cache : record_caches_) cache.Clear();
  }
  state_.changed_jobs.clear();
  Log("recovered " + std::to_string(state_.jobs.size()) + " jobs (snapshot seq " +
      std::to_string(after) + ", " + std::to_string(replayed) + " events replayed); next job id " +
      std::to_string(state_.next_job_id));

  v1::Event config = NewEvent();
  *config.mutable_config_loaded() = nodes_and_partitions;
  std::vector<v1::Event> events = {config};
  if (state_.accounting.empty()) {  // a new cluster: root's account, user and QOS normal
    v1::Event accounting = NewEvent();
    *accounting.mutable_accounting_changed()->mutable_change() = DefaultAccountingLocked();
    events.push_back(std::move(accounting));
  }
  // Ended jobs go to the archive again (idempotent): a store written before the archive
  // existed gets them before the purge forgets them.
  std::vector<store::ArchivedJob> ended;
  for (const auto& [id, job] : state_.jobs) {
    if (job.end_time() > 0 && !IsPending(job) && !state::IsActiveJob(job)) {
      ended.push_back(ArchiveEntry(job));
    }
  }
  auto pending = CommitLocked(std::move(events), {}, {}, std::move(ended));
  // Every node gets a grace period of one timeout to (re)register; jobs waiting for a prolog
  // wait again for the agent to re-register and be asked once more.
  const int64_t mono = clock_->MonotonicMs();
  for (const v1::Node& node : state_.nodes) memory_.last_heard[node.name()] = mono;
  for (const auto& [id, job] : state_.jobs) {
    if (state::IsActiveJob(job) && HasFlag(job, JobFlag::kConfiguring)) {
      memory_.prologs[id] = std::set<std::string>(job.nodes().begin(), job.nodes().end());
    }
  }
  lock.unlock();
  return Finish(std::move(pending), {});
}

void Controller::Start() {
  loop_ = std::thread([this] {
    // The loop passes when kicked (a request or a report changed something), when one of the
    // core's timers is due, and at least every second.
    std::chrono::milliseconds wait(1000);
    for (;;) {
      {
        MutexLock lock(loop_mu_);
        loop_cv_.wait_for(lock, wait,
                          [this]() GANTRY_REQUIRES(loop_mu_) { return stopping_ || kicked_; });
        if (stopping_) return;
        kicked_ = false;
      }
      const auto start = std::chrono::steady_clock::now();
      const std::optional<int64_t> due = RunOnce();
      wait = std::chrono::milliseconds(std::min<int64_t>(due.value_or(1000), 1000));
      MaybeSnapshot();
      CollectListings();
      // A pass holds the writer lock: leave at least as long again to the requests, so that a
      // stream of kicks (submissions) cannot keep the scheduler running back to back.
      const auto spent = std::chrono::steady_clock::now() - start;
      MutexLock lock(loop_mu_);
      loop_cv_.wait_for(
          lock, std::max<std::chrono::steady_clock::duration>(spent, std::chrono::milliseconds(2)),
          [this]() GANTRY_REQUIRES(loop_mu_) { return stopping_; });
    }
  });
}

void Controller::Stop() {
  {
    MutexLock lock(loop_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  loop_cv_.notify_all();
  if (loop_.joinable()) loop_.join();
}

void Controller::Kick() {
  {
    MutexLock lock(loop_mu_);
    kicked_ = true;
  }
  loop_cv_.notify_one();
}

void Controller::CollectListings() {
  // What listings made once left behind is freed here, not in their requests; the heap's free
  // pages go back to the system at most every few seconds (malloc_trim holds the allocator's
  // locks while it walks the heap).
  if (listings_.Collect()) trim_wanted_ = true;
  const auto now = std::chrono::steady_clock::now();
  if (trim_wanted_ && now - last_trim_ >= std::chrono::seconds(5)) {
    malloc_trim(0);
    trim_wanted_ = false;
    last_trim_ = now;
  }
}

std::optional<int64_t> Controller::RunOnce() {
  // The pass gives way to waiting requests (sched::PassYield): every bf_yield_interval, when
  // one waits, the lock goes for at most bf_yield_sleep, while this records what they change.
  class GiveWay final : public sched::PassYield {
   public:
    GiveWay(Controller* c, WriterLock* lock)
        : c_(c), lock_(lock), last_(std::chrono::steady_clock::now()) {}
    // The pass calls these (through core::RunCycle) with the lock held.
    bool Due() override GANTRY_REQUIRES(c_->mu_) {
      const sched::SchedulerOptions& o = c_->core_config_.scheduler;
      if (o.bf_yield_interval_us == 0 || ++calls_ % 16 != 0 || c_->mu_.waiting() == 0) {
        return false;
      }
      return std::chrono::steady_clock::now() - last_ >=
             std::chrono::microseconds(o.bf_yield_interval_us);
    }
    void Yield() override GANTRY_REQUIRES(c_->mu_) {
      c_->interference_ = &interference_;
      Release();
      c_->interference_ = nullptr;
    }
    const sched::Interference& interference() const override { return interference_; }
    // Between stages (no pass under way): lets waiting requests go first.
    // Shell::Commit calls it with the lock held (through its own path to the controller, which
    // the analysis cannot tie to c_).
    void Between() GANTRY_NO_THREAD_SAFETY_ANALYSIS {
      if (c_->core_config_.scheduler.bf_yield_interval_us == 0 || c_->mu_.waiting() == 0) return;
      Release();
    }

   private:
    // Unlocks until no request waits (at most bf_yield_sleep), then locks again: held on return
    // as on entry, through `lock_`, which the analysis cannot tie to the mutex.
    void Release() GANTRY_REQUIRES(c_->mu_) GANTRY_NO_THREAD_SAFETY_ANALYSIS {
      lock_->unlock();
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::microseconds(c_->core_config_.scheduler.bf_yield_sleep_us);
      while (c_->mu_.waiting() > 0 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      lock_->lock();
      last_ = std::chrono::steady_clock::now();
    }

    Controller* c_;
    WriterLock* lock_;
    std::chrono::steady_clock::time_point last_;
    uint32_t calls_ = 0;
    sched::Interference interference_;
  };
  // The cycle's stages (core/cycle.h), each committed before the next is decided; the agents
  // are called once the last commit is durable.
  class Shell final : public core::CycleShell {
   public:
    explicit Shell(Controller* c) : c_(c) {}
    // core::RunCycle calls it with the lock held.
    void Commit(core::Stage stage, core::Effects effects) override GANTRY_REQUIRES(c_->mu_) {
      if (effects.pass) {  // sdiag: the pass's time counts its priorities and decisions
        const auto usec = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - pass_start_);
        c_->stats_.CountPass(*effects.pass, static_cast<uint64_t>(usec.count()), c_->clock_->Now());
      }
      std::vector<std::pair<std::string, std::string>> puts;
      if (effects.mark) puts = c_->pass_log_.Add(*effects.mark);
      std::vector<v1::Event> events;
      c_->CarryOutLocked(std::move(effects), &events, &after_);
      if (!events.empty() || !puts.empty()) {
        pending_.push_back(c_->CommitLocked(std::move(events), std::move(puts)));
      }
      // Between the stages before the pass, waiting requests go first (each stage is decided
      // on the state as it then is); the pass's starts and their prologs stay together.
      if (give_way != nullptr && stage != core::Stage::kSchedule &&
          stage != core::Stage::kPrologs) {
        give_way->Between();
      }
      if (stage == core::Stage::kResumes) pass_start_ = std::chrono::steady_clock::now();
    }
    // With no lock held: waits for the commits, then calls the agents.
    void Finish() {
      AfterCommit after = std::move(after_);
      if (pending_.empty()) {
        for (auto& action : after) action();
        return;
      }
      for (size_t i = 0; i + 1 < pending_.size(); ++i) (void)c_->Finish(std::move(pending_[i]), {});
      (void)c_->Finish(std::move(pending_.back()), std::move(after));
    }

    GiveWay* give_way = nullptr;

   private:
    Controller* c_;
    std::chrono::steady_clock::time_point pass_start_;
    std::vector<std::unique_ptr<store::PendingWrite>> pending_;
    AfterCommit after_;
  };
  Shell shell(this);
  WriterLock lock(mu_);
  GiveWay yield(this, &lock);
  shell.give_way = &yield;
  core::Context ctx = CoreLocked();
  ctx.yield = &yield;
  core::RunCycle(ctx, &shell);
  PurgeLocked(ctx.now);
  const std::optional<int64_t> due = core::MsUntilDue(CoreLocked());
  lock.unlock();
  shell.Finish();
  return due;
}

void Controller::set_controller_address(const std::string& address) {
  WriterLock lock(mu_);
  controller_address_ = address;
}

void Controller::SaveSnapshotNow() { MaybeSnapshot(/*force=*/true); }

void Controller::MaybeSnapshot(bool force) {
  // Shared: listings go on meanwhile; no commit can come between the state read here and the
  // marker queued below (commits hold mu_ exclusively).
  ReaderLock lock(mu_);
  if (!force && events_since_snapshot_ < config_.snapshot_every) return;
  events_since_snapshot_ = 0;
  Result<std::string> encoded = state::EncodeSnapshot(state::ToSnapshot(state_));
  if (!encoded.ok()) {
    // The log keeps everything: no snapshot is better than an empty or a cut one.
    Log("snapshot not taken: " + encoded.status().ToString());
    return;
  }
  std::string payload = std::move(encoded).value();
  store::WriteBatch marker;
  marker.records.emplace_back(kMarkerKind, "");
  std::unique_ptr<store::PendingWrite> pending = store_->EnqueueWrite(std::move(marker));
  lock.unlock();
  Result<std::vector<uint64_t>> seqs = pending->Wait();
  if (!seqs.ok() || seqs->empty()) return;
  // The marker follows every event the payload holds and nothing else: a snapshot at its seq
  // stands for exactly those.
  Status saved = store_->SaveSnapshot({seqs->front(), std::move(payload)});
  if (!saved.ok()) Log("snapshot not saved: " + saved.ToString());
  // The serialised state (tens of MB with a full queue) is freed now: give it back to the OS
  // rather than keep the controller's resident size at its peak.
  malloc_trim(0);
}

void Controller::PurgeLocked(UnixTime now) {
  // A walk over every job: every few seconds is enough (MinJobAge is minutes).
  if (config_.min_job_age_sec == 0 || now < last_purge_ + 5) return;
  last_purge_ = now;
  const UnixTime ended_before = now - static_cast<UnixTime>(config_.min_job_age_sec);
  std::vector<std::string> erases;
  std::set<uint32_t> arrays;  // arrays that lose records
  for (const auto& [id, job] : state_.jobs) {
    if (!IsPending(job) && !state::IsActiveJob(job) && !HasFlag(job, JobFlag::kCompleting) &&
        job.end_time() < ended_before) {
      if (job.array_job_id() != 0) {
        arrays.insert(job.array_job_id());
      } else {
        erases.push_back(PayloadKey(id));
      }
    }
  }
  if (!erases.empty() || !arrays.empty()) {
    state::PurgeFinishedJobs(&state_, ended_before);
    ForgetChangedRecordsLocked();
    // An array's tasks share its payload: it goes with the array's last record.
    for (uint32_t array : arrays) {
      if (!state_.arrays.contains(array)) erases.push_back(PayloadKey(array));
    }
    store::WriteBatch batch;
    batch.erases = std::move(erases);
    store_->EnqueueWrite(std::move(batch));  // best effort; a leftover payload is harmless
  }
}

// ---- job lifecycle pieces --------------------------------------------------------------------

v1::JobContext Controller::ContextLocked(const v1::Job& job, uint32_t node_index) const {
  v1::JobContext context;
  *context.mutable_job() = job;
  context.set_epoch(job.agent_epoch());
  context.set_node_index(node_index);
  context.add_extra_env("SLURM_CLUSTER_NAME=" + config_.cluster_name);
  if (!config_.conf_path.empty()) {
    context.add_extra_env("SLURM_CONF=" + config_.conf_path);
    context.add_extra_env("GANTRY_CONF=" + config_.conf_path);
  }
  if (!controller_address_.empty()) {
    const auto [host, port] = SplitHostPort(controller_address_);
    context.add_extra_env("SLURM_WORKING_CLUSTER=" + config_.cluster_name + ":" + host + ":" +
                          port + ":9728:109");
  }
  if (job.nodes_size() > 0) {
    if (const v1::Node* first = state_.FindNode(job.nodes(0))) {
      context.set_first_node_host(SplitHostPort(first->address()).first);
    }
  }
  return context;
}

void Controller::TerminateOnNodesLocked(const v1::Job& job, AfterCommit* after,
                                        uint32_t grace_sec) {
  core::Effects effects;
  core::TerminateOnNodes(CoreLocked(), job, &effects, grace_sec);
  CarryOutLocked(std::move(effects), nullptr, after);
}

void Controller::EndJobLocked(const v1::Job& job, JobBaseState end_state, int32_t exit_status,
                              const std::string& cause, std::vector<v1::Event>* events,
                              AfterCommit* after, uint32_t grace_sec) {
  core::Effects effects;
  core::EndJob(CoreLocked(), job, end_state, exit_status, cause, &effects, grace_sec);
  CarryOutLocked(std::move(effects), events, after);
}

void Controller::RequeueOrFailLocked(const v1::Job& job, const std::string& node,
                                     const std::string& why, std::vector<v1::Event>* events,
                                     AfterCommit* after) {
  core::Effects effects;
  core::RequeueOrFail(CoreLocked(), job, node, why, &effects);
  CarryOutLocked(std::move(effects), events, after);
}

// ---- commands --------------------------------------------------------------------------------

Result<v1::SubmitJobReply> Controller::Submit(const Caller& caller,
                                              const v1::SubmitJobRequest& request) {
  GANTRY_RETURN_IF_ERROR(CheckRoomForNewWork());
  const state::Caller who = AdmissionCaller(caller.uid, caller.gid);
  const state::AdmitOptions& options = config_.admit;
  if (Status size = state::CheckPayloadSize(request.payload(), options); !size.ok()) {
    Log("submission by uid " + std::to_string(caller.uid) + " refused: script of " +
        std::to_string(request.payload().script().size()) + " bytes, max_script_size " +
        std::to_string(options.max_script_bytes));
    return size;
  }

  WriterLock lock(mu_);
  const core::Context ctx = CoreLocked();
  Result<v1::Event> submitted = core::SubmitEvent(ctx, request.request(), who, options);
  if (!submitted.ok()) {
    // Slurm's text for an over-long field does not name it: the log does.
    if (const std::string field = state::FieldTooLong(request.request()); !field.empty()) {
      Log("submission by uid " + std::to_string(caller.uid) + " refused: " + field);
    }
    return submitted.status();
  }
  const uint32_t id = submitted->job_submitted().job().job_id();
  if (request.test_only()) {
    const std::optional<sched::WillRun> run =
        sched::WhenWouldItRun(state_, submitted->job_submitted().job(), ctx.now);
    if (!run) return InvalidArgument("Requested node configuration is not available");
    v1::SubmitJobReply reply;
    reply.set_job_id(id);
    reply.set_start_time(run->start_time);
    reply.set_partition(run->partition);
    for (const std::string& node : run->nodes) reply.add_nodes(node);
    reply.set_num_cpus(run->num_cpus);
    return reply;
  }
  std::vector<v1::Event> events;
  events.push_back(*std::move(submitted));
  auto pending =
      CommitLocked(std::move(events), {{PayloadKey(id), request.payload().SerializeAsString()}});
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), {}));
  Kick();
  v1::SubmitJobReply reply;
  reply.set_job_id(id);
  return reply;
}

Result<v1::SignalJobReply> Controller::Signal(const Caller& caller,
                                              const v1::SignalJobRequest& request) {
  if (request.job_ids().empty() && request.user().empty() && request.partition().empty() &&
      request.name().empty() && request.states().empty() && request.account().empty() &&
      request.qos().empty() && request.nodes().empty()) {
    return InvalidArgument("No job identification provided");
  }
  const bool op = IsOperator(caller);
  std::optional<uid_t> filter_uid;
  if (!request.user().empty()) {
    if (std::optional<uint32_t> n = ParseNumber(request.user())) {  // uid 0 is root's
      filter_uid = *n;
    } else {
      const std::optional<uint32_t> uid = sys::LookupUid(request.user());
      if (!uid) return InvalidArgument("Invalid user id: " + request.user());
      filter_uid = *uid;
    }
  }
  std::vector<model::JobStateFilter> states;
  for (const std::string& s : request.states()) {
    Result<model::JobStateFilter> parsed = model::ParseJobStateFilter(s);
    if (!parsed.ok()) return InvalidArgument("Invalid job state specified: " + s);
    states.push_back(std::move(parsed).value());
  }

  v1::SignalJobReply reply;
  WriterLock lock(mu_);
  std::vector<const v1::Job*> targets;
  auto matches = [&](const v1::Job& job) {
    if (filter_uid && job.user_id() != *filter_uid) return false;
    if (!request.partition().empty() && job.partition() != request.partition()) return false;
    if (!request.name().empty() && job.request().name() != request.name()) return false;
    if (!request.account().empty() && job.request().account() != request.account()) return false;
    if (!request.qos().empty() && job.request().qos() != request.qos()) return false;
    if (!request.nodes().empty() &&
        std::none_of(job.nodes().begin(), job.nodes().end(), [&](const std::string& n) {
          return std::find(request.nodes().begin(), request.nodes().end(), n) !=
                 request.nodes().end();
        })) {
      return false;
    }
    if (!states.empty()) {
      model::JobState st;
      st.base = Base(job);
      st.flags = job.state_flags();
      bool any = false;
      for (const model::JobStateFilter& f : states) any = any || f.all || f.Matches(st);
      if (!any) return false;
    }
    return true;
  };
  // Tasks still pending in an array's record that a cancel names: array record -> task ids.
  std::map<uint32_t, std::set<uint32_t>> pending_tasks;
  std::set<uint32_t> seen;
  if (request.job_ids().empty()) {
    for (const auto& [id, job] : state_.jobs) {
      if ((IsPending(job) || state::IsActiveJob(job)) && matches(job) &&
          (op || job.user_id() == caller.uid)) {
        targets.push_back(&job);
      }
    }
  } else {
    for (const std::string& text : request.job_ids()) {
      auto fail = [&](std::string message, int code) {
        v1::JobError* error = reply.add_errors();
        error->set_job_id(text);
        error->set_message(std::move(message));
        error->set_code(code);
      };
      Result<std::vector<state::JobTarget>> resolved = state::ResolveJobId(state_, text);
      if (!resolved.ok()) {
        fail(resolved.status().message(), 5);
        continue;
      }
      // A whole array skips its finished records quietly; one finished job is an error.
      const bool several = resolved->size() > 1;
      for (const state::JobTarget& target : *resolved) {
        const v1::Job* job = target.job;
        if (!op && job->user_id() != caller.uid) {
          fail("Access/permission denied", 7);
          break;
        }
        if (!matches(*job)) continue;
        if (!IsPending(*job) && !state::IsActiveJob(*job)) {
          if (!several) fail("Job/step already completing or completed", 9);
          continue;
        }
        if (target.pending_task) {
          if (request.signal() != 0 && request.signal() != SIGKILL) {
            fail("Job is pending execution", 9);
            continue;
          }
          pending_tasks[job->job_id()].insert(*target.pending_task);
          continue;
        }
        if (seen.insert(job->job_id()).second) targets.push_back(job);
      }
    }
  }
  if (request.dry_run()) {
    for (const auto& [id, tasks] : pending_tasks) {
      if (!seen.contains(id)) reply.add_signalled(id);
    }
    for (const v1::Job* job : targets) reply.add_signalled(job->job_id());
    return reply;
  }
  // Cancelling some of an array record's pending tasks drops them from it; all of them cancels
  // the record.
  std::vector<v1::Event> events;
  for (auto& [id, tasks] : pending_tasks) {
    if (seen.contains(id)) continue;
    const v1::Job* job = state_.FindJob(id);
    v1::Job updated = *job;
    updated.clear_array_pending_tasks();
    for (uint32_t task : job->array_pending_tasks()) {
      if (!tasks.contains(task)) updated.add_array_pending_tasks(task);
    }
    if (updated.array_pending_tasks_size() == 0) {
      targets.push_back(job);
      continue;
    }
    v1::Event event = NewEvent();
    event.mutable_job_updated()->set_job_id(id);
    *event.mutable_job_updated()->mutable_job() = std::move(updated);
    events.push_back(std::move(event));
    reply.add_signalled(id);
  }

  AfterCommit after;
  const int sig = request.signal();
  for (const v1::Job* job : targets) {
    const bool cancel = sig == 0 || (sig == SIGKILL && !request.batch_only());
    if (cancel) {
      EndJobLocked(*job, JobBaseState::kCancelled, 0, "cancelled by " + UserName(caller.uid),
                   &events, &after);
      events.back().mutable_job_ended()->set_cancelled_by_uid(caller.uid);
      reply.add_signalled(job->job_id());
      continue;
    }
    if (IsPending(*job)) {
      v1::JobError* error = reply.add_errors();
      error->set_job_id(std::to_string(job->job_id()));
      error->set_message("Job is pending execution");
      error->set_code(9);
      continue;
    }
    // Slurm signals only running jobs: a suspended one takes KILL (above) and nothing else, so
    // that no CONT undoes an operator's or a preemptor's suspend behind the controller's back.
    if (Base(*job) == JobBaseState::kSuspended) {
      v1::JobError* error = reply.add_errors();
      error->set_job_id(std::to_string(job->job_id()));
      error->set_message("Job can not be altered now, try again later");
      error->set_code(9);
      continue;
    }
    // scancel -s reaches the steps only; -b the batch shell; -f every process (Slurm's rule).
    SignalOnNodesLocked(*job, sig,
                        request.batch_only() ? v1::SIGNAL_BATCH
                        : request.full()     ? v1::SIGNAL_WHOLE_JOB
                                             : v1::SIGNAL_STEPS,
                        &after);
    reply.add_signalled(job->job_id());
  }
  auto pending = CommitLocked(std::move(events));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), std::move(after)));
  Kick();
  return reply;
}

Result<v1::UpdateJobReply> Controller::UpdateJob(const Caller& caller,
                                                 const v1::UpdateJobRequest& request) {
  const std::string& action = request.action();
  const bool suspend_op = action == "suspend" || action == "resume";
  if (action != "hold" && action != "uhold" && action != "release" && action != "requeue" &&
      action != "requeuehold" && action != "update" && action != "complete" && !suspend_op) {
    return InvalidArgument("Unsupported job update: " + action);
  }
  v1::UpdateJobReply reply;
  WriterLock lock(mu_);
  std::vector<v1::Event> events;
  std::vector<std::unique_ptr<store::PendingWrite>> commits;
  AfterCommit after;
  auto report = [&reply](const std::string& text, const JobRefusal& refusal) {
    v1::JobError* error = reply.add_errors();
    error->set_job_id(text);
    error->set_message(refusal.message);
    error->set_code(refusal.code);
  };
  for (const std::string& text : request.job_ids()) {
    std::optional<JobRefusal> refused;
    if (suspend_op) {
      // Slurm's suspend/resume read the id themselves (and answer an unknown one differently).
      refused = SuspendOneJobLocked(caller, action == "suspend", text, &events, &after);
      if (refused) report(text, *refused);
      continue;
    }
    Result<std::vector<state::JobTarget>> resolved = state::ResolveJobId(state_, text);
    if (!resolved.ok()) refused = JobRefusal{resolved.status().message(), 5};
    const std::vector<state::JobTarget> targets =
        resolved.ok() ? std::move(resolved).value() : std::vector<state::JobTarget>{};
    // A whole array reports a refusal only when no record of it could be changed.
    bool changed = false;
    for (const state::JobTarget& target : targets) {
      const v1::Job* job = target.job;
      if (target.pending_task) {
        // The task leaves the array's record first, in its own commit after what this request
        // changed so far (a JobUpdated of the record built before the split must not undo it).
        if (!IsOperator(caller) && job->user_id() != caller.uid) {
          refused = NotTheirs(request.action());
          continue;
        }
        const uint32_t new_id =
            job->array_pending_tasks_size() > 1 ? state_.next_job_id : job->job_id();
        v1::Event split = NewEvent();
        split.mutable_job_array_split()->set_job_id(job->job_id());
        split.mutable_job_array_split()->set_task_id(*target.pending_task);
        split.mutable_job_array_split()->set_new_job_id(new_id);
        if (!events.empty()) {
          commits.push_back(CommitLocked(std::move(events)));
          events.clear();
        }
        std::vector<v1::Event> one;
        one.push_back(std::move(split));
        commits.push_back(CommitLocked(std::move(one)));
        job = state_.FindJob(new_id);
        if (job == nullptr) continue;
      }
      std::optional<JobRefusal> r = UpdateOneJobLocked(caller, request, *job, &events, &after);
      if (r) {
        if (!refused) refused = std::move(r);
      } else {
        changed = true;
      }
    }
    if (refused && !changed) report(text, *refused);
  }
  commits.push_back(CommitLocked(std::move(events)));
  lock.unlock();
  for (size_t i = 0; i + 1 < commits.size(); ++i) {
    GANTRY_RETURN_IF_ERROR(Finish(std::move(commits[i]), {}));
  }
  GANTRY_RETURN_IF_ERROR(Finish(std::move(commits.back()), std::move(after)));
  Kick();
  return reply;
}

Result<v1::GetJobScriptReply> Controller::GetJobScript(
    const Caller& caller, const v1::GetJobScriptRequest& request) const {
  std::string payload_key;
  {
    ReaderLock lock(mu_);
    const v1::Job* job = state_.FindJob(request.job_id());
    if (job == nullptr) return NotFound("Invalid job id specified");
    // As slurmctld: anyone else is told the user id is wrong, and learns nothing more.
    if (!IsOperator(caller) && job->user_id() != caller.uid)
      return PermissionDenied("Invalid user id");
    if (job->request().allocation_only()) return FailedPrecondition("Job script not specified");
    payload_key = PayloadKeyOf(*job);
  }
  GANTRY_ASSIGN_OR_RETURN(std::optional<std::string> bytes, store_->Get(payload_key));
  v1::JobPayload payload;
  if (!bytes || !payload.ParseFromString(*bytes)) {
    return FailedPrecondition("Job script not specified");
  }
  v1::GetJobScriptReply reply;
  reply.set_script(std::move(*payload.mutable_script()));
  return reply;
}

Result<v1::JobStepReply> Controller::JobStep(const Caller& caller,
                                             const v1::JobStepRequest& request) {
  WriterLock lock(mu_);
  const v1::Job* job = state_.FindJob(request.job_id());
  if (job == nullptr) return InvalidArgument("Invalid job id specified");
  if (!IsOperator(caller) && job->user_id() != caller.uid) {
    return PermissionDenied("Access/permission denied");
  }
  const UnixTime now = clock_->Now();
  v1::JobStep step;
  AfterCommit after;
  if (!request.end()) {
    if (Base(*job) != JobBaseState::kRunning) {
      return FailedPrecondition("Job is not running: step cannot be created");
    }
    GANTRY_RETURN_IF_ERROR(CheckRoomForNewWork());
    if (static_cast<uint64_t>(job->steps_size()) >= config_.admit.max_step_count) {
      return ResourceExhausted("Step limit reached for this job");  // MaxStepCount
    }
    GANTRY_RETURN_IF_ERROR(state::CheckStepName(request.name()));
    if (request.has_launch()) {
      GANTRY_RETURN_IF_ERROR(CheckStepLaunch(request.launch()));
      GANTRY_ASSIGN_OR_RETURN(state::StepPlacement placement, state::PlaceStep(*job, request));
      step = std::move(placement.step);
      step.set_step_id(static_cast<uint32_t>(job->steps_size()));
      LaunchStepLocked(*job, step, placement, request.launch(), &after);
    } else {
      step.set_node(request.node());
      step.set_num_tasks(std::max<uint32_t>(request.num_tasks(), 1));
      step.set_num_cpus(job->num_cpus() / static_cast<uint32_t>(std::max(job->nodes_size(), 1)));
    }
    step.set_step_id(static_cast<uint32_t>(job->steps_size()));
    step.set_name(request.name());
    step.set_start_time(now);
    step.set_exit_status(-1);
    step.set_state(static_cast<uint32_t>(JobBaseState::kRunning));
  } else {
    if (request.step_id() >= static_cast<uint32_t>(job->steps_size())) {
      return InvalidArgument("Invalid job step id " + std::to_string(request.step_id()));
    }
    step = job->steps(static_cast<int>(request.step_id()));
    if (step.end_time() != 0) {  // ended already (with the job): keep that end
      v1::JobStepReply reply;
      reply.set_step_id(step.step_id());
      return reply;
    }
    const int status = request.exit_status();
    step.set_end_time(now);
    step.set_exit_status(status);
    if (request.has_usage()) *step.mutable_usage() = request.usage();
    const bool signaled = WIFSIGNALED(status);
    step.set_state(static_cast<uint32_t>(status == 0 ? JobBaseState::kCompleted
                                         : signaled  ? JobBaseState::kCancelled
                                                     : JobBaseState::kFailed));
  }
  v1::Event event = NewEvent();
  event.mutable_job_step_changed()->set_job_id(job->job_id());
  *event.mutable_job_step_changed()->mutable_step() = step;
  std::vector<v1::Event> events;
  events.push_back(std::move(event));
  auto pending = CommitLocked(std::move(events));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), std::move(after)));
  v1::JobStepReply reply;
  reply.set_step_id(step.step_id());
  reply.set_acct_gather_frequency_sec(config_.acct_gather_frequency_sec);
  if (request.has_launch()) *reply.mutable_step() = std::move(step);
  return reply;
}

void Controller::LaunchStepLocked(const v1::Job& job, const v1::JobStep& step,
                                  const state::StepPlacement& placement,
                                  const v1::StepLaunch& launch, AfterCommit* after) const {
  for (int i = 0; i < step.nodes_size(); ++i) {
    const v1::Node* node = state_.FindNode(step.nodes(i));
    if (node == nullptr) continue;
    v1::LaunchTasksRequest request;
    *request.mutable_context() = ContextLocked(job, placement.job_node_index[i]);
    *request.mutable_step() = step;
    *request.mutable_launch() = launch;
    request.set_step_node_index(static_cast<uint32_t>(i));
    for (uint32_t rank : placement.ranks[i]) request.add_task_ids(rank);
    after->push_back(
        [this, name = node->name(), address = node->address(), request = std::move(request)] {
          agents_->LaunchTasks(name, address, request);
        });
  }
}

Controller::JobRefusal Controller::NotTheirs(const std::string& action) {
  if (action == "requeue" || action == "requeuehold" || action == "complete") {
    return {"Access/permission denied", 7};
  }
  return {"Invalid user id", 7};  // slurmctld's update_job: ESLURM_USER_ID_MISSING
}

std::optional<Controller::JobRefusal> Controller::UpdateOneJobLocked(
    const Caller& caller, const v1::UpdateJobRequest& request, const v1::Job& job,
    std::vector<v1::Event>* events, AfterCommit* after) {
  const std::string& action = request.action();
  const bool op = IsOperator(caller);
  const uint32_t id = job.job_id();
  if (action == "update") {
    state::JobUpdateContext context;
    context.operator_caller = op;
    context.caller_owns_job = job.user_id() == caller.uid;
    context.now = clock_->Now();
    context.time_zone = &sys::LocalTimeZone::Get();
    const std::map<std::string, std::string> fields(request.fields().begin(),
                                                    request.fields().end());
    Result<v1::Job> updated = state::UpdateJobFields(state_, job, fields, context);
    if (updated.ok()) {
      // A new partition, account or QOS must admit the job as its user submitting it would.
      updated = state::ReadmitUpdatedJob(state_, job, *updated,
                                         AdmissionCaller(job.user_id(), job.group_id()),
                                         context.now, config_.admit);
    }
    if (!updated.ok()) {  // JobError codes are gRPC's
      return JobRefusal{updated.status().message(),
                        static_cast<int>(rpc::ToGrpcStatus(updated.status()).error_code())};
    }
    v1::Event event = NewEvent();
    event.mutable_job_updated()->set_job_id(id);
    *event.mutable_job_updated()->mutable_job() = std::move(updated).value();
    events->push_back(std::move(event));
    return std::nullopt;
  }
  if (!op && job.user_id() != caller.uid) return NotTheirs(action);
  if (action == "complete") {  // salloc's (or srun's own) allocation is released
    if (!job.request().allocation_only()) {
      return JobRefusal{"Only an allocation without a batch script (salloc) can be completed", 2};
    }
    if (!state::IsActiveJob(job)) return JobRefusal{"Job/step already completing or completed", 11};
    const int32_t status = request.exit_status();
    EndJobLocked(job, status == 0 ? JobBaseState::kCompleted : JobBaseState::kFailed, status, "",
                 events, after);
    return std::nullopt;
  }
  if (action == "requeue" || action == "requeuehold") {
    if (IsPending(job)) return JobRefusal{"Job is pending execution", 9};
    const bool hold = action == "requeuehold";
    v1::Event event = RequeueEvent(job);
    v1::JobRequeued* requeued = event.mutable_job_requeued();
    requeued->set_hold(hold);
    requeued->set_reason(hold ? "job requeued in held state" : "None");
    events->push_back(std::move(event));
    if (state::IsActiveJob(job)) {  // its processes end on every node, with the epilog
      memory_.prologs.erase(id);
      TerminateOnNodesLocked(job, after);
    }
    return std::nullopt;
  }
  // hold, uhold, release
  if (!IsPending(job)) return JobRefusal{"Job is no longer pending execution", 9};
  const bool held = job.priority() == 0;
  if (action == "release" && held && job.held_by_admin() && !op) {
    return JobRefusal{"Access/permission denied", 7};
  }
  v1::Event event = NewEvent();
  v1::JobHoldChanged* change = event.mutable_job_hold_changed();
  change->set_job_id(id);
  change->set_held(action != "release");
  change->set_by_admin(action == "hold" && op);
  events->push_back(std::move(event));
  return std::nullopt;
}

void Controller::VisitLiveJobsLocked(const v1::GetJobsRequest& request,
                                     const std::function<void(const v1::Job&)>& fn) const {
  const auto& users = request.user_ids();
  auto wanted = [&](const v1::Job& job) {
    return users.empty() || std::find(users.begin(), users.end(), job.user_id()) != users.end();
  };
  if (request.job_ids().empty()) {
    for (const auto& [id, job] : state_.jobs) {
      if (wanted(job)) fn(job);
    }
    return;
  }
  std::set<uint32_t> ids;  // an array's id names all its records
  for (uint32_t id : request.job_ids()) {
    const auto array = state_.arrays.find(id);
    if (array != state_.arrays.end()) {
      ids.insert(array->second.begin(), array->second.end());
    } else {
      ids.insert(id);
    }
  }
  for (uint32_t id : ids) {
    const v1::Job* job = state_.FindJob(id);
    if (job != nullptr && wanted(*job)) fn(*job);
  }
}

Result<std::shared_ptr<const ListingCache::Listing>> Controller::SqueueListing(
    const v1::GetJobsRequest& request, UnixTime* now) const {
  if (!request.job_ids().empty() || !request.user_ids().empty() || request.shards() > 1 ||
      request.history()) {
    return InvalidArgument("squeue: not with job_ids, user_ids, shards or history");
  }
  GANTRY_ASSIGN_OR_RETURN(const model::JobRecordForm form, ListingCache::FormOf(request.squeue()));
  std::vector<std::shared_ptr<const RecordCache::Block>> blocks;
  {
    ReaderLock lock(mu_);
    *now = clock_->Now();
    blocks = RecordBlocksLocked(form);
  }
  return listings_.Make(request.squeue(), blocks, *now, config_.cluster_name);
}

Status Controller::CheckShard(const v1::GetJobsRequest& request) {
  if (request.shards() > 1 && request.shard() >= request.shards()) {
    return InvalidArgument("GetJobsRequest.shard " + std::to_string(request.shard()) +
                           ": must be below shards (" + std::to_string(request.shards()) + ")");
  }
  return Status::Ok();
}

Status Controller::GetJobs(const v1::GetJobsRequest& request, v1::GetJobsReply* reply) const {
  GANTRY_RETURN_IF_ERROR(CheckShard(request));
  if (request.has_squeue()) {
    UnixTime now = 0;
    GANTRY_ASSIGN_OR_RETURN(const std::shared_ptr<const ListingCache::Listing> listing,
                            SqueueListing(request, &now));
    reply->set_now(now);
    reply->set_jobs_at_most(listing->lines);
    if (!reply->MergeFromString(listing->fields.Flatten())) {
      return Internal("squeue listing: bad lines");
    }
    return Status::Ok();
  }
  if (request.history()) return GetJobHistory(request, reply);
  auto add = [&](const v1::Job& job) {
    model::CopyJobInForm(job, FormOf(request), reply->add_jobs());
  };
  ReaderLock lock(mu_);
  reply->set_now(clock_->Now());
  if (request.shards() > 1 && request.job_ids().empty()) {  // the jobs of the shard's blocks
    reply->set_shards(request.shards());
    const auto& users = request.user_ids();
    for (const auto& block : ShardOf(request, RecordBlocksLocked())) {
      for (const RecordCache::Entry& e : block->entries) {
        if (!users.empty() && std::find(users.begin(), users.end(), e.user_id) == users.end()) {
          continue;
        }
        if (const v1::Job* job = state_.FindJob(e.job_id)) add(*job);
      }
    }
    return Status::Ok();
  }
  if (request.job_ids().empty()) {
    reply->mutable_jobs()->Reserve(static_cast<int>(state_.jobs.size()));
  }
  VisitLiveJobsLocked(request, add);
  return Status::Ok();
}

Status Controller::GetJobsSerialized(const v1::GetJobsRequest& request, wire::Slices* out) const {
  GANTRY_RETURN_IF_ERROR(CheckShard(request));
  // GetJobsReply's wire form: the head (now, jobs_at_most) first, so that a reader can handle
  // each job as it arrives (ControllerClient::ListJobs), then field 1 (jobs) once per job.
  *out = wire::Slices();
  std::string head;
  auto put_varint = [&head](uint64_t v) {
    for (; v >= 0x80; v >>= 7) head.push_back(static_cast<char>(v | 0x80));
    head.push_back(static_cast<char>(v));
  };
  auto put_head = [&](UnixTime now, size_t jobs_at_most, uint32_t shards = 0) {
    head.push_back(static_cast<char>(0x10));  // field 2 (now), varint
    put_varint(static_cast<uint64_t>(now));
    head.push_back(static_cast<char>(0x18));  // field 3 (jobs_at_most), varint
    put_varint(jobs_at_most);
    if (shards > 1) {
      head.push_back(static_cast<char>(0x20));  // field 4 (shards), varint
      put_varint(shards);
    }
  };
  if (request.has_squeue()) {
    UnixTime now = 0;
    GANTRY_ASSIGN_OR_RETURN(const std::shared_ptr<const ListingCache::Listing> listing,
                            SqueueListing(request, &now));
    put_head(now, listing->lines);
    out->Append(std::move(head));
    out->parts.insert(out->parts.end(), listing->fields.parts.begin(), listing->fields.parts.end());
    out->owners.push_back(listing);
    return Status::Ok();
  }
  if (request.history()) {
    UnixTime now = 0;
    std::vector<std::pair<uint32_t, std::string>> records;
    GANTRY_RETURN_IF_ERROR(HistoryRecords(request, &now, &records));
    put_head(now, records.size());
    for (const auto& [id, bytes] : records) {
      head.push_back(static_cast<char>(0x0A));  // field 1, length-delimited
      put_varint(bytes.size());
      head.append(bytes);
    }
    out->Append(std::move(head));
    return Status::Ok();
  }
  ReaderLock lock(mu_);
  if (!request.job_ids().empty()) {  // a few named jobs: written now
    std::string jobs;
    size_t count = 0;
    VisitLiveJobsLocked(request, [&](const v1::Job& job) {
      RecordCache::AppendJobField(job, FormOf(request), &jobs);
      ++count;
    });
    put_head(clock_->Now(), count);
    out->Append(std::move(head));
    out->Append(std::move(jobs));
    return Status::Ok();
  }
  // A listing: slices of the kept blocks, every job's or those of the users asked for.
  const std::vector<std::shared_ptr<const RecordCache::Block>> blocks =
      ShardOf(request, RecordBlocksLocked(FormOf(request)));
  const auto& users = request.user_ids();
  std::vector<std::string_view> parts;
  size_t count = 0;
  for (const auto& block : blocks) {
    if (users.empty()) {
      parts.push_back(block->bytes);
      count += block->entries.size();
      continue;
    }
    for (const RecordCache::Entry& e : block->entries) {
      if (std::find(users.begin(), users.end(), e.user_id) == users.end()) continue;
      const std::string_view field = block->Field(e);
      if (!parts.empty() && parts.back().data() + parts.back().size() == field.data()) {
        parts.back() = std::string_view(parts.back().data(), parts.back().size() + field.size());
      } else {
        parts.push_back(field);
      }
      ++count;
    }
  }
  put_head(clock_->Now(), count, request.shards());
  lock.unlock();
  out->Append(std::move(head));
  out->parts.insert(out->parts.end(), parts.begin(), parts.end());
  out->owners.insert(out->owners.end(), blocks.begin(), blocks.end());
  return Status::Ok();
}

std::vector<std::shared_ptr<const RecordCache::Block>> Controller::ShardOf(
    const v1::GetJobsRequest& request, std::vector<std::shared_ptr<const RecordCache::Block>> all) {
  if (request.shards() <= 1) return all;
  // 64-bit: neither shard + 1 nor n * shard may wrap (CheckShard has refused shard >= shards).
  const uint64_t n = all.size();
  const uint64_t shards = request.shards();
  const uint64_t shard = std::min<uint64_t>(request.shard(), shards - 1);
  const uint64_t begin = n * shard / shards;
  const uint64_t end = n * (shard + 1) / shards;
  return {all.begin() + static_cast<ptrdiff_t>(begin), all.begin() + static_cast<ptrdiff_t>(end)};
}

void Controller::ForgetChangedRecordsLocked() {
  MutexLock records(records_mu_);  // never waits: readers take it only with mu_ shared
  for (uint32_t id : state_.changed_jobs) {
    for (RecordCache& cache : record_caches_) cache.Forget(id);
  }
  state_.changed_jobs.clear();
}

std::vector<std::shared_ptr<const RecordCache::Block>> Controller::RecordBlocksLocked(
    model::JobRecordForm form) const {
  MutexLock records(records_mu_);
  return record_caches_[static_cast<size_t>(form)].Blocks(state_.jobs, state_.changed_jobs);
}

Status Controller::HistoryRecords(const v1::GetJobsRequest& request, UnixTime* now,
                                  std::vector<std::pair<uint32_t, std::string>>* out) const {
  out->clear();
  if (config_.admit.enforce_nojobs) {  // AccountingStorageEnforce=nojobs: no job is recorded
    *now = clock_->Now();
    return Status::Ok();
  }
  store::ArchiveQuery query;
  query.job_ids.assign(request.job_ids().begin(), request.job_ids().end());
  query.user_ids.assign(request.user_ids().begin(), request.user_ids().end());
  if (request.window_start() != 0) query.ended_at_or_after = request.window_start();
  if (request.window_end() != 0) query.submitted_at_or_before = request.window_end();
  auto named = [&](uint32_t id) {
    return std::find(query.job_ids.begin(), query.job_ids.end(), id) != query.job_ids.end();
  };
  auto wanted = [&](const v1::Job& job) {
    return (query.job_ids.empty() || named(job.job_id()) ||
            (job.array_job_id() != 0 && named(job.array_job_id()))) &&
           (query.user_ids.empty() || std::find(query.user_ids.begin(), query.user_ids.end(),
                                                job.user_id()) != query.user_ids.end()) &&
           job.submit_time() <= query.submitted_at_or_before &&
           (job.end_time() == 0 || job.end_time() >= query.ended_at_or_after);
  };
  auto eligible = [&](const v1::Job& job) {
    return !request.eligible_in_window() ||
           (job.eligible_time() > 0 && job.eligible_time() <= query.submitted_at_or_before);
  };
  std::vector<uint32_t> live;  // ascending (the state's map order)
  std::vector<std::pair<uint32_t, std::string>> current;
  {
    ReaderLock lock(mu_);
    *now = clock_->Now();
    live.reserve(state_.jobs.size());
    // Only the selected jobs are serialized: a history request usually selects few of the live
    // jobs, and making every record's wire form for it would keep a copy of the queue.
    for (const auto& [id, job] : state_.jobs) {
      live.push_back(id);
      if (wanted(job) && eligible(job)) current.emplace_back(id, job.SerializeAsString());
    }
  }
  // Jobs still held in memory are newer than their archived copy.
  std::vector<std::pair<uint32_t, std::string>> archived;
  GANTRY_RETURN_IF_ERROR(store_->ScanArchive(query, [&](const store::ArchivedJob& job) {
    if (!std::binary_search(live.begin(), live.end(), job.job_id)) {
      archived.emplace_back(job.job_id, job.record);
    }
    return Status::Ok();
  }));
  // Named ids come back per id (an array's tasks after it): put them in id order for the merge.
  auto by_id = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(archived.begin(), archived.end(), by_id)) {
    std::sort(archived.begin(), archived.end(), by_id);
  }
  out->reserve(current.size() + archived.size());
  std::merge(std::make_move_iterator(current.begin()), std::make_move_iterator(current.end()),
             std::make_move_iterator(archived.begin()), std::make_move_iterator(archived.end()),
             std::back_inserter(*out), by_id);
  if (config_.admit.enforce_nosteps) {  // no step is recorded: no batch or srun step lines
    for (auto& [id, bytes] : *out) {
      v1::Job job;
      if (!job.ParseFromString(bytes)) continue;
      job.clear_steps();
      job.set_batch_flag(false);
      bytes = job.SerializeAsString();
    }
  }
  return Status::Ok();
}

Status Controller::GetJobHistory(const v1::GetJobsRequest& request, v1::GetJobsReply* reply) const {
  UnixTime now = 0;
  std::vector<std::pair<uint32_t, std::string>> records;
  GANTRY_RETURN_IF_ERROR(HistoryRecords(request, &now, &records));
  reply->set_now(now);
  for (const auto& [id, bytes] : records) {
    if (!reply->add_jobs()->ParseFromString(bytes)) {
      Log("archive: the record of job " + std::to_string(id) + " does not parse");
      reply->mutable_jobs()->RemoveLast();
    }
  }
  return Status::Ok();
}

void Controller::GetNodes(const v1::GetNodesRequest& request, v1::GetNodesReply* reply) const {
  ReaderLock lock(mu_);
  reply->set_now(clock_->Now());
  std::set<std::string> wanted(request.names().begin(), request.names().end());
  for (const v1::Node& node : state_.nodes) {
    if (!wanted.empty() && !wanted.contains(node.name())) continue;
    *reply->add_nodes() = node;
    if (!request.with_health()) continue;
    if (auto health = memory_.health.find(node.name()); health != memory_.health.end()) {
      *reply->add_health() = health->second;
    }
  }
  for (const v1::Partition& partition : state_.partitions) *reply->add_partitions() = partition;
}

Status Controller::UpdateNode(const Caller& caller, const v1::UpdateNodeRequest& request) {
  if (!IsOperator(caller)) return PermissionDenied("Access/permission denied");
  Result<model::NodeUpdateState> op = model::ParseNodeUpdateState(request.state());
  if (!op.ok()) return InvalidArgument("Invalid node state specified");
  switch (*op) {
    case model::NodeUpdateState::kDrain:
    case model::NodeUpdateState::kResume:
    case model::NodeUpdateState::kUndrain:
    case model::NodeUpdateState::kDown:
    case model::NodeUpdateState::kIdle:
    case model::NodeUpdateState::kFail:
      break;
    default:
      return InvalidArgument("Invalid node state specified");
  }
  if (model::NodeUpdateNeedsReason(*op) && request.reason().empty()) {
    return InvalidArgument(
        "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  }
  Result<std::vector<std::string>> names = text::ExpandHostlist(request.names());
  if (!names.ok() || names->empty()) return InvalidArgument("Invalid node name specified");

  WriterLock lock(mu_);
  for (const std::string& name : *names) {
    if (state_.FindNode(name) == nullptr) return NotFound("Invalid node name specified");
  }
  std::vector<v1::Event> events;
  AfterCommit after;
  v1::Event event = NewEvent();
  v1::NodeStateChanged* change = event.mutable_node_state_changed();
  for (const std::string& name : *names) change->add_nodes(name);
  change->set_op(std::string(model::NodeUpdateStateName(*op)));
  change->set_reason(request.reason());
  change->set_reason_uid(caller.uid);
  events.push_back(std::move(event));
  if (*op == model::NodeUpdateState::kDown) {
    // Jobs on a node set DOWN lose it, as on a failure.
    for (const std::string& name : *names) {
      for (uint32_t job_id : state_.FindNode(name)->job_ids()) {
        const v1::Job* job = state_.FindJob(job_id);
        if (job != nullptr && state::IsActiveJob(*job)) {
          RequeueOrFailLocked(*job, name, "node " + name + " set DOWN", &events, &after);
        }
      }
    }
  }
  auto pending = CommitLocked(std::move(events));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), std::move(after)));
  Kick();
  return Status::Ok();
}

void Controller::GetConfig(v1::GetConfigReply* reply) const {
  reply->set_cluster_name(config_.cluster_name);
  reply->set_now(clock_->Now());
  reply->set_boot_time(boot_time_);
  spec::ShowConfigInput input = config_.show_config;
  const TimeZone& tz = sys::LocalTimeZone::Get();
  input.boot_time = text::FormatIsoTime(boot_time_, tz);
  if (!config_.conf_path.empty()) input.slurm_conf = config_.conf_path;
  {
    ReaderLock lock(mu_);
    input.next_job_id = state_.next_job_id;
  }
  for (auto& [key, value] : spec::ShowConfigEntries(input)) {
    v1::ConfigEntry* entry = reply->add_entries();
    entry->set_key(std::move(key));
    entry->set_value(std::move(value));
  }
}

// ---- node agents -----------------------------------------------------------------------------

Result<v1::RegisterReply> Controller::Register(const Caller& caller,
                                               const v1::RegisterRequest& request) {
  if (!IsOperator(caller)) return PermissionDenied("only root or the cluster's user may register");
  WriterLock lock(mu_);
  Result<core::Registration> registration = core::OnRegister(CoreLocked(), request);
  if (!registration.ok()) return registration.status();
  std::vector<v1::Event> events;
  AfterCommit after;
  CarryOutLocked(std::move(registration->effects), &events, &after);
  auto pending = CommitLocked(std::move(events));
  CarryOutLocked(core::AfterRegister(CoreLocked(), request), nullptr, &after);
  // The health checks the agent ran before registering: a failed run drains the node now,
  // before the scheduler may place a job on it.
  std::unique_ptr<store::PendingWrite> health_pending;
  if (request.has_health()) {
    v1::HealthReport health = request.health();
    health.set_node(request.node());
    Result<core::Effects> effects = core::OnHealthReport(CoreLocked(), health);
    if (effects.ok()) {
      NoteHealthLocked(health);
      std::vector<v1::Event> health_events;
      CarryOutLocked(*std::move(effects), &health_events, &after);
      if (!health_events.empty()) health_pending = CommitLocked(std::move(health_events));
    }
  }

  const v1::Node* updated = state_.FindNode(request.node());
  v1::RegisterReply reply;
  for (uint32_t id : registration->stale_job_ids) reply.add_stale_job_ids(id);
  reply.set_cluster_name(config_.cluster_name);
  reply.set_cpus(updated->cpus());
  reply.set_real_memory_mb(updated->real_memory_mb());
  reply.set_gres(updated->gres());
  for (const std::string& s : config_.prolog) reply.add_prolog(s);
  for (const std::string& s : config_.epilog) reply.add_epilog(s);
  reply.set_kill_wait_sec(config_.core.kill_wait_sec);
  reply.set_heartbeat_interval_sec(core::HeartbeatIntervalSec(config_.core));
  reply.set_fence_after_sec(config_.core.node_timeout_sec);
  reply.set_prolog_epilog_timeout_sec(config_.prolog_epilog_timeout_sec);
  reply.set_acct_gather_frequency_sec(config_.acct_gather_frequency_sec);
  reply.set_controller_address(controller_address_);
  reply.set_conf_path(config_.conf_path);
  lock.unlock();
  if (health_pending) GANTRY_RETURN_IF_ERROR(Finish(std::move(health_pending), {}));
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), std::move(after)));
  Log("node " + request.node() + " registered from " + request.address());
  Kick();
  return reply;
}

Result<v1::HeartbeatReply> Controller::Heartbeat(const Caller& caller,
                                                 const v1::HeartbeatRequest& request) {
  if (!IsOperator(caller)) return PermissionDenied("only root or the cluster's user may heartbeat");
  WriterLock lock(mu_);
  Result<core::HeartbeatReaction> reaction = core::OnHeartbeat(CoreLocked(), request);
  if (!reaction.ok()) return reaction.status();
  v1::HeartbeatReply reply;
  reply.set_reregister(reaction->reregister);
  for (uint32_t id : reaction->stale_job_ids) reply.add_stale_job_ids(id);
  AfterCommit after;
  CarryOutLocked(std::move(reaction->effects), nullptr, &after);
  lock.unlock();
  for (auto& action : after) action();
  return reply;
}

Result<v1::HealthSettings> Controller::HealthSettings(const Caller& caller,
                                                      const std::string& node) {
  if (!IsOperator(caller)) return PermissionDenied("only root or the cluster's user may ask");
  ReaderLock lock(mu_);
  const v1::Node* found = state_.FindNode(node);
  if (found == nullptr) return NotFound("Invalid node name specified: " + node);
  return core::HealthSettingsFor(state_, core_config_, *found);
}

Status Controller::ReportHealth(const Caller& caller, const v1::HealthReport& report) {
  if (!IsOperator(caller)) return PermissionDenied("only root or the cluster's user may report");
  WriterLock lock(mu_);
  Result<core::Effects> effects = core::OnHealthReport(CoreLocked(), report);
  if (!effects.ok()) return effects.status();
  NoteHealthLocked(report);
  if (effects->events.empty() && effects->actions.empty()) return Status::Ok();
  std::vector<v1::Event> events;
  AfterCommit after;
  CarryOutLocked(*std::move(effects), &events, &after);
  auto pending = CommitLocked(std::move(events));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), std::move(after)));
  Kick();
  return Status::Ok();
}

void Controller::NoteHealthLocked(const v1::HealthReport& report) {
  const bool passed = model::HealthDrainReason(report).empty();
  ++(passed ? health_counts_.passed : health_counts_.failed);
  memory_.health[report.node()] = report;
}

Status Controller::Report(const Caller& caller, const v1::JobReport& report) {
  if (!IsOperator(caller)) return PermissionDenied("only root or the cluster's user may report");
  WriterLock lock(mu_);
  const v1::Node* node = state_.FindNode(report.node());
  if (node == nullptr) return NotFound("Invalid node name specified: " + report.node());
  memory_.last_heard[report.node()] = clock_->MonotonicMs();
  Result<core::Effects> effects = core::OnReport(CoreLocked(), report);
  if (!effects.ok()) return effects.status();
  if (effects->events.empty() && effects->actions.empty()) return Status::Ok();
  std::vector<v1::Event> events;
  AfterCommit after;
  CarryOutLocked(*std::move(effects), &events, &after);
  auto pending = CommitLocked(std::move(events));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), std::move(after)));
  Kick();
  return Status::Ok();
}

}  // namespace gantry::ctld
