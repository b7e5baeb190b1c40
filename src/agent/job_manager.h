// The agent's jobs on this node: prolog, batch launch, signals, termination and epilog, with
// Slurm's semantics, reporting what happens through a ReportSink (the controller link).
//
// Requests are idempotent per (job_id, epoch): a retried PrepareJob, LaunchBatch or TerminateJob
// does nothing twice. A request for an older epoch than the one held is refused
// (FailedPrecondition); a TerminateJob for a newer epoch ends whatever is held.
//
// Lifecycle of one job here:
//   PrepareJob   -> prolog scripts (background) -> PROLOG_OK | PROLOG_FAILED
//   LaunchBatch  -> script (with payload.argv as its arguments) started as the user (returns
//                   once started) -> BATCH_ENDED (raw wait
//                   status) when it exits, or LAUNCH_FAILED when it could not start
//   SignalJob    -> as its scope says (gantry.v1.SignalScope): the steps' tasks, the batch
//                   shell, or every process of the job. SIGNAL_SUSPEND's SIGSTOP suspends the
//                   job (scontrol suspend, preemption: cgroup freezer, else SIGSTOP; a job still
//                   in its prolog is stopped as soon as its script starts) and its SIGCONT
//                   resumes it (thaw + SIGCONT), as Slurm's proctrack plugins do. A suspended
//                   job takes no other signal (FailedPrecondition) but SIGKILL.
//   TerminateJob -> SIGCONT+SIGTERM, kill_wait, SIGKILL until none remain, epilog scripts
//                   -> EPILOG_OK | EPILOG_FAILED; the job is then forgotten. Also for a job that
//                   never ran here (the epilog still runs).
// From its prolog's success to its end, DIR/jobs/<id>.rec in the spool (spool.h) describes the
// job here, so that the next agent instance takes it over (TakeOverLeftovers) if this one dies
// or is killed: a batch script runs under its own parent, gantry-keeper (keeper.h), and goes on
// across agent restarts.
//
// Thread-safety: every public method may be called from any thread (gRPC handlers, the link).
// Long work (scripts, waiting for processes) runs on background threads owned by the manager.
#ifndef GANTRY_AGENT_JOB_MANAGER_H_
#define GANTRY_AGENT_JOB_MANAGER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/cgroup.h"
#include "agent/gpu_devices.h"
#include "agent/job_env.h"
#include "agent/job_limits.h"
#include "agent/process_tracker.h"
#include "agent/spool.h"
#include "agent/step_keeper.h"
#include "agent/step_runner.h"
#include "agent/user_info.h"
#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/agent.pb.h"
#include "gantry/v1/controller.pb.h"
#include "metrics/histogram.h"
#include "metrics/openmetrics.h"

namespace gantry::agent {

// Where reports go. Report() must not block on the network; the sink keeps reports until the
// controller acknowledges them.
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual void Report(gantry::v1::JobReport report) = 0;
};

// What the controller tells the agent at registration.
struct NodeSettings {
  std::string cluster_name;
  std::string conf_path;
  std::string controller_address;
  std::vector<std::string> prolog;
  std::vector<std::string> epilog;
  uint32_t kill_wait_sec = 30;
  uint32_t script_timeout_sec = 300;        // per prolog/epilog script
  uint32_t acct_gather_frequency_sec = 30;  // JobAcctGatherFrequency task=; 0 = no sampling
};

// Settings from a RegisterReply, with Slurm's defaults for zero values (KillWait 30 s,
// PrologEpilogTimeout 300 s).
NodeSettings SettingsFromRegisterReply(const gantry::v1::RegisterReply& reply);

struct JobManagerOptions {
  std::string node;
  std::string spool_dir;
  // The cgroup v2 hierarchy: "" = find it (/proc/self/mountinfo), "none" = do not use cgroups.
  std::string cgroup_root;
  // Where the NVIDIA device files are, and the cgroup v1 devices hierarchy that fences jobs
  // off from each other's GPUs (gpu_devices.h): "" = find it, "none" = do not fence.
  std::string dev_dir = "/dev";
  std::string devices_cgroup_root;
  // gantry-keeper, the parent of each batch script (keeper.h); empty = scripts are the agent's
  // own children and end with it (tests).
  std::string keeper_path;
  // gantry-stepd, which runs each srun step's tasks (step_keeper.h); empty = the agent runs them
  // itself and they end with it (tests).
  std::string stepd_path;
  // How long processes may survive SIGKILL before the job's termination is reported failed.
  std::chrono::milliseconds unkillable_timeout{120000};
  const Clock* clock = nullptr;  // report times; required
};

class JobManager {
 public:
  // Opens the spool and the cgroup tree (falling back to process groups, with a log line, when
  // cgroups are unavailable). `sink` must outlive the manager.
  static Result<std::unique_ptr<JobManager>> Create(JobManagerOptions options, ReportSink* sink);
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  void SetSettings(NodeSettings settings);
  NodeSettings settings() const;
  const std::string& node() const { return options_.node; }
  // The cgroup directory jobs go under; empty when process groups are used instead.
  std::string cgroup_base() const;

  // Takes over what a previous agent instance left (its spool records), before serving:
  //  - a job whose batch script still runs under its keeper, or ended after that agent stopped,
  //    is held again, and the script's end is reported when it comes (at once if it came);
  //  - a job held without a batch script (an allocation, srun's steps) is held again;
  //  - srun tasks are killed: their I/O went through the previous agent (srun sees them end);
  //  - a batch script without a keeper, and job cgroups and directories without a record, are
  //    killed and removed, without reports (the controller settles those jobs).
  struct Leftovers {
    int adopted = 0;  // jobs held again
    int killed = 0;   // jobs or tasks ended
  };
  Leftovers TakeOverLeftovers();

  // The requests, validated by the caller (request_check.h). Errors: FailedPrecondition (stale
  // epoch, job already ending here), NotFound (SignalJob of a job not here), Unavailable
  // (shutting down).
  Status PrepareJob(const gantry::v1::JobContext& context);
  // A launch that fails (unknown user, chdir, output file...) is reported as LAUNCH_FAILED and
  // returns OK.
  Status LaunchBatch(const gantry::v1::JobContext& context, const gantry::v1::JobPayload& payload);
  // A step's tasks here (agent/step_runner.h), once the prolog succeeded: they run in the job's
  // cgroup (created here on a node without the batch script), end with the job, and stop and
  // continue with it. Errors: FailedPrecondition (unknown epoch, prolog not done or failed, job
  // ending), Unavailable (shutting down). A task that cannot start reaches srun as its EXIT.
  Status LaunchTasks(const gantry::v1::LaunchTasksRequest& request);
  Status SignalJob(uint32_t job_id, uint64_t epoch, int signal, gantry::v1::SignalScope scope);
  // kill_wait_sec 0 = the registered KillWait. `context` gives the epilog's environment when the
  // job is not known here (it may be empty).
  Status TerminateJob(uint32_t job_id, uint64_t epoch, uint32_t kill_wait_sec,
                      const gantry::v1::JobContext& context);
  // Jobs the controller no longer knows here: their processes are killed, without epilog or
  // report.
  void KillStaleJobs(const std::vector<uint32_t>& job_ids);
  // Ends every job held (SIGTERM, then SIGKILL after KillWait), without reports: the agent's
  // lease ran out (controller_link.h), so the controller runs them elsewhere.
  void Fence();

  // The jobs held (prepared, running or ending), sorted.
  std::vector<uint32_t> JobIds() const;
  // Of those, the ones something was launched for here (a batch script or a step), sorted.
  std::vector<uint32_t> LaunchedJobIds() const;
  // Of those, the ones being ended (a TerminateJob came), sorted.
  std::vector<uint32_t> EndingJobIds() const;
  // The launch (JobContext.epoch) of each job held, by job id.
  std::map<uint32_t, uint64_t> JobEpochs() const;

  // Refuses new jobs, ends every job as TerminateJob does (epilog and reports included) and
  // waits for all background work. Idempotent.
  void Shutdown();

  // The agent's /metrics (gantry_agent_*{node}): how long prologs, batch launches (LaunchBatch
  // until the script runs) and step launches (LaunchTasks) took, launches and launch failures
  // since the agent started, the jobs held and running now.
  void WriteMetrics(metrics::MetricsText* out) const;

 private:
  enum class PrologState { kNone, kRunning, kDone, kFailed };
  struct Entry {
    uint32_t job_id = 0;
    uint64_t epoch = 0;
    gantry::v1::JobContext context;
    PrologState prolog = PrologState::kNone;
    bool launching = false;
    bool launched = false;       // the script was started
    bool batch_running = false;  // its process has not been reaped yet
    bool suspended = false;      // SIGSTOP (scontrol suspend) seen, no SIGCONT since
    JobProcesses procs;
    JobRecord record;  // what the spool holds (job_id 0: nothing yet); SaveRecordLocked
    bool terminating = false;
    bool stale = false;  // killed as stale: no epilog, no reports
    // srun steps' tasks running here (their runners remove themselves when done).
    std::vector<std::shared_ptr<StepHandle>> steps;
  };

  JobManager(JobManagerOptions options, ReportSink* sink, Spool spool,
             std::optional<CgroupTree> cgroups, std::vector<uint32_t> node_gpus,
             std::optional<GpuFence> gpu_fence);
  // Limits the job to its GPUs here (gpu_devices.h): attaches the eBPF device program to
  // `new_cgroup` (the job's v2 cgroup, when it was just made), or returns the v1 devices cgroup
  // to join; nothing when this node has no NVIDIA devices or cannot fence them.
  std::vector<std::string> FenceGpus(const gantry::v1::JobContext& context,
                                     const std::string& new_cgroup) const;
  // Sets the job's limits on this node (job_limits.h) beside its new `cgroup`; returns the
  // cgroup v1 directories its processes must join too. A job whose limits cannot be set runs
  // without them (logged).
  std::vector<std::string> LimitJob(const gantry::v1::Job& job, const std::string& cgroup) const;

  NodeEnv MakeNodeEnv(const NodeSettings& settings) const;
  void SendReport(uint32_t job_id, uint64_t epoch, gantry::v1::JobReport::Kind kind,
                  std::string message, int32_t wait_status = 0, v1::JobUsage usage = {});
  void StartWorker(std::function<void()> work);
  // Under mu_: whether (job_id, epoch) was already ended here.
  bool EndedLocked(uint32_t job_id, uint64_t epoch) const;
  void RememberEndedLocked(uint32_t job_id, uint64_t epoch);
  // Under mu_: the entry to use for a new request, or the error.
  Result<Entry*> EntryForLocked(const gantry::v1::JobContext& context);

  void RunProlog(uint32_t job_id, uint64_t epoch);
  // Starts the script (under a keeper when there is one: `keeper` gets it); the message of a
  // launch failure otherwise.
  Result<JobProcesses> StartBatch(const gantry::v1::JobContext& context,
                                  const gantry::v1::JobPayload& payload,
                                  const NodeSettings& settings, RecordedProcess* keeper);
  // Waits for the script's end and reports it (BATCH_ENDED). `keeper`: its parent (pid 0 = the
  // script is our child); `adopted`: the keeper was started by an earlier agent.
  void WaitBatch(uint32_t job_id, uint64_t epoch, const JobProcesses& procs, RecordedProcess keeper,
                 bool adopted);
  // Under mu_: writes the entry's record to the spool (not once it is ending: its end removes it).
  void SaveRecordLocked(Entry* entry);
  // The tasks of a step on this node: their identity, environment, cgroups (the job's, and
  // `fence`: FenceGpus' answer) and programs.
  StepPlan PlanStep(const gantry::v1::LaunchTasksRequest& request, const UserInfo& user,
                    const NodeSettings& settings, const std::string& cgroup,
                    const std::vector<std::string>& fence) const;
  // The step's runner: RunStep, then forgets the step.
  void RunStepTasks(uint32_t job_id, StepPlan plan, const std::shared_ptr<StepControl>& control);
  // Has gantry-stepd run the step, then follows it (below).
  void RunKeptStep(uint32_t job_id, uint32_t step_id, const StepPlan& plan,
                   const std::shared_ptr<KeptStep>& kept);
  // Keeps `step` in the job record while it runs (under this agent's gantry-stepd or a previous
  // one's), then forgets it: record, FIFO and the job's list of steps.
  void FollowKeptStep(uint32_t job_id, RecordedStep step, const std::shared_ptr<KeptStep>& kept);
  void RunTerminate(uint32_t job_id, uint64_t report_epoch, std::chrono::milliseconds kill_wait);
  // Under mu_: marks the entry terminating and starts the termination.
  void BeginTerminateLocked(Entry* entry, uint64_t report_epoch,
                            std::chrono::milliseconds kill_wait);

  const JobManagerOptions options_;
  ReportSink* const sink_;
  const Spool spool_;
  const std::optional<CgroupTree> cgroups_;
  const std::vector<uint32_t> node_gpus_;    // NVIDIA GPUs found here, when they are fenced
  const std::optional<GpuFence> gpu_fence_;  // the v1 way, on hosts without v2 job cgroups
  std::optional<JobLimiter> limiter_;        // set once by Create; with cgroups_ only

  // For /metrics (atomics: observed without mu_).
  metrics::LatencyHistogram prolog_latency_;
  metrics::LatencyHistogram launch_latency_;
  metrics::LatencyHistogram step_launch_latency_;
  std::atomic<uint64_t> launches_{0};
  std::atomic<uint64_t> launch_failures_{0};

  mutable std::mutex mu_;
  std::condition_variable cv_;  // an entry changed, or a worker finished
  NodeSettings settings_;
  std::map<uint32_t, Entry> entries_;
  std::map<uint32_t, uint64_t> ended_;  // job id -> last epoch ended here
  std::deque<uint32_t> ended_order_;    // to bound ended_
  bool shutting_down_ = false;
  struct Worker {
    std::thread thread;
    std::shared_ptr<bool> done;  // guarded by mu_
  };
  std::list<Worker> workers_;
  int busy_ = 0;  // workers running
  // Runs the steps' tasks; set once by Create when options_.stepd_path is set.
  std::unique_ptr<StepServer> stepd_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_JOB_MANAGER_H_
