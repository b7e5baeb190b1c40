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
//   5. context.extra_env (cluster-level "K=V" from the controller);
//   6. MASTER_ADDR (context.first_node_host) and MASTER_PORT (MasterPortOf), unless set by (1).
// GPUs: SLURM_GPUS_ON_NODE, SLURM_JOB_GPUS, CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL list
// the job's device indices on this node (JobGpusOnNode), as Slurm sets them without
// ConstrainDevices.
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

// MASTER_PORT for a job (PyTorch's rendezvous port): 12000 + job id mod 20000, below Linux's
// ephemeral port range, so that two jobs sharing a first node rarely pick the same one.
uint32_t MasterPortOf(uint32_t job_id);

// The GPU device indices the job holds on its node_index-th node (Job.node_gpus; for records
// from before those, the node's first ones as many as it asks for).
std::vector<uint32_t> JobGpusOnNode(const gantry::v1::Job& job, uint32_t node_index);

// The batch script's environment ("K=V" each), see the header comment.
std::vector<std::string> BuildBatchEnvironment(const gantry::v1::JobContext& context,
                                               const gantry::v1::JobPayload& payload,
                                               const NodeEnv& node, const UserEnv& user);

// One task's environment for a step srun launched through the agents (Slurm 22.05's
// env_array_for_step + slurmstepd's task additions, see env-batch-2node-gpu-with-srun-steps.txt):
//   1. launch.environment (srun's, --export applied);
//   2. the job's SLURM_JOB_* values (so that a step of an salloc allocation has them too), the
//      cluster values and context.extra_env;
//   3. the step's: SLURM_STEP_ID/SLURM_STEPID, SLURM_STEP_NODELIST, SLURM_STEP_NUM_NODES,
//      SLURM_STEP_NUM_TASKS, SLURM_STEP_TASKS_PER_NODE, SLURM_NTASKS/SLURM_NPROCS,
//      SLURM_NNODES, SLURM_TASKS_PER_NODE, SLURM_DISTRIBUTION, SLURM_CPUS_PER_TASK (when set),
//      SLURM_SRUN_COMM_HOST/PORT, SLURM_STEP_LAUNCHER_PORT, SLURM_LAUNCH_NODE_IPADDR,
//      SLURM_CPU_BIND (when given);
//   4. the node's and the task's: SLURMD_NODENAME, SLURM_TOPOLOGY_ADDR(_PATTERN),
//      SLURM_CPUS_ON_NODE, SLURM_NODEID (the node's place in the step), SLURM_GTIDS (the ranks
//      here), SLURM_PROCID (the rank), SLURM_LOCALID (its place on the node);
//   5. GPUs: SLURM_GPUS_ON_NODE, SLURM_JOB_GPUS, SLURM_STEP_GPUS (the job's on this node) and
//      CUDA_VISIBLE_DEVICES/GPU_DEVICE_ORDINAL: those, or with launch.gpus_per_task = g the
//      task's own g of them (local id L gets the L*g-th to (L+1)*g-1-th, Slurm's
//      --gpu-bind=per_task:g that --gpus-per-task implies);
//   6. MASTER_ADDR/MASTER_PORT unless (1) has them.
std::vector<std::string> BuildStepEnvironment(const gantry::v1::LaunchTasksRequest& request,
                                              uint32_t rank, uint32_t local_id,
                                              const NodeEnv& node);

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
