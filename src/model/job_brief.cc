#include "model/job_brief.h"

namespace gantry::model {

void CopyBriefJob(const v1::Job& job, v1::Job* brief) {
  *brief = job;
  v1::JobRequest& r = *brief->mutable_request();
  r.clear_work_dir();
  r.clear_std_in();
  r.clear_std_out();
  r.clear_std_err();
  r.clear_comment();
  r.clear_dependency();
  r.clear_submit_host();
  r.clear_mail_type();
  r.clear_mail_user();
  r.clear_array();
  r.clear_command();
  r.clear_submit_dir();
  r.clear_export_env();
  brief->clear_group_name();
  brief->clear_end_cause();
  brief->clear_tres();
  brief->clear_dependency_status();
  brief->clear_steps();
  brief->clear_batch_usage();
}

void CopySlimJob(const v1::Job& job, v1::Job* slim) {
  slim->Clear();
  slim->set_job_id(job.job_id());
  slim->set_user_id(job.user_id());
  slim->set_user_name(job.user_name());
  slim->set_state(job.state());
  slim->set_state_flags(job.state_flags());
  slim->set_reason(job.reason());
  slim->set_state_desc(job.state_desc());
  slim->set_priority(job.priority());
  slim->set_submit_time(job.submit_time());
  slim->set_start_time(job.start_time());
  slim->set_end_time(job.end_time());
  slim->set_suspend_time(job.suspend_time());
  slim->set_pre_suspend_secs(job.pre_suspend_secs());
  slim->set_partition(job.partition());
  *slim->mutable_nodes() = job.nodes();
  slim->set_time_limit_min(job.time_limit_min());
  slim->set_array_job_id(job.array_job_id());
  if (job.has_array_task_id()) slim->set_array_task_id(job.array_task_id());
  *slim->mutable_array_pending_tasks() = job.array_pending_tasks();
  slim->set_array_task_throttle(job.array_task_throttle());
  slim->set_expected_start_time(job.expected_start_time());
  v1::JobRequest& r = *slim->mutable_request();
  r.set_name(job.request().name());
  r.set_min_nodes(job.request().min_nodes());
}

void ClearSlimJob(v1::Job* job) {
  job->clear_job_id();
  job->clear_user_id();
  job->clear_user_name();
  job->clear_state();
  job->clear_state_flags();
  job->clear_reason();
  job->clear_state_desc();
  job->clear_priority();
  job->clear_submit_time();
  job->clear_start_time();
  job->clear_end_time();
  job->clear_suspend_time();
  job->clear_pre_suspend_secs();
  job->clear_partition();
  job->clear_nodes();
  job->clear_time_limit_min();
  job->clear_array_job_id();
  job->clear_array_task_id();
  job->clear_array_pending_tasks();
  job->clear_array_task_throttle();
  job->clear_expected_start_time();
  v1::JobRequest* r = job->mutable_request();
  r->clear_name();
  r->clear_min_nodes();
}

void CopyJobInForm(const v1::Job& job, JobRecordForm form, v1::Job* out) {
  switch (form) {
    case JobRecordForm::kFull:
      *out = job;
      return;
    case JobRecordForm::kBrief:
      CopyBriefJob(job, out);
      return;
    case JobRecordForm::kSlim:
      CopySlimJob(job, out);
      return;
  }
}

}  // namespace gantry::model
