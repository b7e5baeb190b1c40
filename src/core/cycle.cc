#include "core/cycle.h"

#include <algorithm>
#include <csignal>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/job_actions.h"
#include "core/timers.h"
#include "model/job_state.h"
#include "model/pending_reason.h"
#include "sched/preempt.h"
#include "sched/priority.h"
#include "sched/scheduler.h"
#include "sched/usage_reset.h"
#include "state/records.h"

namespace gantry::core {
namespace {

using model::JobBaseState;
using model::JobFlag;

constexpr uint32_t kUnlimited = 0xFFFFFFFFu;

JobBaseState Base(const v1::Job& job) { return static_cast<JobBaseState>(job.state()); }
bool HasFlag(const v1::Job& job, JobFlag flag) {
  return (job.state_flags() & static_cast<uint32_t>(flag)) != 0;
}

// PriorityUsageResetPeriod: once per period boundary, the usage tallies not charged since start
// again from nothing (one AccountingChanged event; a controller that was down across a
// boundary resets the tallies untouched since).
void ResetUsage(const Context& ctx, Effects* out) {
  const UnixTime boundary = sched::LastUsageReset(ctx.config.priority.usage_reset, ctx.now,
                                                  ctx.config.boot_time, *ctx.config.time_zone);
  if (boundary <= 0 || boundary <= ctx.memory.usage_reset_checked) return;
  ctx.memory.usage_reset_checked = boundary;
  v1::AccountingChange change;
  for (const auto& [id, tally] : ctx.state.accounting.association_usage) {
    if (tally.as_of() < boundary) change.add_reset_usage(id);
  }
  for (const auto& [name, tally] : ctx.state.accounting.qos_usage) {
    if (tally.as_of() < boundary) change.add_reset_qos_usage(name);
  }
  if (change.reset_usage().empty() && change.reset_qos_usage().empty()) return;
  v1::Event event = NewEvent(ctx);
  *event.mutable_accounting_changed()->mutable_change() = std::move(change);
  out->events.push_back(std::move(event));
}

// The running jobs TimeLimits looks at: those due by now and those events touched since the
// last look (NoteApplied), in id order; every running job when events were applied that
// NoteApplied did not see (recovery), or the state is another one.
std::vector<uint32_t> TimersToLook(const Context& ctx) {
  Memory& m = ctx.memory;
  std::vector<uint32_t> look;
  if (m.noted_through != ctx.state.events_applied || m.noted_lineage != ctx.state.lineage.id()) {
    m.time_limit_due.clear();
    m.time_limit_due_of.clear();
    m.time_limit_touched.clear();
    m.noted_through = ctx.state.events_applied;
    m.noted_lineage = ctx.state.lineage.id();
    NoteEveryBeginTime(ctx);
    return {ctx.state.active.begin(), ctx.state.active.end()};
  }
  look.assign(m.time_limit_touched.begin(), m.time_limit_touched.end());
  m.time_limit_touched.clear();
  for (auto it = m.time_limit_due.begin(); it != m.time_limit_due.end() && it->first <= ctx.mono_ms;
       ++it) {
    look.push_back(it->second);
  }
  std::ranges::sort(look);
  const auto [end, last] = std::ranges::unique(look);
  look.erase(end, last);
  return look;
}

// Time limits and --signal warnings, over the running jobs that may be due (TimersToLook: no
// walk over the queue, the nodes or every running job). Durations follow the monotonic clock.
void TimeLimits(const Context& ctx, Effects* out) {
  Memory& m = ctx.memory;
  for (uint32_t id : TimersToLook(ctx)) {
    m.ForgetTimeLimit(id);
    const v1::Job* job = ctx.state.FindJob(id);
    if (job == nullptr || Base(*job) != JobBaseState::kRunning ||
        job->time_limit_min() == kUnlimited || job->time_limit_min() == 0) {
      continue;  // an event that starts or resumes it brings it back (NoteApplied)
    }
    const UnixTime since = RunningSince(*job);
    auto anchor = m.run_anchors.find(id);
    if (anchor == m.run_anchors.end() || anchor->second.first != since) {
      // Not anchored when it started (a job recovered after a restart): the wall clock now.
      anchor = m.run_anchors
                   .insert_or_assign(id, std::pair(since, ctx.mono_ms - (ctx.now - since) * 1000))
                   .first;
    }
    const int64_t anchor_ms = anchor->second.second;
    const int64_t ran_sec = (ctx.mono_ms - anchor_ms) / 1000;
    const int64_t limit_sec = static_cast<int64_t>(job->time_limit_min()) * 60;
    // When to look at it again: now when it is ended here (until the end is applied), else
    // a second before its warning or its limit (ran_sec counts whole seconds).
    int64_t next = anchor_ms + limit_sec * 1000;
    // The deadline in wall-clock terms, for the --signal warning's log line.
    const UnixTime deadline = ctx.now + (limit_sec - ran_sec);
    const v1::JobRequest& req = job->request();
    if (ran_sec >= limit_sec) {
      out->log.push_back("job " + std::to_string(id) + " reached its time limit");
      EndJob(ctx, *job, JobBaseState::kTimeout, 0, "time limit", out);
      next = ctx.mono_ms;
    } else if (req.warn_signal() != 0 && !m.warned.contains({id, job->agent_epoch()})) {
      const auto warn_sec = static_cast<int64_t>(req.warn_seconds());
      if (ctx.now >= deadline - warn_sec) {
        m.warned.emplace(id, job->agent_epoch());
        out->log.push_back("job " + std::to_string(id) + ": signal " +
                           std::to_string(req.warn_signal()) + ", " +
                           std::to_string(deadline - ctx.now) + " s before its time limit");
        SignalOnNodes(ctx, *job, req.warn_signal(),
                      req.warn_batch_only() ? v1::SIGNAL_BATCH : v1::SIGNAL_STEPS, out);
      } else {
        next = std::min(next, anchor_ms + (limit_sec - warn_sec) * 1000);
      }
    }
    if (next != ctx.mono_ms) next -= 1000;
    m.time_limit_due.emplace(next, id);
    m.time_limit_due_of[id] = next;
  }
  // (NoteApplied forgets a run's anchor and warnings when it ends or is requeued.)
}

// Silent nodes: DOWN after SlurmdTimeout. Their jobs are settled (requeued or ended) only once
// the node's agent has surely ended them itself: it fences at SlurmdTimeout after the sending
// of its last acknowledged call (no later than this node was last heard), then gives KillWait.
// So no requeued job runs twice at once.
void SilentNodes(const Context& ctx, Effects* out) {
  const Config& config = ctx.config;
  const int64_t fenced_after =
      (int64_t{config.node_timeout_sec} + config.kill_wait_sec + kFenceMarginSec) * 1000;
  const int64_t timeout = int64_t{config.node_timeout_sec} * 1000;
  // Nothing is due for a node heard within SlurmdTimeout (fenced_after is longer): only the
  // silent ones are looked at, in the nodes' order.
  std::vector<std::pair<int, int64_t>> silent_nodes;  // (index in nodes, ms silent)
  for (const auto& [name, heard] : ctx.memory.last_heard) {
    if (ctx.mono_ms - heard <= timeout) continue;
    const int index = ctx.state.NodeIndex(name);
    if (index >= 0) silent_nodes.emplace_back(index, ctx.mono_ms - heard);
  }
  std::sort(silent_nodes.begin(), silent_nodes.end());
  for (const auto& [index, silent] : silent_nodes) {
    const v1::Node& node = ctx.state.nodes[index];
    const bool not_responding =
        (node.state_flags() & static_cast<uint32_t>(model::NodeFlag::kNoRespond)) != 0;
    if (node.address().empty()) continue;
    if (!not_responding) {
      out->log.push_back("node " + node.name() + " not responding for " +
                         std::to_string(silent / 1000) + " s: DOWN" +
                         (node.job_ids().empty()
                              ? ""
                              : "; its jobs are settled once its agent has ended them (" +
                                    std::to_string(fenced_after / 1000) + " s)"));
      v1::Event lost = NewEvent(ctx);
      lost.mutable_node_lost()->set_node(node.name());
      lost.mutable_node_lost()->set_reason("Not responding");
      out->events.push_back(std::move(lost));
    }
    if (silent <= fenced_after) continue;
    for (uint32_t job_id : node.job_ids()) {
      const v1::Job* job = ctx.state.FindJob(job_id);
      if (job == nullptr) continue;
      if (state::IsActiveJob(*job)) {
        RequeueOrFail(ctx, *job, node.name(), "node " + node.name() + " failed", out);
      } else if (HasFlag(*job, JobFlag::kCompleting)) {
        v1::Event released = NewEvent(ctx);
        released.mutable_job_node_released()->set_job_id(job_id);
        released.mutable_job_node_released()->set_node(node.name());
        out->events.push_back(std::move(released));
      }
    }
  }
}

// One of the pass's preemptions carried out:
//   SUSPEND  JobSuspended{preemptor} and SIGSTOP to the victim's processes on every node; the
//            preemptor starts in the same commit. ResumeStage resumes the victim once the CPUs
//            it gave up are free again (its preemptor ended), as Slurm's gang scheduler does.
//   REQUEUE  JobRequeued{preempted} when the job may be requeued (else as CANCEL); its
//            processes get SIGTERM, then SIGKILL after the partition's GraceTime plus KillWait.
//   CANCEL   JobEnded PREEMPTED, the same signals.
void Preempt(const Context& ctx, const sched::Preemption& preemption, Effects* out) {
  const v1::Job* job = ctx.state.FindJob(preemption.victim);
  if (job == nullptr) return;
  const std::string by = "preempted by job " + std::to_string(preemption.preemptor);
  out->log.push_back("job " + std::to_string(job->job_id()) + " " + by);
  const v1::Partition* partition = ctx.state.FindPartition(job->partition());
  const uint32_t grace = partition != nullptr ? partition->grace_time_sec() : 0;
  switch (preemption.action) {
    case sched::PreemptAction::kSuspend:
      SuspendFor(ctx, *job, preemption.preemptor, out);
      return;
    case sched::PreemptAction::kRequeue:
      if (job->requeue()) {
        v1::Event event = RequeueEvent(ctx, *job);
        v1::JobRequeued* requeued = event.mutable_job_requeued();
        // Its reason stays one of Slurm's tokens (squeue shows state_desc in its place); the
        // preemptor is in the log, and preempt_time in the record for gantry explain.
        requeued->set_reason("None");
        requeued->set_preempted(true);
        requeued->set_preemptor(preemption.preemptor);
        out->events.push_back(std::move(event));
        ctx.memory.prologs.erase(job->job_id());
        TerminateOnNodes(ctx, *job, out, grace);
        return;
      }
      break;  // may not be requeued: cancelled
    case sched::PreemptAction::kCancel:
    case sched::PreemptAction::kOff:
      break;
  }
  EndJob(ctx, *job, JobBaseState::kPreempted, 0, by, out, grace);
}

}  // namespace

Effects TimerStage(const Context& ctx) {
  Effects out;
  ResetUsage(ctx, &out);
  Memory& m = ctx.memory;
  if (m.last_mono_ms != 0) {
    const int64_t step = (ctx.now - m.last_wall) - (ctx.mono_ms - m.last_mono_ms) / 1000;
    if (step > 5 || step < -5) {
      out.log.push_back("the wall clock stepped by " + std::to_string(step) +
                        " s; node liveness and time limits follow the monotonic clock");
    }
  }
  m.last_wall = ctx.now;
  m.last_mono_ms = ctx.mono_ms;
  TimeLimits(ctx, &out);
  SilentNodes(ctx, &out);
  // Gang time-slicing: the running jobs whose turn is over are suspended for the job that
  // waited longest.
  const sched::SchedulerOptions& options = ctx.config.scheduler;
  for (const sched::SliceSuspension& turn :
       sched::TimeSlice(ctx.state, options.preempt, options.time_slice_sec, ctx.now)) {
    SuspendFor(ctx, *ctx.state.FindJob(turn.job_id), turn.for_job, &out);
  }
  return out;
}

Effects ResumeStage(const Context& ctx) {
  Effects out;
  for (uint32_t id : sched::ResumableJobs(ctx.state)) {
    const v1::Job* job = ctx.state.FindJob(id);
    v1::Event event = NewEvent(ctx);
    event.mutable_job_resumed()->set_job_id(id);
    out.events.push_back(std::move(event));
    out.log.push_back("job " + std::to_string(id) + " resumed: its CPUs are free again");
    SignalOnNodes(ctx, *job, SIGCONT, v1::SIGNAL_SUSPEND, &out);
  }
  return out;
}

Effects PriorityStage(const Context& ctx) {
  Effects out;
  state::VolatileUpdates& v = out.volatile_updates;
  v.clear_entered_pending = !ctx.state.entered_pending.empty();
  const sched::PriorityConfig& config = ctx.config.priority;
  if (!config.multifactor) return out;
  const bool full = ctx.replay != nullptr
                        ? ctx.replay->priorities()
                        : ctx.memory.last_priority_calc == 0 ||
                              ctx.now - ctx.memory.last_priority_calc >= config.calc_period_sec;
  if (!full && ctx.state.entered_pending.empty()) return out;
  const sched::PriorityCalculator calc(config, ctx.state, ctx.now);
  if (full) {
    ctx.memory.last_priority_calc = ctx.now;
    v.all_priorities = true;
    for (const auto& [id, job] : ctx.state.jobs) {
      if (!state::IsPendingJob(job) || job.priority() == 0) continue;  // held
      const uint32_t priority = calc.PriorityOf(job);
      if (config.incr_only && priority < job.priority()) continue;
      v.priorities.emplace_back(id, priority);
    }
    return out;
  }
  for (uint32_t id : ctx.state.entered_pending) {
    const v1::Job* job = ctx.state.FindJob(id);
    if (job == nullptr || !state::IsPendingJob(*job) || job->priority() == 0) continue;
    const uint32_t priority = calc.PriorityOf(*job);
    if (config.incr_only && priority < job->priority()) continue;
    v.priorities.emplace_back(id, priority);
  }
  return out;
}

Effects ScheduleStage(const Context& ctx) {
  Effects out;
  Memory& m = ctx.memory;
  const UnixTime now = ctx.now;
  // bf_interval: passes between backfilling ones keep strict order and the last plans.
  sched::SchedulerOptions options = ctx.config.scheduler;
  const int64_t interval = options.bf_interval_sec;
  const bool backfill = options.backfill && interval >= 0 &&
                        (ctx.replay != nullptr ? ctx.replay->backfill()
                                               : m.last_backfill == 0 || interval == 0 ||
                                                     now - m.last_backfill >= interval);
  if (backfill) m.last_backfill = now;
  options.backfill = backfill;
  sched::Decisions decisions =
      sched::Schedule(ctx.state, now, options, ctx.yield, &ctx.memory.node_tables);
  state::VolatileUpdates& v = out.volatile_updates;
  // Expected starts, in memory like reasons: a backfilling pass's plans replace the last one's.
  if (backfill || interval < 0) {
    std::set<uint32_t> planned;
    for (const sched::ExpectedStart& e : decisions.expected_starts) {
      if (ctx.state.FindJob(e.job_id) == nullptr) continue;
      planned.insert(e.job_id);
      v.expected_starts.emplace_back(e.job_id, e.time);
    }
    for (uint32_t id : m.planned_jobs) {
      if (!planned.contains(id)) v.expected_starts.emplace_back(id, 0);
    }
    m.planned_jobs = std::move(planned);
  }
  v.evaluated_at = now;
  for (sched::ReasonChange& change : decisions.reasons) {
    v.reasons.emplace_back(change.job_id, std::move(change.reason));
  }
  for (sched::DependencyChange& change : decisions.dependencies) {
    v.dependency_status.emplace_back(change.job_id, std::move(change.status));
  }
  for (uint32_t id : decisions.cancels) {
    const v1::Job* job = ctx.state.FindJob(id);
    if (job == nullptr) continue;
    EndJob(ctx, *job, JobBaseState::kCancelled, 0, "dependency never satisfied", &out);
    out.events.back().mutable_job_ended()->set_reason(
        std::string(model::PendingReasonName(model::PendingReason::kDependencyNeverSatisfied)));
  }
  for (const sched::Preemption& p : decisions.preemptions) Preempt(ctx, p, &out);
  // Array tasks split off their array's record first; ids are given in order of start, and the
  // record's last pending task keeps the array's id.
  uint32_t next_id = ctx.state.next_job_id;
  std::map<uint32_t, int> array_tasks_left;
  for (const sched::Start& start : decisions.starts) {
    const v1::Job* job = ctx.state.FindJob(start.job_id);
    if (job == nullptr) continue;
    uint32_t id = start.job_id;
    if (start.array_task_id) {
      auto left = array_tasks_left.try_emplace(id, job->array_pending_tasks_size()).first;
      if (left->second-- > 1) id = next_id++;
      v1::Event split = NewEvent(ctx);
      split.mutable_job_array_split()->set_job_id(start.job_id);
      split.mutable_job_array_split()->set_task_id(*start.array_task_id);
      split.mutable_job_array_split()->set_new_job_id(id);
      out.events.push_back(std::move(split));
    }
    v1::Event event = NewEvent(ctx);
    v1::JobStarted* s = event.mutable_job_started();
    s->set_job_id(id);
    s->set_partition(start.partition);
    for (const std::string& n : start.nodes) s->add_nodes(n);
    s->set_num_cpus(start.num_cpus);
    s->set_alloc_mem_mb(start.alloc_mem_mb);
    s->set_epoch(job->restarts() + 1);
    s->set_time_limit_min(start.time_limit_min);
    out.events.push_back(std::move(event));
  }
  out.pass = decisions.stats;
  out.mark.emplace();
  out.mark->set_time(now);
  out.mark->set_backfill(backfill);
  out.mark->set_gave_way(decisions.stats.yields > 0);
  return out;
}

Effects PrologStage(const Context& ctx, const std::vector<uint32_t>& started) {
  Effects out;
  for (uint32_t id : started) {
    const v1::Job* job = ctx.state.FindJob(id);
    if (job == nullptr || !state::IsActiveJob(*job)) continue;
    ctx.memory.prologs[id] = std::set<std::string>(job->nodes().begin(), job->nodes().end());
    PrepareOnNodes(ctx, *job, &out);
  }
  return out;
}

std::vector<uint32_t> StartedJobs(const std::vector<v1::Event>& events) {
  std::vector<uint32_t> out;
  for (const v1::Event& e : events) {
    if (e.has_job_started()) out.push_back(e.job_started().job_id());
  }
  return out;
}

void RunCycle(const Context& ctx, CycleShell* shell) {
  // Timer events (node lost, time limits, turns over) are applied before the suspended jobs
  // that get their CPUs back resume, and those before scheduling sees the state.
  Effects timers = TimerStage(ctx);
  bool decided = !timers.events.empty();
  shell->Commit(Stage::kTimers, std::move(timers));
  Effects resumes = ResumeStage(ctx);
  decided = decided || !resumes.events.empty();
  shell->Commit(Stage::kResumes, std::move(resumes));
  Effects priorities = PriorityStage(ctx);
  const bool all_priorities = priorities.volatile_updates.all_priorities;
  const bool repriced = !priorities.volatile_updates.priorities.empty();
  shell->Commit(Stage::kPriorities, std::move(priorities));
  // What the pass saw: gantryd's shell may have let requests commit between the stages.
  const uint64_t seen = ctx.state.events_applied;
  Effects scheduled = ScheduleStage(ctx);
  // The pass log: a cycle that changed nothing, or only its bookkeeping with no job waiting,
  // is not worth a mark (a replay runs no cycle but the marked ones).
  const bool backfilled = scheduled.mark->backfill() && scheduled.pass->queue_length > 0;
  if (decided || repriced || backfilled || !scheduled.events.empty()) {
    scheduled.mark->set_seen(seen);
    scheduled.mark->set_priorities(all_priorities);
  } else {
    scheduled.mark.reset();
  }
  const std::vector<uint32_t> started = StartedJobs(scheduled.events);
  shell->Commit(Stage::kSchedule, std::move(scheduled));
  shell->Commit(Stage::kPrologs, PrologStage(ctx, started));
}

}  // namespace gantry::core
