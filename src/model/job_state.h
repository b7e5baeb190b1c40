// Job states, exactly as Slurm 22.05 names, shows and parses them
// (src/common/slurm_protocol_defs.c: job_state_string, job_state_string_compact,
// job_state_string_complete, job_state_num; squeue(1) JOB STATE CODES).
//
// A job state is a base state plus flags. Some flags are shown instead of the base state by
// squeue %T/%t, scontrol's JobState= and sacct's State, in this precedence:
//   COMPLETING CG, STAGE_OUT SO, CONFIGURING CF, RESIZING RS, REQUEUED RQ, REQUEUE_FED RF,
//   REQUEUE_HOLD RH, SPECIAL_EXIT SE, STOPPED ST, REVOKED RV, RESV_DEL_HOLD RD, SIGNALING SI.
// The other flags (LAUNCH_FAILED, UPDATE_DB, RECONFIG_FAIL, POWER_UP_NODE) are internal and only
// appear in the complete form.
//
// The legal changes of base state live in one table, kJobTransitions below.
// Pure functions; thread-safe.
#ifndef GANTRY_MODEL_JOB_STATE_H_
#define GANTRY_MODEL_JOB_STATE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::model {

// Slurm's enum job_states, same order and values.
enum class JobBaseState : uint8_t {
  kPending = 0,  // PD: queued, waiting to start
  kRunning,      // R: allocated (possibly still configuring)
  kSuspended,    // S: stopped, resources kept or handed to a preemptor
  kCompleted,    // CD: all processes exited 0
  kCancelled,    // CA: scancel or an administrator
  kFailed,       // F: non-zero exit or other failure
  kTimeout,      // TO: time limit reached
  kNodeFail,     // NF: an allocated node failed
  kPreempted,    // PR: ended by preemption
  kBootFail,     // BF: a node failed to boot
  kDeadline,     // DL: --deadline passed
  kOutOfMemory,  // OOM: killed for exceeding its memory
};
inline constexpr int kJobBaseStateCount = 12;

// Slurm's SIG_OOM: the wait status a batch script or task gets when its cgroup saw an OOM kill
// (its low byte; sacct prints it as exit code 0:125). The job then ends OUT_OF_MEMORY.
inline constexpr int kWaitStatusOom = 253;

// How a batch script's wait status ends its job: COMPLETED for exit 0, OUT_OF_MEMORY for
// kWaitStatusOom, FAILED otherwise (as slurmctld's job_complete).
inline JobBaseState EndStateOfBatch(int wait_status) {
  if (wait_status == 0) return JobBaseState::kCompleted;
  if ((wait_status & 0xff) == kWaitStatusOom) return JobBaseState::kOutOfMemory;
  return JobBaseState::kFailed;
}

// Every base state, in enum order.
inline constexpr std::array<JobBaseState, kJobBaseStateCount> kAllJobBaseStates = {
    JobBaseState::kPending,   JobBaseState::kRunning,   JobBaseState::kSuspended,
    JobBaseState::kCompleted, JobBaseState::kCancelled, JobBaseState::kFailed,
    JobBaseState::kTimeout,   JobBaseState::kNodeFail,  JobBaseState::kPreempted,
    JobBaseState::kBootFail,  JobBaseState::kDeadline,  JobBaseState::kOutOfMemory,
};

// Slurm's JOB_* flag bits (same values).
enum class JobFlag : uint32_t {
  kLaunchFailed = 0x00000100,
  kUpdateDb = 0x00000200,
  kRequeue = 0x00000400,  // REQUEUED
  kRequeueHold = 0x00000800,
  kSpecialExit = 0x00001000,
  kResizing = 0x00002000,
  kConfiguring = 0x00004000,
  kCompleting = 0x00008000,
  kStopped = 0x00010000,
  kReconfigFail = 0x00020000,
  kPowerUpNode = 0x00040000,
  kRevoked = 0x00080000,
  kRequeueFed = 0x00100000,
  kResvDelHold = 0x00200000,
  kSignaling = 0x00400000,
  kStageOut = 0x00800000,
};

struct JobState {
  JobBaseState base = JobBaseState::kPending;
  uint32_t flags = 0;  // bitwise OR of JobFlag values

  bool Has(JobFlag flag) const { return (flags & static_cast<uint32_t>(flag)) != 0; }
  JobState& Set(JobFlag flag) {
    flags |= static_cast<uint32_t>(flag);
    return *this;
  }
  JobState& Clear(JobFlag flag) {
    flags &= ~static_cast<uint32_t>(flag);
    return *this;
  }

  friend bool operator==(const JobState&, const JobState&) = default;
};

// "PENDING", "OUT_OF_MEMORY" / "PD", "OOM".
std::string_view JobBaseStateName(JobBaseState state);
std::string_view JobBaseStateCode(JobBaseState state);

// "COMPLETING", "REQUEUED", "LAUNCH_FAILED" / "CG", "RQ"; the code is "" for internal flags.
std::string_view JobFlagName(JobFlag flag);
std::string_view JobFlagCode(JobFlag flag);

// What squeue %T, scontrol JobState= and sacct State show: the first displayed flag in
// precedence order, else the base state ("COMPLETING" for RUNNING+COMPLETING).
std::string_view JobStateName(const JobState& state);
// Same for squeue %t ("CG", "PD", "OOM").
std::string_view JobStateCode(const JobState& state);
// Base state then every flag, comma-separated ("RUNNING,COMPLETING,REQUEUED";
// job_state_string_complete).
std::string JobStateComplete(const JobState& state);

// Pending, active (started and not finished: RUNNING, SUSPENDED) and finished (every other base
// state: Slurm's IS_JOB_FINISHED) partition the base states.
bool IsPending(JobBaseState state);
bool IsActive(JobBaseState state);
bool IsFinished(JobBaseState state);
// Finished and done with clean-up (Slurm's IS_JOB_COMPLETED: finished without COMPLETING).
bool IsCompleted(const JobState& state);

// One state named by a user (squeue -t, sacct -s, scancel -t): a base state or a flag.
struct JobStateSelector {
  bool is_flag = false;
  JobBaseState base = JobBaseState::kPending;  // when !is_flag
  JobFlag flag = JobFlag::kCompleting;         // when is_flag

  friend bool operator==(const JobStateSelector&, const JobStateSelector&) = default;
};

// Slurm's job_state_num: the long or short name of a base state ("running", "R", "oom") or of a
// displayed flag ("COMPLETING", "cg", "REQUEUED", "RQ", "REQUEUE_HOLD"...), case-insensitive,
// whole word. Errors list the valid names.
Result<JobStateSelector> ParseJobStateSelector(std::string_view text);

// sacct -s takes the same names but refuses the states the accounting database does not keep
// ("job state CG is not supported / accounted"): it accepts every base state and the flags
// REQUEUED, RESIZING and REVOKED (sacct's _supported_state).
bool SacctSupportsJobState(const JobStateSelector& selector);

// The argument of squeue -t: comma-separated selectors (empty items skipped, as Slurm does), or
// "all" (any case) for every job.
struct JobStateFilter {
  bool all = false;
  std::vector<JobStateSelector> selectors;

  // squeue's rule: a flag selector matches a job with that flag; a base selector matches a job
  // in that base state with no flags besides UPDATE_DB (so -t R does not list a RUNNING job that
  // is COMPLETING; -t CG does).
  bool Matches(const JobState& state) const;
};
Result<JobStateFilter> ParseJobStateFilter(std::string_view text);

// squeue without -t: pending, running, suspended, completing and staging-out jobs.
bool IsShownBySqueueByDefault(const JobState& state);

// One legal change of base state, with what causes it.
struct JobTransition {
  JobBaseState from;
  JobBaseState to;
  std::string_view cause;
};

// THE table of legal base-state changes. A change of flags alone (COMPLETING, REQUEUE_HOLD...)
// is not a transition. Staying in the same state is not a transition either.
inline constexpr JobTransition kJobTransitions[] = {
    {JobBaseState::kPending, JobBaseState::kRunning, "resources allocated"},
    {JobBaseState::kPending, JobBaseState::kCancelled, "scancel, or a dependency never satisfied"},
    {JobBaseState::kPending, JobBaseState::kFailed, "rejected before start (e.g. launch failure)"},
    {JobBaseState::kPending, JobBaseState::kDeadline, "--deadline can no longer be met"},

    {JobBaseState::kRunning, JobBaseState::kSuspended, "scontrol suspend, gang or preemption"},
    {JobBaseState::kRunning, JobBaseState::kCompleted, "every process exited 0"},
    {JobBaseState::kRunning, JobBaseState::kCancelled, "scancel"},
    {JobBaseState::kRunning, JobBaseState::kFailed, "non-zero exit or launch failure"},
    {JobBaseState::kRunning, JobBaseState::kTimeout, "time limit reached"},
    {JobBaseState::kRunning, JobBaseState::kNodeFail, "an allocated node failed"},
    {JobBaseState::kRunning, JobBaseState::kPreempted, "preempted (PreemptMode=CANCEL)"},
    {JobBaseState::kRunning, JobBaseState::kBootFail, "a node failed to boot while configuring"},
    {JobBaseState::kRunning, JobBaseState::kDeadline, "--deadline reached"},
    {JobBaseState::kRunning, JobBaseState::kOutOfMemory, "killed by the OOM handler"},
    {JobBaseState::kRunning, JobBaseState::kPending,
     "requeue (scontrol requeue, node failure, preemption, prolog failure)"},

    {JobBaseState::kSuspended, JobBaseState::kRunning, "scontrol resume, gang or preemptor done"},
    {JobBaseState::kSuspended, JobBaseState::kCompleted, "its processes ended while stopped"},
    {JobBaseState::kSuspended, JobBaseState::kCancelled, "scancel"},
    {JobBaseState::kSuspended, JobBaseState::kFailed, "its processes were killed while stopped"},
    {JobBaseState::kSuspended, JobBaseState::kPreempted, "preempted while suspended"},
    {JobBaseState::kSuspended, JobBaseState::kNodeFail, "an allocated node failed"},
    {JobBaseState::kSuspended, JobBaseState::kPending, "requeue (the job is then held)"},

    // Finished batch jobs can be requeued while slurmctld still knows them (MinJobAge).
    {JobBaseState::kCompleted, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kCancelled, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kFailed, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kTimeout, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kNodeFail, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kPreempted, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kBootFail, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kDeadline, JobBaseState::kPending, "requeue of a finished job"},
    {JobBaseState::kOutOfMemory, JobBaseState::kPending, "requeue of a finished job"},
};

// The table row for from -> to, if the change is legal.
std::optional<JobTransition> FindJobTransition(JobBaseState from, JobBaseState to);

// OK when the table allows from -> to; otherwise FailedPrecondition naming both states and the
// states `from` may change to, e.g.
//   job state PENDING cannot change to COMPLETED (PENDING may change to RUNNING, CANCELLED,
//   FAILED or DEADLINE)
Status CheckJobTransition(JobBaseState from, JobBaseState to);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_JOB_STATE_H_
