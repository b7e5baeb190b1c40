// The shorter forms of a job record that listings ask for: brief and slim.
//
// squeue's common columns, sort keys and filters read a few fields of each record; the paths,
// environment, script, steps and usage that a full record also carries make a listing of 100k
// jobs parse (and send) about half again as many bytes, and parsing is most of what a large
// listing costs its client.
//
// The brief form keeps everything except the fields below, so a client that asks for it
// (GetJobsRequest.brief) gets the same values for every field it keeps, and empty ones for these:
//   request: work_dir std_in std_out std_err comment dependency submit_host mail_type mail_user
//            array command submit_dir export_env
//   job:     group_name end_cause tres dependency_status steps batch_usage
//
// The slim form (GetJobsRequest.slim) keeps only what squeue's default, long and --start
// listings, its default sort and its usual filters read:
//   job:     job_id user_id user_name state state_flags reason state_desc priority submit_time
//            start_time end_time suspend_time pre_suspend_secs partition nodes time_limit_min
//            array_job_id array_task_id array_pending_tasks array_task_throttle
//            expected_start_time
//   request: name min_nodes
// Pure; thread-safe.
#ifndef GANTRY_MODEL_JOB_BRIEF_H_
#define GANTRY_MODEL_JOB_BRIEF_H_

#include <string_view>

#include "gantry/v1/job.pb.h"

namespace gantry::model {

// From the widest to the shortest.
enum class JobRecordForm { kFull, kBrief, kSlim };
// The wider of two forms: the one that holds what both hold.
constexpr JobRecordForm WiderForm(JobRecordForm a, JobRecordForm b) { return a < b ? a : b; }

// `job` in brief form, into *brief (whatever it held is replaced).
void CopyBriefJob(const v1::Job& job, v1::Job* brief);
// `job` in slim form, into *slim (whatever it held is replaced).
void CopySlimJob(const v1::Job& job, v1::Job* slim);
// Empties every field the slim form keeps, and no other: cheaper than Clear() for a message
// that slim records are merged into one after another.
void ClearSlimJob(v1::Job* job);
// Merges a slim record's wire bytes into *job, whose slim fields are empty (ClearSlimJob): the
// same as protobuf's parser, without its general machinery. False when the bytes hold a field
// the slim form has not or are malformed; *job may then hold some of the record's slim fields
// (clear them and parse the bytes the usual way).
bool MergeSlimRecord(std::string_view bytes, v1::Job* job);
// `job` in `form`, into *out (whatever it held is replaced).
void CopyJobInForm(const v1::Job& job, JobRecordForm form, v1::Job* out);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_JOB_BRIEF_H_
