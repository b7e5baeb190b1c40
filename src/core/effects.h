// What a decision of the core asks for: events to commit (durably, in order), volatile updates
// of job records (state/volatile_updates.h), calls to node agents once the events are durable,
// and lines for the daemon's log. The shell that applies them is thin: gantryd commits and
// calls the agents; the simulator applies and plays the agents' answers on its clock.
#ifndef GANTRY_CORE_EFFECTS_H_
#define GANTRY_CORE_EFFECTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gantry/v1/agent.pb.h"
#include "gantry/v1/events.pb.h"
#include "gantry/v1/job.pb.h"
#include "sched/scheduler.h"
#include "state/volatile_updates.h"

namespace gantry::core {

// One call to one node's agent. `job` is the record as it stood when the call was decided: the
// context the agent gets (its environment, its node list).
struct AgentAction {
  enum class Kind {
    kPrepare,      // PrepareJob: run the prologs (node_index)
    kLaunchBatch,  // LaunchBatch: start the batch script on the job's first node (state_flags)
    kTerminate,    // TerminateJob: end launch `epoch`, KillWait `kill_wait_sec`, run the epilog
    kSignal,       // SignalJob: `signal` to the processes `scope` names
  };
  Kind kind = Kind::kPrepare;
  // The job's record when the action was decided, one copy shared by the actions one call
  // makes (SignalJob's names the job only).
  std::shared_ptr<const v1::Job> job;
  std::string node;
  uint32_t node_index = 0;
  uint64_t epoch = 0;
  uint32_t kill_wait_sec = 0;
  uint32_t state_flags = 0;
  int signal = 0;
  v1::SignalScope scope = v1::SIGNAL_STEPS;
};

struct Effects {
  std::vector<v1::Event> events;
  state::VolatileUpdates volatile_updates;
  std::vector<AgentAction> actions;
  std::vector<std::string> log;
  // Set by the scheduling stage: what its pass did (sdiag).
  std::optional<sched::PassStats> pass;
  // Set on the scheduling stage's effects by RunCycle when the cycle is one a replay must run
  // where it ran (v1::PassMark): gantryd keeps it in its pass log (core/pass_log.h).
  std::optional<v1::PassMark> mark;

  // Appends `other`'s events, actions and log lines (not its volatile updates or pass).
  void Append(Effects other);
};

}  // namespace gantry::core

#endif  // GANTRY_CORE_EFFECTS_H_
