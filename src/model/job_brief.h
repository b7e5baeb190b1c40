// A job record without the fields that job listings rarely print: its brief form.
//
// squeue's common columns, sort keys and filters read a few fields of each record; the paths,
// environment, script, steps and usage that a full record also carries make a listing of 100k
// jobs parse (and send) about half again as many bytes. The brief form keeps everything except
// the fields below, so a client that asks for it (GetJobsRequest.brief) gets the same values
// for every field it keeps, and empty ones for these:
//   request: work_dir std_in std_out std_err comment dependency submit_host mail_type mail_user
//            array command submit_dir export_env
//   job:     group_name end_cause tres dependency_status steps batch_usage
// Pure; thread-safe.
#ifndef GANTRY_MODEL_JOB_BRIEF_H_
#define GANTRY_MODEL_JOB_BRIEF_H_

#include "gantry/v1/job.pb.h"

namespace gantry::model {

// `job` in brief form, into *brief (whatever it held is replaced).
void CopyBriefJob(const v1::Job& job, v1::Job* brief);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_JOB_BRIEF_H_
