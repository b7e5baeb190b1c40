// Where a step that srun launches through the agents runs inside its job's allocation: its
// nodes, how many tasks each runs and which ranks, from srun's -n, -N, --ntasks-per-node, -c,
// -m and -w (v1::JobStepRequest). Slurm's rules, inside the job's nodes:
//   nodes   -w's nodes (each must be the job's; in the job's order) or the job's; -N takes the
//           first N of them; unset: as many as tasks (at most all), or all without -n, or
//           ceil(n / ntasks-per-node) with both;
//   tasks   -n; unset: ntasks-per-node x nodes, else one per node; at most kMaxTasksPerNode
//           per node;
//   layout  --ntasks-per-node caps each node; else model::BlockTaskLayout over the job's CPUs
//           per node and -c; ranks by block (default) or cyclic (-m cyclic...).
// Errors (InvalidArgument) carry Slurm's text "Requested node configuration is not available"
// after the rule that failed, e.g. "-N 3 but the job has 2 nodes".
// Pure; thread-safe.
#ifndef GANTRY_STATE_STEP_PLAN_H_
#define GANTRY_STATE_STEP_PLAN_H_

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/job.pb.h"

namespace gantry::state {

struct StepPlacement {
  // nodes, tasks_per_node, distribution, cpus_per_task, node (the first), num_tasks, num_cpus
  // set; the caller sets the id, name, times and state.
  v1::JobStep step;
  std::vector<std::vector<uint32_t>> ranks;  // per step node
  std::vector<uint32_t> job_node_index;      // per step node: its place in job.nodes
};

// Slurm's default MaxTasksPerNode: a step may not run more tasks than this on each node.
inline constexpr uint32_t kMaxTasksPerNode = 512;

Result<StepPlacement> PlaceStep(const v1::Job& job, const v1::JobStepRequest& request);

}  // namespace gantry::state

#endif  // GANTRY_STATE_STEP_PLAN_H_
