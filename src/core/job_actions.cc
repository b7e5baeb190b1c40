#include "core/job_actions.h"

#include <csignal>
#include <memory>
#include <utility>

#include "core/timers.h"
#include "model/job_state.h"
#include "state/records.h"

namespace gantry::core {

using model::JobBaseState;

namespace {

// Anchors a running job's time limit at the monotonic clock now.
void AnchorRun(const Context& ctx, const v1::Job& job) {
  const UnixTime since = RunningSince(job);
  ctx.memory.run_anchors[job.job_id()] = {since, ctx.mono_ms - (ctx.now - since) * 1000};
}

}  // namespace

v1::Event NewEvent(const Context& ctx) {
  v1::Event event;
  event.set_time(ctx.now);
  return event;
}

v1::Event RequeueEvent(const Context& ctx, const v1::Job& job) {
  v1::Event event = NewEvent(ctx);
  v1::JobRequeued* requeued = event.mutable_job_requeued();
  requeued->set_job_id(job.job_id());
  if (job.request().begin_time() <= event.time()) {
    requeued->set_begin_time(event.time() + ctx.config.cred_expire_sec + 1);
  }
  return event;
}

UnixTime RunningSince(const v1::Job& job) {
  return job.suspend_time() != 0 ? job.suspend_time() - job.pre_suspend_secs() : job.start_time();
}

UnixTime EndTime(const Context& ctx, const v1::Job& job) {
  if (state::JobStateOf(job).base != JobBaseState::kRunning) return ctx.now;
  const auto anchor = ctx.memory.run_anchors.find(job.job_id());
  if (anchor == ctx.memory.run_anchors.end() || anchor->second.first != RunningSince(job)) {
    return ctx.now;
  }
  const UnixTime end = anchor->second.first + (ctx.mono_ms - anchor->second.second) / 1000;
  return end - ctx.now > 5 || ctx.now - end > 5 ? end : ctx.now;
}

void NoteApplied(const Context& ctx, const v1::Event& event) {
  Memory& m = ctx.memory;
  if (m.noted_through + 1 == ctx.state.events_applied) m.noted_through = ctx.state.events_applied;
  // The time limits look again at a job whose run an event may have changed.
  if (const uint32_t touched = event.has_job_started()     ? event.job_started().job_id()
                               : event.has_job_resumed()   ? event.job_resumed().job_id()
                               : event.has_job_suspended() ? event.job_suspended().job_id()
                               : event.has_job_updated()   ? event.job_updated().job_id()
                                                           : 0;
      touched != 0) {
    m.time_limit_touched.insert(touched);
  }
  const uint32_t id = event.has_job_started()   ? event.job_started().job_id()
                      : event.has_job_resumed() ? event.job_resumed().job_id()
                                                : 0;
  if (const v1::Job* job = id != 0 ? ctx.state.FindJob(id) : nullptr) AnchorRun(ctx, *job);
  // A run that ends (or goes back to the queue) takes its time-limit bookkeeping with it.
  const uint32_t left = event.has_job_ended()      ? event.job_ended().job_id()
                        : event.has_job_requeued() ? event.job_requeued().job_id()
                                                   : 0;
  if (left != 0) {
    ctx.memory.run_anchors.erase(left);
    m.ForgetTimeLimit(left);
    auto& warned = ctx.memory.warned;
    warned.erase(warned.lower_bound({left, 0}), warned.lower_bound({left + 1, 0}));
  }
  NoteBeginTime(ctx, event);
}

void EndJob(const Context& ctx, const v1::Job& job, JobBaseState end_state, int32_t exit_status,
            const std::string& cause, Effects* out, uint32_t grace_sec) {
  v1::Event event = NewEvent(ctx);
  event.set_time(EndTime(ctx, job));
  v1::JobEnded* ended = event.mutable_job_ended();
  ended->set_job_id(job.job_id());
  ended->set_state(static_cast<uint32_t>(end_state));
  ended->set_exit_status(exit_status);
  ended->set_end_cause(cause);
  out->events.push_back(std::move(event));
  ctx.memory.prologs.erase(job.job_id());
  if (job.nodes_size() > 0) TerminateOnNodes(ctx, job, out, grace_sec);
}

void RequeueOrFail(const Context& ctx, const v1::Job& job, const std::string& node,
                   const std::string& why, Effects* out) {
  if (job.requeue()) {
    v1::Event event = RequeueEvent(ctx, job);
    v1::JobRequeued* requeued = event.mutable_job_requeued();
    requeued->set_reason("None");
    requeued->set_state_desc(why);
    requeued->set_node_fail(true);
    out->events.push_back(std::move(event));
    ctx.memory.prologs.erase(job.job_id());
    TerminateOnNodes(ctx, job, out);
  } else {
    EndJob(ctx, job, JobBaseState::kNodeFail, 0, why, out);
  }
  // The lost node will not run an epilog: it releases the job now.
  v1::Event released = NewEvent(ctx);
  released.mutable_job_node_released()->set_job_id(job.job_id());
  released.mutable_job_node_released()->set_node(node);
  released.mutable_job_node_released()->set_message(why);
  out->events.push_back(std::move(released));
}

namespace {

void AddTerminate(const Context& ctx, const std::shared_ptr<const v1::Job>& job,
                  const std::string& node, uint32_t index, uint64_t epoch, uint32_t grace_sec,
                  Effects* out) {
  if (ctx.state.FindNode(node) == nullptr) return;
  AgentAction& a = out->actions.emplace_back();
  a.kind = AgentAction::Kind::kTerminate;
  a.job = job;
  a.node = node;
  a.node_index = index;
  a.epoch = epoch;
  a.kill_wait_sec = ctx.config.kill_wait_sec + grace_sec;
}

void AddPrepare(const Context& ctx, const std::shared_ptr<const v1::Job>& job,
                const std::string& node, uint32_t index, Effects* out) {
  if (ctx.state.FindNode(node) == nullptr) return;
  AgentAction& a = out->actions.emplace_back();
  a.kind = AgentAction::Kind::kPrepare;
  a.job = job;
  a.node = node;
  a.node_index = index;
  a.epoch = job->agent_epoch();
}

}  // namespace

void TerminateOnNodes(const Context& ctx, const v1::Job& job, Effects* out, uint32_t grace_sec) {
  const auto shared = std::make_shared<const v1::Job>(job);
  for (int i = 0; i < job.nodes_size(); ++i) {
    AddTerminate(ctx, shared, job.nodes(i), static_cast<uint32_t>(i), job.agent_epoch(), grace_sec,
                 out);
  }
}

void TerminateOnNode(const Context& ctx, const v1::Job& job, const std::string& node,
                     uint32_t index, uint64_t epoch, uint32_t grace_sec, Effects* out) {
  AddTerminate(ctx, std::make_shared<const v1::Job>(job), node, index, epoch, grace_sec, out);
}

void PrepareOnNode(const Context& ctx, const v1::Job& job, const std::string& node, uint32_t index,
                   Effects* out) {
  AddPrepare(ctx, std::make_shared<const v1::Job>(job), node, index, out);
}

void PrepareOnNodes(const Context& ctx, const v1::Job& job, Effects* out) {
  const auto shared = std::make_shared<const v1::Job>(job);
  for (int i = 0; i < job.nodes_size(); ++i) {
    AddPrepare(ctx, shared, job.nodes(i), static_cast<uint32_t>(i), out);
  }
}

void LaunchBatch(const Context& ctx, const v1::Job& job, uint32_t state_flags, Effects* out) {
  if (job.nodes_size() == 0 || ctx.state.FindNode(job.nodes(0)) == nullptr) return;
  AgentAction& a = out->actions.emplace_back();
  a.kind = AgentAction::Kind::kLaunchBatch;
  a.job = std::make_shared<const v1::Job>(job);
  a.node = job.nodes(0);
  a.epoch = job.agent_epoch();
  a.state_flags = state_flags;
}

void SignalOnNodes(const Context& ctx, const v1::Job& job, int sig, v1::SignalScope scope,
                   Effects* out, const std::string& only_node) {
  auto named = std::make_shared<v1::Job>();  // the call names the job and its launch only
  named->set_job_id(job.job_id());
  const std::shared_ptr<const v1::Job> shared = std::move(named);
  for (const std::string& name : job.nodes()) {
    if (!only_node.empty() && name != only_node) continue;
    if (scope == v1::SIGNAL_BATCH && name != job.nodes(0)) continue;
    if (ctx.state.FindNode(name) == nullptr) continue;
    AgentAction& a = out->actions.emplace_back();
    a.kind = AgentAction::Kind::kSignal;
    a.job = shared;
    a.node = name;
    a.epoch = job.agent_epoch();
    a.signal = sig;
    a.scope = scope;
  }
}

void SuspendFor(const Context& ctx, const v1::Job& job, uint32_t preemptor, Effects* out) {
  v1::Event event = NewEvent(ctx);
  event.mutable_job_suspended()->set_job_id(job.job_id());
  event.mutable_job_suspended()->set_preemptor(preemptor);
  out->events.push_back(std::move(event));
  SignalOnNodes(ctx, job, SIGSTOP, v1::SIGNAL_SUSPEND, out);
}

uint32_t NodeIndexOf(const v1::Job& job, const std::string& node) {
  for (int i = 0; i < job.nodes_size(); ++i) {
    if (job.nodes(i) == node) return static_cast<uint32_t>(i);
  }
  return 0;
}

}  // namespace gantry::core
