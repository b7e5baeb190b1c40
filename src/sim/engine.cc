#include "sim/engine.h"

#include <csignal>
#include <utility>

#include "core/job_actions.h"
#include "core/reactions.h"
#include "core/timers.h"
#include "state/volatile_updates.h"

namespace gantry::sim {

Engine::Engine(core::Config config, AgentTimes times, RunTime run_time, EpilogTime epilog_time)
    : config_(std::move(config)),
      times_(times),
      run_time_(std::move(run_time)),
      epilog_time_(std::move(epilog_time)) {}

core::Context Engine::ContextAt(UnixTime now, const v1::PassMark* replay) {
  // One clock: simulated time never steps.
  core::Context ctx{state_, config_, memory_, now, now * 1000};
  ctx.replay = replay;
  return ctx;
}

Status Engine::Apply(const v1::Event& event) {
  GANTRY_RETURN_IF_ERROR(state::Apply(&state_, event));
  core::NoteApplied(ContextAt(event.time()), event);
  if (observer_ != nullptr) observer_->Applied(std::nullopt, event, state_);
  return Status::Ok();
}

Status Engine::CarryOut(std::optional<core::Stage> stage, core::Effects effects, UnixTime now) {
  if (observer_ != nullptr) {
    for (const std::string& line : effects.log) observer_->Log(now, line);
  }
  for (const v1::Event& event : effects.events) {
    Status applied = state::Apply(&state_, event);
    if (!applied.ok()) {
      return Internal("the core decided an event that does not apply (" + applied.ToString() +
                      "): " + event.ShortDebugString());
    }
    core::NoteApplied(ContextAt(now), event);
    if (event.has_job_node_released()) released_ = true;
    if (observer_ != nullptr) observer_->Applied(stage, event, state_);
  }
  if (!effects.volatile_updates.empty()) state::ApplyVolatile(&state_, effects.volatile_updates);
  state_.changed_jobs.clear();  // nothing is kept beside the state here
  for (const core::AgentAction& action : effects.actions) Act(action, now);
  return Status::Ok();
}

Engine::Key Engine::Queue(UnixTime at, v1::JobReport report, uint64_t order) {
  const bool release = report.kind() == v1::JobReport::EPILOG_OK;
  const Key key{at, order != 0 ? order : release ? kLastRank : 0, next_seq_++};
  reports_.emplace(key, std::move(report));
  return key;
}

void Engine::StopBatch(uint32_t job_id, UnixTime now) {
  const auto it = batches_.find(job_id);
  if (it == batches_.end() || !it->second.end) return;
  it->second.left_sec = std::get<0>(*it->second.end) - now;
  reports_.erase(*it->second.end);
  it->second.end.reset();
}

void Engine::Act(const core::AgentAction& action, UnixTime now) {
  const uint32_t id = action.job->job_id();
  v1::JobReport report;
  report.set_node(action.node);
  report.set_job_id(id);
  report.set_epoch(action.epoch);
  switch (action.kind) {
    case core::AgentAction::Kind::kPrepare:
      report.set_kind(v1::JobReport::PROLOG_OK);
      Queue(now + times_.prolog_sec, std::move(report));
      return;
    case core::AgentAction::Kind::kLaunchBatch: {
      StopBatch(id, now);
      BatchRun& run = batches_[id];
      run = BatchRun{action.epoch, std::nullopt, -1};
      if (const std::optional<Timed> run_time = run_time_(*action.job)) {
        report.set_kind(v1::JobReport::BATCH_ENDED);
        run.end = Queue(now + run_time->sec, std::move(report), run_time->order);
      }
      return;
    }
    case core::AgentAction::Kind::kTerminate: {
      const auto batch = batches_.find(id);
      if (batch != batches_.end() && batch->second.epoch == action.epoch) {
        StopBatch(id, now);
        batches_.erase(id);
      }
      report.set_kind(v1::JobReport::EPILOG_OK);
      const std::optional<Timed> own =
          epilog_time_ ? epilog_time_(*action.job, action.node, now) : std::nullopt;
      if (own) {
        Queue(now + own->sec, std::move(report), own->order);
      } else {
        Queue(now + times_.epilog_sec, std::move(report));
      }
      return;
    }
    case core::AgentAction::Kind::kSignal: {
      const auto batch = batches_.find(id);
      if (batch == batches_.end() || batch->second.epoch != action.epoch) return;
      if (action.signal == SIGSTOP) {
        StopBatch(id, now);
      } else if (action.signal == SIGCONT && !batch->second.end && batch->second.left_sec >= 0) {
        report.set_node(state_.FindJob(id)->nodes(0));
        report.set_kind(v1::JobReport::BATCH_ENDED);
        batch->second.end = Queue(now + batch->second.left_sec, std::move(report));
        batch->second.left_sec = -1;
      }
      return;
    }
  }
}

Status Engine::Deliver(UnixTime now) { return Deliver(now, /*pass_between_releases=*/false); }

Status Engine::Deliver(UnixTime now, bool pass_between_releases) {
  while (!reports_.empty() && std::get<0>(reports_.begin()->first) <= now) {
    // gantryd passes after each release it commits (each node's epilog report is its own).
    if (pass_between_releases && reports_.begin()->second.kind() == v1::JobReport::EPILOG_OK &&
        released_) {
      GANTRY_RETURN_IF_ERROR(Pass(std::get<0>(reports_.begin()->first)));
    }
    GANTRY_RETURN_IF_ERROR(DeliverFirst());
  }
  return Status::Ok();
}

Status Engine::DeliverFirst() {
  const auto first = reports_.begin();
  const UnixTime at = std::get<0>(first->first);
  const v1::JobReport report = std::move(first->second);
  reports_.erase(first);
  if (report.kind() == v1::JobReport::BATCH_ENDED) batches_.erase(report.job_id());
  if (state_.FindNode(report.node()) == nullptr) return Status::Ok();
  Result<core::Effects> effects = core::OnReport(ContextAt(at), report);
  if (!effects.ok()) return effects.status();
  return CarryOut(std::nullopt, *std::move(effects), at);
}

Status Engine::DeliverThrough(UnixTime now, uint64_t order) {
  while (!reports_.empty()) {
    const auto [at, rank, seq] = reports_.begin()->first;
    if (at > now || (at == now && rank > order)) return Status::Ok();
    GANTRY_RETURN_IF_ERROR(DeliverFirst());
  }
  return Status::Ok();
}

Status Engine::ReplayCycle(UnixTime now, const v1::PassMark& mark) { return Pass(now, &mark); }

Status Engine::Pass(UnixTime now, const v1::PassMark* replay) {
  class Shell final : public core::CycleShell {
   public:
    Shell(Engine* engine, UnixTime now) : engine_(engine), now_(now) {}
    void Commit(core::Stage stage, core::Effects effects) override {
      if (status.ok()) status = engine_->CarryOut(stage, std::move(effects), now_);
    }
    Status status;

   private:
    Engine* engine_;
    UnixTime now_;
  };
  released_ = false;
  Shell shell(this, now);
  core::RunCycle(ContextAt(now, replay), &shell);
  return shell.status;
}

Status Engine::Cycle(UnixTime now) {
  released_ = false;  // what was released before is there for this cycle's first pass
  GANTRY_RETURN_IF_ERROR(Deliver(now, true));
  // Passes until one releases nothing at once (a time limit's epilog that takes no time).
  do {
    GANTRY_RETURN_IF_ERROR(Pass(now));
    GANTRY_RETURN_IF_ERROR(Deliver(now, true));
  } while (released_);
  return Status::Ok();
}

std::optional<UnixTime> Engine::NextDue(UnixTime now) {
  const std::optional<int64_t> ms = core::MsUntilDue(ContextAt(now));
  if (!ms) return std::nullopt;
  return now + (*ms + 999) / 1000;
}

std::optional<UnixTime> Engine::NextReport() const {
  if (reports_.empty()) return std::nullopt;
  return std::get<0>(reports_.begin()->first);
}

Status Engine::EndBatch(uint32_t job_id, int wait_status, UnixTime now) {
  const v1::Job* job = state_.FindJob(job_id);
  if (job == nullptr || job->nodes_size() == 0) {
    return FailedPrecondition("job " + std::to_string(job_id) + " runs on no node");
  }
  StopBatch(job_id, now);
  batches_.erase(job_id);
  v1::JobReport report;
  report.set_node(job->nodes(0));
  report.set_job_id(job_id);
  report.set_epoch(job->agent_epoch());
  report.set_kind(v1::JobReport::BATCH_ENDED);
  report.set_wait_status(wait_status);
  Result<core::Effects> effects = core::OnReport(ContextAt(now), report);
  if (!effects.ok()) return effects.status();
  GANTRY_RETURN_IF_ERROR(CarryOut(std::nullopt, *std::move(effects), now));
  return Deliver(now);
}

}  // namespace gantry::sim
