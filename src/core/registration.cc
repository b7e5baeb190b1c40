#include "core/registration.h"

#include <algorithm>
#include <csignal>
#include <set>
#include <string>
#include <utility>

#include "core/job_actions.h"
#include "model/job_state.h"
#include "model/node_state.h"
#include "state/records.h"

namespace gantry::core {
namespace {

using model::JobBaseState;
using model::JobFlag;

JobBaseState BaseOf(const v1::Job& job) { return state::JobStateOf(job).base; }
bool HasJobFlag(const v1::Job& job, JobFlag flag) { return state::JobStateOf(job).Has(flag); }

Status UnknownNode(const std::string& name) {
  return NotFound("Invalid node name specified: " + name);
}

// Whether the controller still waits for this node's prolog of the job.
bool OwesProlog(const Context& ctx, const v1::Job& job, const std::string& node) {
  const auto prolog = ctx.memory.prologs.find(job.job_id());
  return state::IsActiveJob(job) && prolog != ctx.memory.prologs.end() &&
         prolog->second.contains(node);
}

}  // namespace

uint32_t HeartbeatIntervalSec(const Config& config) {
  return std::clamp<uint32_t>(config.node_timeout_sec / 3, 1, 30);
}

Result<Registration> OnRegister(const Context& ctx, const v1::RegisterRequest& request) {
  const v1::Node* node = ctx.state.FindNode(request.node());
  if (node == nullptr) return UnknownNode(request.node());
  const std::set<uint32_t> held(request.running_job_ids().begin(), request.running_job_ids().end());
  Registration out;
  v1::Event registered = NewEvent(ctx);
  v1::NodeRegistered* r = registered.mutable_node_registered();
  r->set_node(request.node());
  r->set_address(request.address());
  r->set_hostname(request.hostname());
  r->set_boot_time(request.boot_time());
  r->set_version(request.version());
  r->set_os(request.os());
  out.effects.events.push_back(std::move(registered));
  for (uint32_t job_id : node->job_ids()) {
    const v1::Job* job = ctx.state.FindJob(job_id);
    if (job == nullptr || !state::IsActiveJob(*job)) continue;
    if (!held.contains(job_id) && !HasJobFlag(*job, JobFlag::kConfiguring)) {
      RequeueOrFail(ctx, *job, request.node(),
                    "node " + request.node() + " restarted without the job", &out.effects);
    }
  }
  const std::set<uint32_t> on_node(node->job_ids().begin(), node->job_ids().end());
  for (uint32_t job_id : held) {
    if (!on_node.contains(job_id)) out.stale_job_ids.push_back(job_id);
  }
  ctx.memory.last_heard[request.node()] = ctx.mono_ms;
  return out;
}

Effects AfterRegister(const Context& ctx, const v1::RegisterRequest& request) {
  Effects out;
  const v1::Node* node = ctx.state.FindNode(request.node());
  if (node == nullptr) return out;
  const std::set<uint32_t> held(request.running_job_ids().begin(), request.running_job_ids().end());
  for (uint32_t job_id : node->job_ids()) {
    const v1::Job* job = ctx.state.FindJob(job_id);
    if (job == nullptr) continue;
    const uint32_t index = NodeIndexOf(*job, request.node());
    const bool prolog = OwesProlog(ctx, *job, request.node());
    if (prolog) {
      PrepareOnNode(ctx, *job, request.node(), index, &out);
    } else if (!state::IsActiveJob(*job) && HasJobFlag(*job, JobFlag::kCompleting)) {
      TerminateOnNode(ctx, *job, request.node(), index, job->agent_epoch(), 0, &out);
    }
    if (BaseOf(*job) == JobBaseState::kSuspended &&
        (held.contains(job_id) || ctx.memory.prologs.contains(job_id))) {
      SignalOnNodes(ctx, *job, SIGSTOP, v1::SIGNAL_SUSPEND, &out, request.node());
    }
  }
  return out;
}

Result<HeartbeatReaction> OnHeartbeat(const Context& ctx, const v1::HeartbeatRequest& request) {
  const v1::Node* node = ctx.state.FindNode(request.node());
  if (node == nullptr) return UnknownNode(request.node());
  HeartbeatReaction out;
  const bool not_responding =
      (node->state_flags() & static_cast<uint32_t>(model::NodeFlag::kNoRespond)) != 0;
  if (node->address().empty() || not_responding || node->boot_time() != request.boot_time()) {
    out.reregister = true;
    return out;
  }
  Memory& m = ctx.memory;
  m.last_heard[request.node()] = ctx.mono_ms;
  const std::set<uint32_t> here(node->job_ids().begin(), node->job_ids().end());
  for (uint32_t job_id : request.job_ids()) {
    if (!here.contains(job_id)) out.stale_job_ids.push_back(job_id);
  }

  const Config& config = ctx.config;
  const int64_t resend_after =
      (int64_t{config.kill_wait_sec} + 2 * int64_t{HeartbeatIntervalSec(config)} + 5) * 1000;
  const std::set<uint32_t> held(request.job_ids().begin(), request.job_ids().end());
  const std::set<uint32_t> launched(request.launched_job_ids().begin(),
                                    request.launched_job_ids().end());
  const std::set<uint32_t> ending(request.ending_job_ids().begin(), request.ending_job_ids().end());
  const std::string& name = node->name();
  std::set<uint32_t> missing;
  for (uint32_t job_id : node->job_ids()) {
    const v1::Job* job = ctx.state.FindJob(job_id);
    if (job == nullptr) continue;
    // An agent already ending the job owes nothing more than patience: its epilog may be long.
    // One holding an earlier launch (a PrepareJob that arrived after a requeue) ends that
    // first; the current one is owed once it is gone.
    const auto held_epoch = request.epochs().find(job_id);
    const uint64_t old_epoch =
        state::IsActiveJob(*job) && held.contains(job_id) && held_epoch != request.epochs().end() &&
                held_epoch->second < job->agent_epoch() && !ending.contains(job_id)
            ? held_epoch->second
            : 0;
    const bool owes_epilog = !state::IsActiveJob(*job) && HasJobFlag(*job, JobFlag::kCompleting) &&
                             !ending.contains(job_id);
    const bool owes_prolog = OwesProlog(ctx, *job, name) && !held.contains(job_id);
    const bool owes_launch = BaseOf(*job) == JobBaseState::kRunning &&
                             !job->request().allocation_only() && job->nodes_size() > 0 &&
                             job->nodes(0) == name && !m.prologs.contains(job_id) &&
                             held.contains(job_id) && !launched.contains(job_id) && old_epoch == 0;
    if (!owes_epilog && !owes_launch && !owes_prolog && old_epoch == 0) continue;
    missing.insert(job_id);
    auto [it, first] = m.missing_since.try_emplace({job_id, name}, ctx.mono_ms);
    // Nothing in flight can end an earlier launch: that goes at once.
    const bool due = first ? old_epoch != 0 : ctx.mono_ms - it->second >= resend_after;
    if (!due) continue;
    it->second = ctx.mono_ms;
    const uint32_t index = NodeIndexOf(*job, name);
    if (old_epoch != 0) {
      out.effects.log.push_back("job " + std::to_string(job_id) + ": " + name +
                                " holds its earlier launch " + std::to_string(old_epoch) +
                                ": ending it");
      TerminateOnNode(ctx, *job, name, index, old_epoch, 0, &out.effects);
      continue;
    }
    out.effects.log.push_back("job " + std::to_string(job_id) + ": " + name + " missed its " +
                              (owes_epilog   ? "TerminateJob"
                               : owes_prolog ? "PrepareJob"
                                             : "LaunchBatch") +
                              ": sending it again");
    if (owes_launch) {
      LaunchBatch(ctx, *job, job->state_flags(), &out.effects);
    } else if (owes_prolog) {
      PrepareOnNode(ctx, *job, name, index, &out.effects);
    } else {
      TerminateOnNode(ctx, *job, name, index, job->agent_epoch(), 0, &out.effects);
    }
  }
  std::erase_if(m.missing_since, [&](const auto& entry) {
    return entry.first.second == name && !missing.contains(entry.first.first);
  });
  return out;
}

}  // namespace gantry::core
