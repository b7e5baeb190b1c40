// gantry-stepd: each node's srun steps run their tasks under it, a process of its own, so that
// a step outlives its agent as a Slurm step outlives slurmd under slurmstepd.
//
// The agent starts one gantry-stepd (installed beside gantry-agent; StepServer) and sends it each
// step: the step's plan (EncodeStepPlan: the tasks' SpawnSpecs, srun's address, the step's I/O
// secret, which so never appears in a command line, and the path of a control FIFO the agent
// made, 0600 in its root-only spool). gantry-stepd runs the step on a thread of its own
// (RunStep, step_runner.h: it connects to srun, starts the tasks in the job's cgroup, relays
// their I/O and reports their ends to srun), then removes the FIFO: the step's end. srun, not
// the agent, tells the controller how the step ended, so nothing is lost when the agent dies
// meanwhile. Threads, not a process per step: a process costs its page faults on every launch
// (docs/decisions/0009).
//
// Control: the agent writes one line per command to the FIFO, "signal <n>" (StepControl::Signal:
// scancel -s, suspend and resume) or "terminate <ms>" (StepControl::Terminate: the job ends).
// A restarted agent finds the FIFO and gantry-stepd's pid in the job record and goes on
// controlling the step the same way, and WaitForKeptStep tells it when the step has ended.
#ifndef GANTRY_AGENT_STEP_KEEPER_H_
#define GANTRY_AGENT_STEP_KEEPER_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
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

// The agent's gantry-stepd, started once (as root, outside any job's cgroup, shielded from the
// OOM killer as the agent is). It exits once its stdin has closed (the agent stopped or died)
// and its steps have ended; until then those steps run on. Given the agent's lease file
// (lease_file.h), it watches it as gantry-keeper does (keeper.h): once the lease has run out and
// the agent is gone, it ends every step (SIGTERM, SIGKILL after the plan's kill_wait).
//
// Protocol on gantry-stepd's stdin and stdout: wire/frame.h frames. The agent sends one frame
// per step (EncodeStepPlan); gantry-stepd answers with a reply frame (wire::ReplyFrame) once the
// step runs, or with InvalidArgument for a plan it cannot decode or a FIFO it cannot open.
//
// Thread-safety: Launch and Stop may be called from any thread (one launch at a time).
class StepServer {
 public:
  // `lease_file`: the agent's (SpoolLeasePath); empty = no lease watch.
  explicit StepServer(std::string stepd_path, std::string lease_file = "")
      : stepd_path_(std::move(stepd_path)), lease_file_(std::move(lease_file)) {}
  ~StepServer() { Stop(); }
  StepServer(const StepServer&) = delete;
  StepServer& operator=(const StepServer&) = delete;

  // Starts gantry-stepd now, not at the first launch. Errors: Unavailable.
  Status Start();
  // Has gantry-stepd run `plan`, taking commands from the FIFO `control` (KeptStep::Open made
  // it). Returns the gantry-stepd that runs it (for WaitForKeptStep). A gantry-stepd that has
  // gone is started again, once. Errors: Unavailable (no gantry-stepd), InvalidArgument (the
  // plan, as DecodeStepPlan words it, or the FIFO).
  Result<Spawned> Launch(const StepPlan& plan, const std::string& control);
  // Closes gantry-stepd's stdin and reaps it once its steps have ended.
  void Stop();
  // Closes gantry-stepd's stdin, as an agent that dies does, and returns the process, which the
  // caller reaps; its steps run on. For tests.
  std::optional<Spawned> Release();
  // gantry-stepd's pid; 0 when none runs. For tests.
  pid_t pid() const;

 private:
  struct Server {
    Spawned process;
    int request_fd = -1;  // its stdin
    int reply_fd = -1;    // its stdout
  };
  Status StartLocked();
  void StopLocked();
  std::optional<Spawned> ReleaseLocked();
  Status LaunchLocked(const std::string& request);

  const std::string stepd_path_;
  const std::string lease_file_;
  mutable std::mutex mu_;
  std::optional<Server> server_;
};

// Returns once the step whose FIFO is `control` has ended (gantry-stepd removed the FIFO) or
// `stepd`, which ran it, has gone (started at `start_ticks`; 0 = whichever has the pid).
void WaitForKeptStep(const std::string& control, pid_t stepd, uint64_t start_ticks);

// gantry-stepd's main(): `gantry-stepd [--lease-file PATH]`, requests on stdin (StepServer).
// Returns the exit code: 0 once stdin has closed and every step has ended, 2 for arguments or a
// garbled request.
int RunStepKeeper(int argc, char** argv);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_STEP_KEEPER_H_
