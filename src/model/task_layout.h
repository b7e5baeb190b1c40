// Where a step's tasks run: how many on each node and which ranks, as Slurm's
// slurm_step_layout_create lays them out (no CR_PACK_NODES), and Slurm's compressed form of
// per-node counts. Pure; thread-safe.
#ifndef GANTRY_MODEL_TASK_LAYOUT_H_
#define GANTRY_MODEL_TASK_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::model {

enum class TaskDistribution { kBlock, kCyclic, kPlane };

// srun -m: its first level ("block", "cyclic", "plane=N"; "*" = block), the rest ignored.
struct Distribution {
  TaskDistribution kind = TaskDistribution::kBlock;
  uint32_t plane_size = 0;  // kPlane only

  // "block", "cyclic" or "plane=N", as the step records it (ParseDistribution reads it back).
  std::string ToString() const;
};
// nullopt for anything else (an arbitrary distribution, a plane of 0).
std::optional<Distribution> ParseDistribution(std::string_view text);

// Tasks per node of a plane distribution: blocks of `plane_size` dealt out to the nodes in
// turn until the tasks run out (Slurm's _task_layout_plane).
std::vector<uint32_t> PlaneTaskLayout(uint32_t num_tasks, uint32_t nodes, uint32_t plane_size);

// Slurm's compressed count list (uint32_compressed_to_str / uint16_array_to_str): runs of equal
// values as "V(xN)", single values as "V", joined by ',': {4,4} -> "4(x2)", {3,2} -> "3,2".
std::string FormatCountsPerNode(const std::vector<uint32_t>& counts);

// Tasks per node: rounds over the nodes, one task per node per round while the round number is
// below the node's capacity (cpus / cpus_per_task), then over-subscribing evenly. Block and
// cyclic give the same counts; they differ in which ranks go where (TaskRanks).
std::vector<uint32_t> BlockTaskLayout(uint32_t num_tasks, const std::vector<uint32_t>& cpus,
                                      uint32_t cpus_per_task);

// The global ranks on each node for per-node counts: block gives each node a consecutive run
// (node 0 ranks 0..c0-1, ...); cyclic deals them out one per node per round, skipping nodes
// whose count is reached.
// plane deals out blocks of `plane_size` consecutive ranks the same way.
std::vector<std::vector<uint32_t>> TaskRanks(const std::vector<uint32_t>& counts,
                                             TaskDistribution distribution,
                                             uint32_t plane_size = 1);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_TASK_LAYOUT_H_
