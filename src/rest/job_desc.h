// slurmrestd's job_desc_msg (the "job" of POST /slurm/v0.0.42/job/submit) as the submission sbatch
// would send: each member is given to sbatch's own option code (slurm/sbatch_options.h) as the
// option it stands for, so a value means what it means on sbatch's command line and a bad one
// is refused with sbatch's words; the request is then built by sbatch's BuildSubmitRequest.
//
// As slurmrestd: the script's #SBATCH lines are not read (the description says everything);
// `environment` is the job's whole environment (it is required, as slurmrestd requires it);
// `current_working_directory` is required too (slurmrestd has no cwd of its own to use).
// Numbers may come bare or as {"set","infinite","number"} structs; lists as arrays or as one
// comma-separated string. A member of the wrong type is an error naming it ("#/job/tasks");
// a member Gantry cannot honour is an error too (it would change what runs), except those that
// change nothing here (listed in job_desc.cc), which draw a warning.
// Pure functions; thread-safe.
#ifndef GANTRY_REST_JOB_DESC_H_
#define GANTRY_REST_JOB_DESC_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "rest/api.h"

namespace gantry::rest {

struct SubmitterContext {
  std::string hostname;  // SubmitHost / AllocNode: the REST daemon's host
  UnixTime now = 0;      // for begin times
  const TimeZone* time_zone = nullptr;
  // POST /job/allocate: an allocation without a script (salloc's); `script` is ignored and
  // neither it nor `environment` is required.
  bool allocation = false;
};

struct JobDescResult {
  v1::SubmitJobRequest request;
  std::vector<ApiError> errors;  // empty: request is the submission
  std::vector<ApiWarning> warnings;
};

// `job` at JSON path `source` ("#/job").
JobDescResult SubmissionFromJobDesc(const nlohmann::json& job, const std::string& source,
                                    const SubmitterContext& ctx);

}  // namespace gantry::rest

#endif  // GANTRY_REST_JOB_DESC_H_
