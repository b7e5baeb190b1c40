// What a scheduling pass changes in job records without an event: priorities
// (priority/multifactor), pending reasons, expected starts and dependency status. They are
// recomputed by every pass, so they are kept in memory only and never logged.
//
// ApplyVolatile is the one way to change them: it keeps the pending index in order and records
// each job it changes in ClusterState::changed_jobs, as Apply does for events.
#ifndef GANTRY_STATE_VOLATILE_UPDATES_H_
#define GANTRY_STATE_VOLATILE_UPDATES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "state/cluster_state.h"

namespace gantry::state {

struct VolatileUpdates {
  // New priorities of pending jobs (job id, priority). With all_priorities (a full
  // recalculation) they are in job id order and the pending index is rebuilt in one go.
  std::vector<std::pair<uint32_t, uint32_t>> priorities;
  bool all_priorities = false;
  // The pass read ClusterState::entered_pending: it starts empty again.
  bool clear_entered_pending = false;
  // Pending reasons, each stamped as evaluated at `evaluated_at` (Job.last_sched_eval).
  std::vector<std::pair<uint32_t, std::string>> reasons;
  int64_t evaluated_at = 0;
  // Expected start times (0: none planned).
  std::vector<std::pair<uint32_t, int64_t>> expected_starts;
  // Job.dependency_status.
  std::vector<std::pair<uint32_t, std::string>> dependency_status;

  bool empty() const {
    return priorities.empty() && !all_priorities && !clear_entered_pending && reasons.empty() &&
           expected_starts.empty() && dependency_status.empty();
  }
};

// Applies `updates` to `state`; ids of jobs it no longer holds are skipped.
void ApplyVolatile(ClusterState* state, const VolatileUpdates& updates);

}  // namespace gantry::state

#endif  // GANTRY_STATE_VOLATILE_UPDATES_H_
