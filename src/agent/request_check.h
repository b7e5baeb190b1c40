// Validation of the requests the Agent service receives. Every error is InvalidArgument and
// names the field, the value and the rule, e.g.
//   "context.job.nodes: this node (n3) is not among the job's nodes (n[1-2])".
// The controller is trusted to be honest but not to be bug-free: nothing in a request may crash
// the agent or make it act on another node's behalf.
//
// Pure functions; thread-safe.
#ifndef GANTRY_AGENT_REQUEST_CHECK_H_
#define GANTRY_AGENT_REQUEST_CHECK_H_

#include <string_view>

#include "base/status.h"
#include "gantry/v1/agent.pb.h"

namespace gantry::agent {

// The largest kill_wait_sec accepted (Slurm's KillWait limit).
inline constexpr uint32_t kMaxKillWaitSec = 65533;

// A job context for this node: job id set, this node in the job's node list at node_index,
// well-formed extra_env. `field` prefixes field names ("context").
Status CheckJobContext(const gantry::v1::JobContext& context, std::string_view node,
                       std::string_view field);

Status CheckPrepareJob(const gantry::v1::PrepareJobRequest& request, std::string_view node);
// Also: this node is the batch host (the job's first node), the script is not empty, the
// environment is "K=V" entries, work_dir is absolute, file patterns and script arguments have no
// NUL byte.
Status CheckLaunchBatch(const gantry::v1::LaunchBatchRequest& request, std::string_view node);
// job_id set, signal a real signal number (1..SIGRTMAX).
// A step's tasks on this node: a valid context, a command, NAME=VALUE environment, srun's
// address and key, a step node list naming this node at step_node_index with that many
// tasks, and task ids.
Status CheckLaunchTasks(const gantry::v1::LaunchTasksRequest& request, std::string_view node);

Status CheckSignalJob(const gantry::v1::SignalJobOnNodeRequest& request);
// job_id set, kill_wait_sec <= kMaxKillWaitSec; a context, when given, is for the same job and
// well-formed (its node list is not checked: the epilog runs wherever the controller asks).
Status CheckTerminateJob(const gantry::v1::TerminateJobRequest& request);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_REQUEST_CHECK_H_
