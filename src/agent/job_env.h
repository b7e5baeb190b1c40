// The environments the agent starts things with: the batch script's (as Slurm 22.05's
// env_array_for_batch_job + slurmstepd build it; see ../shared/anchors/slurm/outputs/env-*.txt)
// and the prolog/epilog scripts' (as slurmd's prolog environment).
//
// Batch environment, in this order, later entries replacing earlier ones of the same name (the
// first position of a name is kept):
//   1. payload.environment (what sbatch sent, --export applied);
//   2. HOME, USER, LOGNAME, SHELL from the user's passwd entry, only when (1) lacks them
//      (--export=NONE);
//   3. cluster-level values the agent learnt at registration: SLURM_CLUSTER_NAME, SLURM_CONF and
//      GANTRY_CONF (conf_path), SLURM_WORKING_CLUSTER ("<cluster>:<host>:<port>:9728:109", the
//      last two being Slurm 22.05's protocol version and select/cons_tres plugin id);
//   4. the job- and node-derived SLURM_* variables (SLURM_JOB_ID, SLURM_JOB_NODELIST,
//      SLURM_TASKS_PER_NODE, SLURM_MEM_PER_CPU, SLURMD_NODENAME, ENVIRONMENT=BATCH, ...);
//   5. context.extra_env (cluster-level "K=V" from the controller).
// SLURM_TASK_PID (the script's pid) is not included: the launcher adds it in the child.
//
// Pure functions; thread-safe.
#ifndef GANTRY_AGENT_JOB_ENV_H_
#define GANTRY_AGENT_JOB_ENV_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/v1/agent.pb.h"
#include "gantry/v1/job.pb.h"

namespace gantry::agent {

// What the agent knows about itself and its cluster (from RegisterReply).
struct NodeEnv {
  std::string node_name;           // SLURMD_NODENAME, SLURM_TOPOLOGY_ADDR, HOSTNAME, %N
  std::string cluster_name;        // SLURM_CLUSTER_NAME
  std::string conf_path;           // SLURM_CONF and GANTRY_CONF; unset when empty
  std::string controller_address;  // "host:port", for SLURM_WORKING_CLUSTER; unset when empty
};

// The job user's passwd entry.
struct UserEnv {
  std::string name;
  std::string home;
  std::string shell;
};

// Slurm's compressed count list (uint32_compressed_to_str / uint16_array_to_str): runs of equal
// values as "V(xN)", single values as "V", joined by ',': {4,4} -> "4(x2)", {3,2} -> "3,2".
std::string FormatCountsPerNode(const std::vector<uint32_t>& counts);

// Tasks per node of Slurm's block layout (slurm_step_layout_create, SLURM_DIST_BLOCK, no
// CR_PACK_NODES): rounds over the nodes, one task per node per round while the round number is
// below the node's capacity (cpus / cpus_per_task), then over-subscribing evenly.
std::vector<uint32_t> BlockTaskLayout(uint32_t num_tasks, const std::vector<uint32_t>& cpus,
                                      uint32_t cpus_per_task);

// The batch script's environment ("K=V" each), see the header comment.
std::vector<std::string> BuildBatchEnvironment(const gantry::v1::JobContext& context,
                                               const gantry::v1::JobPayload& payload,
                                               const NodeEnv& node, const UserEnv& user);

enum class ScriptKind { kProlog, kEpilog };

// A prolog's or epilog's environment (run as root): PATH, SLURM_SCRIPT_CONTEXT
// (prolog_slurmd/epilog_slurmd), SLURM_JOB_ID, SLURM_JOBID, SLURM_JOB_USER, SLURM_JOB_UID,
// SLURM_JOB_GID, SLURM_JOB_NAME, SLURM_JOB_NODELIST, SLURM_JOB_PARTITION, SLURM_JOB_ACCOUNT,
// SLURM_JOB_CONSTRAINTS, SLURM_JOB_WORK_DIR, SLURMD_NODENAME, SLURM_CLUSTER_NAME, SLURM_CONF,
// GANTRY_CONF, then context.extra_env. Fields the context does not have are left out, except
// SLURM_JOB_ID, which `job_id` always gives (an epilog may run for a job never seen here).
std::vector<std::string> BuildScriptEnvironment(ScriptKind kind, uint32_t job_id,
                                                const gantry::v1::JobContext& context,
                                                const NodeEnv& node);

// The value of `name` in a "K=V" list (the last one), or nullopt.
std::optional<std::string> EnvValue(const std::vector<std::string>& env, std::string_view name);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_JOB_ENV_H_
