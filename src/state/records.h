// Typed views of the state fields of the v1::Job and v1::Node records, which store Slurm's base
// state and flag bits as plain integers (model::JobState / model::NodeState).
// Pure; thread-safe.
#ifndef GANTRY_STATE_RECORDS_H_
#define GANTRY_STATE_RECORDS_H_

#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"
#include "model/job_state.h"
#include "model/node_state.h"

namespace gantry::state {

inline model::JobState JobStateOf(const v1::Job& job) {
  return model::JobState{static_cast<model::JobBaseState>(job.state()), job.state_flags()};
}

inline void SetJobState(v1::Job* job, const model::JobState& state) {
  job->set_state(static_cast<uint32_t>(state.base));
  job->set_state_flags(state.flags);
}

inline bool IsPendingJob(const v1::Job& job) {
  return job.state() == static_cast<uint32_t>(model::JobBaseState::kPending);
}

// RUNNING or SUSPENDED: the job holds its nodes.
inline bool IsActiveJob(const v1::Job& job) { return model::IsActive(JobStateOf(job).base); }

inline model::NodeState NodeStateOf(const v1::Node& node) {
  return model::NodeState{static_cast<model::NodeBaseState>(node.state()), node.state_flags()};
}

inline void SetNodeState(v1::Node* node, const model::NodeState& state) {
  node->set_state(static_cast<uint32_t>(state.base));
  node->set_state_flags(state.flags);
}

}  // namespace gantry::state

#endif  // GANTRY_STATE_RECORDS_H_
