// When a node's health checks run (Slurm's HealthCheckInterval and HealthCheckNodeState): at
// the agent's start always, then every interval while the node is in one of the states named.
// Pure functions; thread-safe.
#ifndef GANTRY_HEALTH_SCHEDULE_H_
#define GANTRY_HEALTH_SCHEDULE_H_

#include <chrono>
#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace gantry::health {

// HealthCheckNodeState: a comma list of ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE,
// START_ONLY (any case); "" = ANY.
struct NodeStates {
  bool any = false;
  bool alloc = false;
  bool idle = false;
  bool mixed = false;
  bool nondrained_idle = false;
  bool cycle = false;       // spread the nodes' runs over the interval instead of all at once
  bool start_only = false;  // only the run at the agent's start (Slurm 25.11's START_ONLY)
};
// InvalidArgument naming the word and the words allowed.
Result<NodeStates> ParseNodeStates(std::string_view text);

// Whether a periodic run happens on a node in model::NodeBaseState `state` with flags
// `state_flags`: ANY, or IDLE and the node idle, ALLOC and allocated, MIXED and mixed,
// NONDRAINED_IDLE and idle without DRAIN. No state named but CYCLE counts as ANY; START_ONLY
// runs none.
bool RunsInState(const NodeStates& states, uint32_t state, uint32_t state_flags);

// How long after the agent's start run the first periodic run comes: the interval, or with
// CYCLE the node's share of it (node `index` of `count` runs index/count of the way in, the
// first node one interval in), so that the cluster's nodes do not all check at once.
std::chrono::milliseconds FirstRunDelay(const NodeStates& states, uint32_t interval_sec,
                                        uint32_t index, uint32_t count);

}  // namespace gantry::health

#endif  // GANTRY_HEALTH_SCHEDULE_H_
