#include "core/timers.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include "model/job_state.h"
#include "sched/preempt.h"
#include "state/cluster_state.h"
#include "state/records.h"

namespace gantry::core {
namespace {

// A pending job's begin time, when it is still to come.
std::optional<UnixTime> BeginOf(const v1::Job& job, UnixTime now) {
  if (!state::IsPendingJob(job) || job.request().begin_time() <= now) return std::nullopt;
  return job.request().begin_time();
}

}  // namespace

void NoteBeginTime(const Context& ctx, const v1::Event& event) {
  const uint32_t id = event.has_job_submitted()      ? event.job_submitted().job().job_id()
                      : event.has_job_requeued()     ? event.job_requeued().job_id()
                      : event.has_job_updated()      ? event.job_updated().job_id()
                      : event.has_job_hold_changed() ? event.job_hold_changed().job_id()
                                                     : 0;
  const v1::Job* job = id != 0 ? ctx.state.FindJob(id) : nullptr;
  if (job == nullptr) return;
  if (const std::optional<UnixTime> begin = BeginOf(*job, event.time())) {
    ctx.memory.begin_due.emplace(*begin, id);
  }
}

void NoteEveryBeginTime(const Context& ctx) {
  std::set<std::pair<UnixTime, uint32_t>>& due = ctx.memory.begin_due;
  due.clear();
  for (const state::PendingKey& key : ctx.state.pending) {
    const v1::Job* job = ctx.state.FindJob(key.job_id);
    if (job == nullptr) continue;
    if (const std::optional<UnixTime> begin = BeginOf(*job, ctx.now)) {
      due.emplace(*begin, key.job_id);
    }
  }
}

std::optional<int64_t> MsUntilDue(const Context& ctx) {
  Memory& m = ctx.memory;
  std::optional<int64_t> best;
  // Overdue: a second later.
  auto at_mono = [&](int64_t due_ms) {
    const int64_t ms = due_ms > ctx.mono_ms ? due_ms - ctx.mono_ms : 1000;
    best = best ? std::min(*best, ms) : ms;
  };
  auto at_wall = [&](UnixTime due) { at_mono(ctx.mono_ms + (due - ctx.now) * 1000); };

  // Time limits and warnings: the entries are a second early (Memory::time_limit_due), or now
  // for a job ended here whose end is not applied yet (due a second later, then).
  if (!m.time_limit_due.empty()) at_mono(m.time_limit_due.begin()->first + 1000);
  // Runs events changed since the timer stage looked (started in this cycle's pass, say): from
  // their anchors (NoteApplied anchors a run when it starts or resumes).
  for (uint32_t id : m.time_limit_touched) {
    const v1::Job* job = ctx.state.FindJob(id);
    const auto anchor = m.run_anchors.find(id);
    if (job == nullptr || state::JobStateOf(*job).base != model::JobBaseState::kRunning ||
        job->time_limit_min() == 0 || job->time_limit_min() == state::kUnlimited ||
        anchor == m.run_anchors.end()) {
      continue;
    }
    const int64_t limit_ms = int64_t{job->time_limit_min()} * 60'000;
    const int64_t anchor_ms = anchor->second.second;
    at_mono(anchor_ms + limit_ms);
    const v1::JobRequest& r = job->request();
    if (r.warn_signal() != 0 && !m.warned.contains({id, job->agent_epoch()})) {
      at_mono(anchor_ms + limit_ms - int64_t{r.warn_seconds()} * 1000);
    }
  }

  // Silent nodes (SilentNodes: DOWN once silent longer than SlurmdTimeout, jobs settled once
  // silent longer than the fence).
  const Config& config = ctx.config;
  const int64_t timeout = int64_t{config.node_timeout_sec} * 1000;
  const int64_t fenced_after =
      (int64_t{config.node_timeout_sec} + config.kill_wait_sec + kFenceMarginSec) * 1000;
  for (const auto& [name, heard] : m.last_heard) {
    if (ctx.mono_ms - heard <= timeout) {
      at_mono(heard + timeout + 1);
      continue;
    }
    const int index = ctx.state.NodeIndex(name);
    if (index >= 0 && !ctx.state.nodes[index].job_ids().empty() &&
        ctx.mono_ms - heard <= fenced_after) {
      at_mono(heard + fenced_after + 1);
    }
  }

  // Gang turns (sched::TimeSlice and the pass's slice preemptions).
  const sched::SchedulerOptions& options = config.scheduler;
  if (options.preempt.gang && options.time_slice_sec > 0) {
    for (uint32_t id : ctx.state.active) {
      const v1::Job* job = ctx.state.FindJob(id);
      const v1::Partition* partition =
          job != nullptr ? ctx.state.FindPartition(job->partition()) : nullptr;
      if (partition == nullptr || !sched::TimeSliced(options.preempt, *partition)) continue;
      // A running job's slice ends, or a suspended one has waited a slice.
      const UnixTime turn = sched::ActiveSince(*job) + options.time_slice_sec;
      if (turn > ctx.now) at_wall(turn);
    }
  }

  // Backfill's next pass.
  if (!ctx.state.pending.empty() && options.backfill && options.bf_interval_sec > 0 &&
      m.last_backfill != 0) {
    at_wall(std::max(m.last_backfill + options.bf_interval_sec, ctx.now + 1));
  }

  // Begin times still to come (those passed were the cycle's to see).
  m.begin_due.erase(m.begin_due.begin(), m.begin_due.upper_bound({ctx.now, UINT32_MAX}));
  if (!m.begin_due.empty()) at_wall(m.begin_due.begin()->first);

  if (best) best = std::max<int64_t>(*best, 1);
  return best;
}

}  // namespace gantry::core
