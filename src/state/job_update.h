// `scontrol update JobId=N Key=Value...`: the job record after the changes, checked the way
// slurmctld checks them. Keys (any case): TimeLimit, JobName/Name, Nice, Comment, and for
// pending jobs only Partition, StartTime/BeginTime, NumNodes, Dependency, QOS, Account.
//
// Rules (Slurm 22.05's, as the anchor shows them): the job's owner or an operator may update;
// a negative Nice needs an operator; a running job's TimeLimit may only be lowered by its owner
// (an operator may raise it); pending-only keys on a started job fail with "Job is no longer
// pending execution". Errors are Slurm's texts: "Invalid user id" (neither owner nor operator),
// "Access/permission denied" (a negative Nice, a raised limit), "Invalid partition
// name specified", "Invalid time limit specified", "Invalid nice value", "Job dependency
// problem", "Invalid node count specified", "Update of this parameter is not supported: K=V".
// The job's texts afterwards follow a submission's rules (admission.h: CheckRequestLengths,
// CheckRequestTexts).
// Priority follows Nice for a pending job that is not held.
// Pure; thread-safe.
#ifndef GANTRY_STATE_JOB_UPDATE_H_
#define GANTRY_STATE_JOB_UPDATE_H_

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "state/cluster_state.h"

namespace gantry::state {

struct JobUpdateContext {
  bool operator_caller = false;  // root or the cluster's user
  bool caller_owns_job = false;
  int64_t now = 0;
  const TimeZone* time_zone = nullptr;  // StartTime=; required
};

Result<v1::Job> UpdateJobFields(const ClusterState& state, const v1::Job& job,
                                const std::map<std::string, std::string>& fields,
                                const JobUpdateContext& context);

}  // namespace gantry::state

#endif  // GANTRY_STATE_JOB_UPDATE_H_
