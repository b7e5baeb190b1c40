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

}  // namespace gantry::model
