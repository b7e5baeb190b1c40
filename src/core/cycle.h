// The controller's periodic cycle as pure decisions: gantryd, the scenarios, the benchmarks and
// the simulator all run this one.
//
// A cycle has stages, each decided on the state as the stages before it left it:
//   kTimers      usage reset (PriorityUsageResetPeriod), time limits, --signal warnings,
//                silent nodes (DOWN, then their jobs settled once fenced), gang turns over;
//   kResumes     jobs preemption suspended whose CPUs are free again resume;
//   kPriorities  priority/multifactor: every PriorityCalcPeriod all pending jobs, in between
//                those that entered the queue;
//   kSchedule    the scheduling pass (sched::Schedule) carried out: reasons, expected starts and
//                dependency status (volatile), dependency cancels, preemptions, array tasks
//                split off, starts;
//   kPrologs     every node of each job the pass started is asked to run its prologs.
// The shell commits each stage's effects before the next one is decided.
#ifndef GANTRY_CORE_CYCLE_H_
#define GANTRY_CORE_CYCLE_H_

#include <cstdint>
#include <vector>

#include "core/context.h"
#include "core/effects.h"

namespace gantry::core {

enum class Stage { kTimers, kResumes, kPriorities, kSchedule, kPrologs };

class CycleShell {
 public:
  virtual ~CycleShell() = default;
  // Applies `effects` (events, then volatile updates) to the state the context reads, and
  // carries out the rest as the shell does (durability, agent calls, log).
  virtual void Commit(Stage stage, Effects effects) = 0;
};

// Runs every stage in order at ctx.now.
void RunCycle(const Context& ctx, CycleShell* shell);

// The stages, one by one (RunCycle's parts; tests may call them alone).
Effects TimerStage(const Context& ctx);
Effects ResumeStage(const Context& ctx);
Effects PriorityStage(const Context& ctx);
Effects ScheduleStage(const Context& ctx);
// `started`: the jobs the schedule stage started (their JobStarted events' ids).
Effects PrologStage(const Context& ctx, const std::vector<uint32_t>& started);

// The ids of the jobs `events` start, in order.
std::vector<uint32_t> StartedJobs(const std::vector<v1::Event>& events);

}  // namespace gantry::core

#endif  // GANTRY_CORE_CYCLE_H_
