// One srun step's tasks on this node: started as the job's user, their output streamed to srun
// and their ends reported there (the StepIo frames of gantry/v1/job.proto, framed as
// wire/frame.h frames).
//
// RunStep connects to srun (plan.io_host:io_port, 10 s to connect), says HELLO with the key and
// the ranks it runs, then spawns each task with pipes for stdin, stdout and stderr. Until every
// task has ended it forwards each pipe's output as STDOUT/STDERR frames, writes srun's STDIN to
// every task (closing their stdin at its eof), sends srun's SIGNALs to every task's process
// group, and sends a task's EXIT (its wait status and rusage) once it was reaped and its output
// is drained (at most 2 s after its end, for output that a background child keeps open), with
// its rusage and, at plan.sample_period, its processes' sampled memory and I/O. A task
// that cannot start gets an EXIT with the error and status 2 (exit code 2, as slurmstepd's
// execve failure). When srun cannot be reached, nothing starts; when the connection is lost
// later, every task is SIGKILLed (srun is gone, as Slurm's tasks die with their srun).
//
// StepControl lets the job's other paths reach the running tasks: Terminate (the job ends:
// SIGCONT and SIGTERM now, SIGKILL after the kill wait) and Signal (suspend, resume, scancel -s).
// Thread-safety: StepControl's methods may be called from any thread; RunStep blocks, on a
// worker thread of its own.
#ifndef GANTRY_AGENT_STEP_RUNNER_H_
#define GANTRY_AGENT_STEP_RUNNER_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/launcher.h"

namespace gantry::agent {

// What the agent's job paths need of a running step, wherever it runs (in the agent: StepControl;
// in gantry-stepd: step_keeper.h's KeptStep).
class StepHandle {
 public:
  virtual ~StepHandle() = default;
  // Sends `sig` to every task still running (its process group), now and, for SIGSTOP/SIGCONT,
  // remembered for tasks not yet started.
  virtual void Signal(int sig) = 0;
  // Ends the tasks: SIGCONT+SIGTERM now, SIGKILL once `kill_wait` has passed.
  virtual void Terminate(std::chrono::milliseconds kill_wait) = 0;
};

class StepControl final : public StepHandle {
 public:
  void Signal(int sig) override;
  void Terminate(std::chrono::milliseconds kill_wait) override;

  // For RunStep: records a started task; false when the step was told to terminate already.
  bool AddTask(pid_t pid);
  void RemoveTask(pid_t pid);
  // The time to SIGKILL whatever runs, once Terminate was called.
  std::optional<std::chrono::steady_clock::time_point> KillDeadline() const;
  // SIGKILL to every task still running.
  void KillAll();

 private:
  mutable std::mutex mu_;
  std::vector<pid_t> tasks_;  // process group ids (Spawn makes each task a group leader)
  bool stopped_ = false;
  std::optional<std::chrono::steady_clock::time_point> kill_deadline_;
};

struct StepTask {
  uint32_t rank = 0;
  SpawnSpec spawn;  // without the stdio descriptors (RunStep makes the pipes)
};

struct StepPlan {
  std::string io_host;
  uint32_t io_port = 0;
  std::string io_key;
  std::string node;
  std::string what;  // "StepId=12.0", for log lines
  std::vector<StepTask> tasks;
  std::function<void(const std::string&)> log;
  // JobAcctGatherFrequency: each task's processes are sampled this often (proc/usage_sampler.h)
  // and its EXIT carries the samples; zero = rusage only.
  std::chrono::milliseconds sample_period{0};
  // gantry-stepd's control FIFO (step_keeper.h); unused by RunStep.
  std::string control;
  // KillWait, for gantry-stepd when it ends the step itself (its agent's lease ran out); unused
  // by RunStep.
  std::chrono::milliseconds kill_wait{0};
  // Called once with the tasks that started, before their I/O is served (may be empty).
  std::function<void(const std::vector<Spawned>&)> on_tasks_started;
};

// See the header comment. Returns once every task ended and was reported (or srun was never
// reached).
void RunStep(const StepPlan& plan, StepControl* control);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_STEP_RUNNER_H_
