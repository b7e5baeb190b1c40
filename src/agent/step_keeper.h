// gantry-stepd: one srun step's tasks on one node, in a process of their own, so that the step
// outlives its agent as a Slurm step outlives slurmd under slurmstepd.
//
// The agent makes a control FIFO (0600, in its root-only spool) and hands a `gantry-stepd`
// (installed beside gantry-agent, started as root outside the job's cgroup, ahead of time so
// that a launch does not wait for an exec: IdleStepKeeper) the step's plan on its stdin
// (EncodeStepPlan: the tasks' SpawnSpecs, srun's address, the step's I/O secret, which so never
// appears in a command line, and the FIFO's path). A gantry-stepd whose stdin closes without a
// plan (the agent stopped or died) exits 0. gantry-stepd runs RunStep (step_runner.h):
// it connects to srun, starts the tasks in the job's cgroup, relays their I/O and reports their
// ends to srun, then exits 0. srun, not the agent, tells the controller how the step ended, so
// nothing is lost when the agent dies meanwhile.
//
// Control: the agent writes one line per command to the FIFO, "signal <n>" (StepControl::Signal:
// scancel -s, suspend and resume) or "terminate <ms>" (StepControl::Terminate: the job ends).
// A restarted agent finds the FIFO and gantry-stepd's pid in the job record and goes on
// controlling the step the same way.
//
// Thread-safety: the functions share no state.
#ifndef GANTRY_AGENT_STEP_KEEPER_H_
#define GANTRY_AGENT_STEP_KEEPER_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "agent/launcher.h"
#include "agent/step_runner.h"
#include "base/status.h"

namespace gantry::agent {

// A StepPlan as bytes and back (without its callbacks: log and on_tasks_started). Decoding
// rejects unknown fields, a task without its rank and bad numbers, naming the field.
std::string EncodeStepPlan(const StepPlan& plan);
Result<StepPlan> DecodeStepPlan(std::string_view bytes);

// The agent's handle on a step gantry-stepd runs: its commands go into the FIFO, which the
// handle holds open for reading and writing, so that none is lost before gantry-stepd opens it
// or refused after it has gone.
class KeptStep final : public StepHandle {
 public:
  // Opens the FIFO `control`, making it first (mode 0600, replacing any file there) when
  // `create`. Errors: Unavailable naming the path.
  static Result<std::shared_ptr<KeptStep>> Open(const std::string& control, bool create);
  ~KeptStep() override;
  KeptStep(const KeptStep&) = delete;
  KeptStep& operator=(const KeptStep&) = delete;

  void Signal(int sig) override;
  void Terminate(std::chrono::milliseconds kill_wait) override;
  const std::string& control() const { return control_; }

 private:
  KeptStep(int fd, std::string control) : fd_(fd), control_(std::move(control)) {}
  void Send(const std::string& line);
  const int fd_;
  const std::string control_;
};

// A gantry-stepd waiting for its step on `plan_fd` (the agent's end of its stdin).
struct IdleStepKeeper {
  Spawned stepd;
  int plan_fd = -1;
};
// Starts one. Errors: Unavailable when gantry-stepd cannot start.
Result<IdleStepKeeper> StartIdleStepKeeper(const std::string& stepd_path);
// Hands `idle` its step and closes its stdin: it runs `plan`, taking commands from the FIFO
// `control` (KeptStep::Open made it). Returns the process, which the caller reaps.
Spawned HandStep(IdleStepKeeper idle, const StepPlan& plan, const std::string& control);
// Closes the stdin of a keeper that gets no step: it exits 0. Returns the process to reap.
Spawned DismissStepKeeper(IdleStepKeeper idle);

// StartIdleStepKeeper, then HandStep.
Result<Spawned> SpawnStepKeeper(const std::string& stepd_path, const StepPlan& plan,
                                const std::string& control);

// gantry-stepd's main(): `gantry-stepd`, the plan on stdin. Returns the exit code: 0 once the
// step has ended (or when no plan came), 2 for arguments or a bad plan.
int RunStepKeeper(int argc, char** argv);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_STEP_KEEPER_H_
