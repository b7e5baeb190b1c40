// What the job ids users type name in the cluster state (scancel, scontrol hold/update/...):
//   N          job N; when N is an array's id, every record of the array
//   N_T        task T of array N (also `N_[T]`)
//   N_[list]   those tasks (`1-3,7`, text/array_spec.h)
//   N_*        every record of array N
// A task still waiting in the array's record is named by that record plus the task id; a task
// split off is its own record. Pure; thread-safe (reads the state only).
#ifndef GANTRY_STATE_JOB_IDS_H_
#define GANTRY_STATE_JOB_IDS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"
#include "state/cluster_state.h"

namespace gantry::state {

struct JobTarget {
  const v1::Job* job = nullptr;
  // Set when the target is one task still pending in the array record `job`.
  std::optional<uint32_t> pending_task;
};

// The records a typed id names, in id order (an array's own record first). Errors:
// InvalidArgument "Invalid job id specified" for text that is not a job id, NotFound with the
// same text when nothing in the state matches.
Result<std::vector<JobTarget>> ResolveJobId(const ClusterState& state, std::string_view text);

}  // namespace gantry::state

#endif  // GANTRY_STATE_JOB_IDS_H_
