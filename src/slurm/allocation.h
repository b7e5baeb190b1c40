// An allocation of one's own, as salloc and srun outside a job make it: an allocation-only job
// (JobRequest.allocation_only: no batch script) submitted from sbatch-style options, waited for
// until it runs with its prologs done, and released with the exit status of what ran in it.
//
// Messages, as Slurm prints them on stderr with the command's prefix ("salloc: ", "srun: "):
//   salloc  "Pending job allocation N" (only when it does not start at once), "job N queued and
//           waiting for resources", "job N has been allocated resources", "Granted job
//           allocation N", "Waiting for resource configuration" (while prologs run), "Nodes X
//           are ready for job"; at the end "Relinquishing job allocation N";
//   srun    only "job N queued and waiting for resources" / "job N has been allocated
//           resources" when it had to wait.
// A job that ends or is cancelled before it runs: "Job allocation N has been revoked" (salloc
// with a period, and "Job aborted due to signal" when interrupted). A refused submission:
// Slurm's detail lines, then "Job submit/allocate failed: X" (salloc) or "Unable to allocate
// resources: X" (srun).
// `interrupted` is polled while waiting: when it returns true the job is cancelled.
#ifndef GANTRY_SLURM_ALLOCATION_H_
#define GANTRY_SLURM_ALLOCATION_H_

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "gantry/v1/controller.pb.h"
#include "slurm/command_context.h"
#include "slurm/controller_client.h"
#include "slurm/sbatch_options.h"

namespace gantry::slurm {

enum class AllocationStyle { kSalloc, kSrun };

// The submission for `options` (sbatch's BuildSubmitRequest with no script), allocation only.
v1::SubmitJobRequest AllocationRequest(const SbatchOptions& options, const std::string& name,
                                       const CommandContext& ctx);

// Submits and waits; the running job's record, or an error already printed (its message is the
// text printed).
Result<v1::Job> AcquireAllocation(ControllerClient& client, const v1::SubmitJobRequest& request,
                                  AllocationStyle style, CommandContext& ctx,
                                  const std::function<bool()>& interrupted);

// Ends the allocation: COMPLETED with wait status 0, else FAILED with it (salloc also says
// "Relinquishing job allocation N").
void ReleaseAllocation(ControllerClient& client, uint32_t job_id, int wait_status,
                       AllocationStyle style, CommandContext& ctx);

// The environment salloc's command and srun's tasks get for an allocation (SLURM_JOB_ID,
// SLURM_JOBID, SLURM_JOB_NODELIST, SLURM_NODELIST, SLURM_JOB_NUM_NODES, SLURM_NNODES,
// SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE, SLURM_NTASKS/SLURM_NPROCS (with -n),
// SLURM_JOB_PARTITION, SLURM_JOB_ACCOUNT, SLURM_JOB_QOS, SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST,
// SLURM_JOB_NAME, SLURM_MEM_PER_CPU/NODE, SLURM_CLUSTER_NAME when known), "K=V" each.
std::vector<std::string> AllocationEnvironment(const v1::Job& job, const CommandContext& ctx);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_ALLOCATION_H_
