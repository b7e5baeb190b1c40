// `gantry explain JOBID` (beyond Slurm): why a job is where it is, in plain words, from the
// records the controller serves (jobs, nodes, partitions):
//  * a running job: where, since when, how long it may still run;
//  * a finished job: how it ended;
//  * a pending job: its reason spelled out with the facts behind it (the hold and who may
//    release it, the begin time, each open dependency term and the state of the job it names,
//    the partition limit it exceeds, the down or drained nodes it asked for, the running tasks
//    that fill an array's throttle, the higher-priority jobs ahead of it), when it can be
//    expected to start where that is computable (whole nodes: when enough of the busy nodes'
//    jobs reach their time limits), and what would let it run.
// ExplainJob is pure; thread-safe.
#ifndef GANTRY_SLURM_EXPLAIN_H_
#define GANTRY_SLURM_EXPLAIN_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/job.pb.h"
#include "slurm/controller_client.h"
#include "text/array_spec.h"

namespace gantry::slurm {

struct ExplainInput {
  const v1::Job* job = nullptr;      // the job to explain (an array task may be a view)
  std::vector<const v1::Job*> jobs;  // every job the controller holds
  const v1::GetNodesReply* nodes = nullptr;
  UnixTime now = 0;
  const TimeZone* tz = nullptr;
};

// Lines of text, each ending in '\n'.
std::string ExplainJob(const ExplainInput& in);

// Not pure: loads the jobs and nodes from `client` (as its caller sees them) and explains job `id`
// (one array task when `id` names one), from the archive when the controller no longer holds it.
// NotFound ("Invalid job id specified") when there is no such job; `now` when the controller does
// not say its time. `gantry explain` and gantry-restd's /gantry/v1/job/{id}/explain use it.
Result<std::string> LoadAndExplain(ControllerClient& client, const text::ParsedJobId& id,
                                   UnixTime now, const TimeZone& tz);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_EXPLAIN_H_
