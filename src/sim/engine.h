// A cluster run by the core (core/cycle.h, core/reactions.h) on a simulated clock, with
// stand-in agents: what gantryd does, without a store, threads, processes or real time. The
// simulator and the scheduling scenarios drive it.
//
// Events are applied at once (nothing to make durable). Each node's agent answers as a real one
// does, after fixed delays:
//   PrepareJob   PROLOG_OK after AgentTimes::prolog_sec;
//   LaunchBatch  BATCH_ENDED (exit 0) once the script has run for the job's run time (RunTime;
//                none: it runs until EndBatch, its time limit or its cancellation);
//   TerminateJob the script stops; EPILOG_OK after AgentTimes::epilog_sec (or the job's own,
//                EpilogTime);
//   SIGSTOP, SIGCONT to a suspended or resumed job: the script's clock stops and goes on.
// As gantryd passes again after each release, a pass runs before each further release
// is delivered, and again after a pass whose effects released nodes at once.
// Deterministic: reports due at the same second are delivered in the order they were made,
// releases after the others, in EpilogTime's order where it gives one.
#ifndef GANTRY_SIM_ENGINE_H_
#define GANTRY_SIM_ENGINE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "base/status.h"
#include "base/time.h"
#include "core/context.h"
#include "core/cycle.h"
#include "core/effects.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/events.pb.h"
#include "state/cluster_state.h"

namespace gantry::sim {

struct AgentTimes {
  int64_t prolog_sec = 0;
  int64_t epilog_sec = 0;
};

// Sees what the engine does, as it does it.
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  // `event` was applied; `stage` is the cycle stage that decided it (none: an agent's report or
  // an event from outside).
  virtual void Applied(std::optional<core::Stage> stage, const v1::Event& event,
                       const state::ClusterState& state) = 0;
  // A line gantryd would log.
  virtual void Log(UnixTime now, const std::string& line) = 0;
};

class Engine {
 public:
  // How long something an agent does takes, and where its report comes among the events of
  // its second: a replayed history's order (Job.end_order, NodeRelease.order); 0: not known.
  struct Timed {
    int64_t sec = 0;
    uint64_t order = 0;
  };
  // How long a job's batch script runs (nullopt: until something ends it).
  using RunTime = std::function<std::optional<Timed>(const v1::Job&)>;
  // How long the job's epilog takes on `node` when told to end at `now`; nullopt:
  // AgentTimes::epilog_sec, in turn.
  using EpilogTime =
      std::function<std::optional<Timed>(const v1::Job&, const std::string& node, UnixTime now)>;

  Engine(core::Config config, AgentTimes times, RunTime run_time, EpilogTime epilog_time = {});

  const state::ClusterState& state() const { return state_; }
  // For setting up what events do not carry (accounting, configuration flags); not while
  // jobs run.
  state::ClusterState* mutable_state() { return &state_; }
  const core::Config& config() const { return config_; }
  // Before the first cycle only.
  core::Config* mutable_config() { return &config_; }
  void set_observer(EngineObserver* observer) { observer_ = observer; }

  // Applies an event from outside (the configuration, a node's registration, a submission).
  Status Apply(const v1::Event& event);
  // Delivers every agent report due at or before `now`, each at its own time.
  Status Deliver(UnixTime now);
  // The reports due by `now`, then one cycle at `now`, then the reports it made due at `now`.
  Status Cycle(UnixTime now);
  // A replay of a recorded history: the reports due before `now`, and those due at `now` whose
  // order is at most `order` (an unknown order counts as 0, a release's as last), each at its
  // own time; no cycle.
  Status DeliverThrough(UnixTime now, uint64_t order);
  // One cycle at `now` as the recorded one ran (core::Context::replay).
  Status ReplayCycle(UnixTime now, const v1::PassMark& mark);
  // When the next agent report is due (none: nothing is on its way).
  std::optional<UnixTime> NextReport() const;
  // When the core's timers (core/timers.h) are next due after a cycle at `now`: the second
  // they fall in, later than `now` (none: no timer is set).
  std::optional<UnixTime> NextDue(UnixTime now);
  // The batch script of job `job_id` ends now with `wait_status`, as its agent reports it.
  Status EndBatch(uint32_t job_id, int wait_status, UnixTime now);

 private:
  // (due, rank, sequence made): reports due in one second come in their known order (rank),
  // those whose order is not known first, and releases among them last.
  using Key = std::tuple<UnixTime, uint64_t, uint64_t>;
  static constexpr uint64_t kLastRank = UINT64_MAX;
  struct BatchRun {
    uint64_t epoch = 0;
    std::optional<Key> end;  // the BATCH_ENDED on its way, if the script runs and its end is known
    int64_t left_sec = -1;   // while stopped: the run time left (-1: unknown)
  };

  core::Context ContextAt(UnixTime now, const v1::PassMark* replay = nullptr);
  Status CarryOut(std::optional<core::Stage> stage, core::Effects effects, UnixTime now);
  void Act(const core::AgentAction& action, UnixTime now);
  // Queues `report`; returns its key.
  Key Queue(UnixTime at, v1::JobReport report, uint64_t order = 0);
  // One pass of the cycle at `now`.
  Status Pass(UnixTime now, const v1::PassMark* replay = nullptr);
  // Delivers the first report queued.
  Status DeliverFirst();
  // Deliver, with a pass before each release after the first (gantryd's kick) when asked.
  Status Deliver(UnixTime now, bool pass_between_releases);
  void StopBatch(uint32_t job_id, UnixTime now);

  core::Config config_;
  core::Memory memory_;
  AgentTimes times_;
  RunTime run_time_;
  EpilogTime epilog_time_;
  bool released_ = false;  // a release was applied since the last pass
  state::ClusterState state_;
  EngineObserver* observer_ = nullptr;
  uint64_t next_seq_ = 0;
  std::map<Key, v1::JobReport> reports_;
  std::map<uint32_t, BatchRun> batches_;  // job -> its batch script's run
};

}  // namespace gantry::sim

#endif  // GANTRY_SIM_ENGINE_H_
