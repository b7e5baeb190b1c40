// A job record (gantry.v1.Job) as slurmrestd v0.0.42's job_info (GET /slurm/v0.0.42/jobs and
// /job/{id}), written straight into a JsonOut: one pass, no DOM, ~100 members a job.
//
// Members carry the values squeue and scontrol show print (the same slurm_view functions):
// job_state is the base state then its flags (["RUNNING","COMPLETING"]), state_reason the
// pending reason code, times are "no value" structs of Unix seconds (unset when 0), time limits
// minutes (infinite for UNLIMITED), memory MiB. Values Gantry does not keep are written as
// slurmrestd writes them for a job without them ("", 0, [], unset).
// Pure functions; thread-safe.
#ifndef GANTRY_REST_JOB_JSON_H_
#define GANTRY_REST_JOB_JSON_H_

#include <string_view>

#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "rest/json_out.h"

namespace gantry::rest {

// One job_info object.
void WriteJobInfo(const v1::Job& job, std::string_view cluster, JsonOut& out);

// slurmrestd's process_exit_code_verbose for a raw wait status (`ended` false: PENDING).
void WriteExitCode(int32_t wait_status, bool ended, JsonOut& out);

// The job_state array: the base state, then each flag ("RUNNING","COMPLETING").
void WriteJobStateArray(const v1::Job& job, JsonOut& out);

}  // namespace gantry::rest

#endif  // GANTRY_REST_JOB_JSON_H_
