// Values the Slurm commands derive from a job record (gantry.v1.Job), computed the way Slurm's
// commands compute them from their job_info_t, so that squeue, scontrol and later sacct print the
// same thing:
//  * TimeUsed: 0 while pending; the pre-suspend time while suspended; otherwise until now (or the
//    end) minus the start, counting from the last resume plus the pre-suspend time when the job
//    was suspended before (squeue's job_time_used / scontrol's RunTime);
//  * NodeCount: allocated nodes, or while pending the requested minimum (at least 1);
//  * Reason: the free-text state_desc when set, else the reason code, else "None";
//  * Std{out,err,in}Path: scontrol's expansion (%A %a %j %u %x; relative to WorkDir; defaults
//    WorkDir/slurm-<id>.out and /dev/null);
//  * Tres: the controller's TRES string, or cpu/mem/node/billing(=cpu)/gres derived from the
//    request and allocation.
// Time limits: 0 = not set, kInfiniteMinutes = UNLIMITED. Pure functions; thread-safe.
#ifndef GANTRY_SLURM_VIEW_JOB_VIEW_H_
#define GANTRY_SLURM_VIEW_JOB_VIEW_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "model/job_state.h"

namespace gantry::slurm {

inline constexpr uint32_t kInfiniteMinutes = 0xFFFFFFFFu;

model::JobState StateOf(const v1::Job& job);
bool IsPendingJob(const v1::Job& job);

// When the job started, or for a pending job when backfill plans to start it (0: not known).
UnixTime StartTimeOf(const v1::Job& job);
// Values that depend on `now` (a running job's time used) may take `stale_at`: the value may
// differ from the returned one from that time on. Such a function lowers *stale_at to that
// time when it is earlier (and leaves it alone for a value that does not change).
inline constexpr UnixTime kNeverStale = std::numeric_limits<UnixTime>::max();
inline void LowerStaleAt(UnixTime t, UnixTime* stale_at) {
  if (stale_at != nullptr && t < *stale_at) *stale_at = t;
}
int64_t TimeUsed(const v1::Job& job, UnixTime now, UnixTime* stale_at = nullptr);
uint32_t NodeCount(const v1::Job& job);
uint32_t CpuCount(const v1::Job& job);
uint32_t TaskCount(const v1::Job& job);
// The allocated nodes as a sorted hostlist ("gpu[1-2]"); "" when none.
std::string NodeList(const v1::Job& job);
std::string Reason(const v1::Job& job);
// user_name, else the uid as a number.
std::string UserLabel(const v1::Job& job);
std::string GroupLabel(const v1::Job& job);

// "YYYY-MM-DDTHH:MM:SS" in tz, or `zero_text` for 0.
std::string TimeText(UnixTime t, const TimeZone& tz, std::string_view zero_text);

// A raw wait status as Slurm's "exit:signal" ("0:0", "1:0", "0:9"); negative = not ended (0:0).
std::string ExitCodeText(int32_t wait_status);

// Job arrays. The id as squeue and scontrol print it: "12", a task "12_3", an array's record
// with its pending tasks "12_[3-5%2]" (throttle after '%' when set).
std::string JobIdText(const v1::Job& job);
// The task id ("3"), the array record's pending tasks ("3-5%2"), or "N/A" outside arrays.
std::string ArrayTaskText(const v1::Job& job);
// array_job_id, or the job id for a job outside arrays (squeue's %A / %F).
uint32_t ArrayJobIdOf(const v1::Job& job);
// An array record as one record per pending task (squeue -r); any other job as itself.
std::vector<v1::Job> ExpandArrayTasks(const v1::Job& job);

// Dependency= / squeue %E: the scheduler's status of the open terms ("afterok:12(unfulfilled)"),
// every term unfulfilled before the scheduler looked, "(null)" when there is none left.
std::string DependencyText(const v1::Job& job);

std::string StdoutPath(const v1::Job& job);
std::string StderrPath(const v1::Job& job);
std::string StdinPath(const v1::Job& job);

// TRES= / AllocTRES: allocated once started, else requested; billing as BillingCount.
std::string Tres(const v1::Job& job);
// The billing TRES count: Job.billing truncated (model/billing.h), its CPUs when unset.
int64_t BillingCount(const v1::Job& job);

// The GRES count per node in a "gpu:4" / "gres:gpu:4" / "gpu:b200:4" string; 0 when none.
uint64_t GresCount(std::string_view gres);
// "gpu" / "gpu:b200" part of such a string ("" when none).
std::string GresName(std::string_view gres);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_JOB_VIEW_H_
