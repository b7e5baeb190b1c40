// What an agent says about itself, reconciled with the state: its registration (when it starts,
// with the jobs it holds) and its heartbeats (the jobs it holds, has launched and is ending).
// Pure reactions that return effects, as OnReport is for job reports; gantryd applies them, and
// the scenarios and tests call the same functions.
#ifndef GANTRY_CORE_REGISTRATION_H_
#define GANTRY_CORE_REGISTRATION_H_

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "core/context.h"
#include "core/effects.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

struct Registration {
  // NodeRegistered, then the end of each job the node should run but the agent does not hold
  // (unless still configuring: its prolog is asked again): requeued, or failed when it may not
  // be, as "node N restarted without the job".
  Effects effects;
  // The jobs the agent holds that the node has no part in: the agent ends them.
  std::vector<uint32_t> stale_job_ids;
};

// A node's agent (re)registered. NotFound for a node the state does not know (Slurm's
// "Invalid node name specified"). The node counts as heard from now.
Result<Registration> OnRegister(const Context& ctx, const v1::RegisterRequest& request);

// Once the registration's effects are applied: what the agent missed while away. Its prologs
// again for the jobs still configuring on it, TerminateJob for the jobs it still owes an epilog
// (a job completing there stays: the agent that took over runs the epilog then), and SIGSTOP to
// a suspended job it holds or whose prolog it is asked again (it may have missed the suspend).
Effects AfterRegister(const Context& ctx, const v1::RegisterRequest& request);

struct HeartbeatReaction {
  // The node is not registered, not responding, or booted again since: the agent must
  // register again (nothing else is looked at).
  bool reregister = false;
  // The jobs the agent holds that the node has no part in.
  std::vector<uint32_t> stale_job_ids;
  // Calls the agent still owes a reply to, sent again: the epilog of a job that ended there
  // (TerminateJob lost), the prolog of a configuring job it does not hold (PrepareJob lost),
  // the batch script of a running job whose prologs all ran (LaunchBatch lost); and the end of
  // an earlier launch it still holds, at once. A call goes again once it stays owed for KillWait
  // plus two heartbeats and 5 s (Memory::missing_since), so none goes twice while the first may
  // still land.
  Effects effects;
};

// A heartbeat from a node's agent. NotFound for a node the state does not know. Unless it must
// register again, the node counts as heard from now.
Result<HeartbeatReaction> OnHeartbeat(const Context& ctx, const v1::HeartbeatRequest& request);

// How often agents beat (SlurmdTimeout / 3, from 1 to 30 s): what Register's reply tells them.
uint32_t HeartbeatIntervalSec(const Config& config);

}  // namespace gantry::core

#endif  // GANTRY_CORE_REGISTRATION_H_
