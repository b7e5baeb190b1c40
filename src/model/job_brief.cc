#include "model/job_brief.h"

#include <cstdint>

namespace gantry::model {
namespace {

// Reads protobuf's wire format from a byte range.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : at_(bytes.data()), end_(at_ + bytes.size()) {}
  bool done() const { return at_ == end_; }

  bool Varint(uint64_t* value) {
    if (at_ != end_ && (static_cast<uint8_t>(*at_) & 0x80) == 0) {  // most tags and values
      *value = static_cast<uint8_t>(*at_++);
      return true;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && at_ != end_; shift += 7) {
      const auto byte = static_cast<uint8_t>(*at_++);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *value = v;
        return true;
      }
    }
    return false;
  }
  bool Bytes(std::string_view* out) {
    uint64_t size = 0;
    if (!Varint(&size) || size > static_cast<uint64_t>(end_ - at_)) return false;
    *out = std::string_view(at_, static_cast<size_t>(size));
    at_ += size;
    return true;
  }

 private:
  const char* at_;
  const char* end_;
};

constexpr int kVarintType = 0;
constexpr int kBytesType = 2;
constexpr uint64_t Tag(int number, int type) { return static_cast<uint64_t>(number) << 3 | type; }

bool MergeSlimRequest(std::string_view bytes, v1::JobRequest* request) {
  WireReader in(bytes);
  while (!in.done()) {
    uint64_t tag = 0;
    uint64_t value = 0;
    std::string_view text;
    if (!in.Varint(&tag)) return false;
    if (tag == Tag(v1::JobRequest::kNameFieldNumber, kBytesType) && in.Bytes(&text)) {
      request->mutable_name()->assign(text);
    } else if (tag == Tag(v1::JobRequest::kMinNodesFieldNumber, kVarintType) && in.Varint(&value)) {
      request->set_min_nodes(static_cast<uint32_t>(value));
    } else {
      return false;
    }
  }
  return true;
}

// A slim varint field; false for any other field.
bool SetSlimNumber(uint32_t number, uint64_t v, v1::Job* job) {
  const auto u32 = static_cast<uint32_t>(v);
  const auto i64 = static_cast<int64_t>(v);
  switch (number) {
    case v1::Job::kJobIdFieldNumber:
      job->set_job_id(u32);
      return true;
    case v1::Job::kUserIdFieldNumber:
      job->set_user_id(u32);
      return true;
    case v1::Job::kStateFieldNumber:
      job->set_state(u32);
      return true;
    case v1::Job::kStateFlagsFieldNumber:
      job->set_state_flags(u32);
      return true;
    case v1::Job::kPriorityFieldNumber:
      job->set_priority(u32);
      return true;
    case v1::Job::kSubmitTimeFieldNumber:
      job->set_submit_time(i64);
      return true;
    case v1::Job::kStartTimeFieldNumber:
      job->set_start_time(i64);
      return true;
    case v1::Job::kEndTimeFieldNumber:
      job->set_end_time(i64);
      return true;
    case v1::Job::kSuspendTimeFieldNumber:
      job->set_suspend_time(i64);
      return true;
    case v1::Job::kPreSuspendSecsFieldNumber:
      job->set_pre_suspend_secs(i64);
      return true;
    case v1::Job::kTimeLimitMinFieldNumber:
      job->set_time_limit_min(u32);
      return true;
    case v1::Job::kArrayJobIdFieldNumber:
      job->set_array_job_id(u32);
      return true;
    case v1::Job::kArrayTaskIdFieldNumber:
      job->set_array_task_id(u32);
      return true;
    case v1::Job::kArrayPendingTasksFieldNumber:
      job->add_array_pending_tasks(u32);
      return true;  // unpacked
    case v1::Job::kArrayTaskThrottleFieldNumber:
      job->set_array_task_throttle(u32);
      return true;
    case v1::Job::kExpectedStartTimeFieldNumber:
      job->set_expected_start_time(i64);
      return true;
    default:
      return false;
  }
}

// A slim length-delimited field; false for any other field.
bool SetSlimBytes(uint32_t number, std::string_view b, v1::Job* job) {
  switch (number) {
    case v1::Job::kRequestFieldNumber:
      return MergeSlimRequest(b, job->mutable_request());
    case v1::Job::kUserNameFieldNumber:
      job->mutable_user_name()->assign(b);
      return true;
    case v1::Job::kReasonFieldNumber:
      job->mutable_reason()->assign(b);
      return true;
    case v1::Job::kStateDescFieldNumber:
      job->mutable_state_desc()->assign(b);
      return true;
    case v1::Job::kPartitionFieldNumber:
      job->mutable_partition()->assign(b);
      return true;
    case v1::Job::kNodesFieldNumber:
      job->add_nodes(b.data(), b.size());
      return true;
    case v1::Job::kArrayPendingTasksFieldNumber: {  // packed
      WireReader tasks(b);
      uint64_t task = 0;
      while (!tasks.done()) {
        if (!tasks.Varint(&task)) return false;
        job->add_array_pending_tasks(static_cast<uint32_t>(task));
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

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

bool MergeSlimRecord(std::string_view bytes, v1::Job* job) {
  WireReader in(bytes);
  while (!in.done()) {
    uint64_t tag = 0;
    if (!in.Varint(&tag)) return false;
    const auto number = static_cast<uint32_t>(tag >> 3);
    const auto type = static_cast<int>(tag & 7);
    uint64_t value = 0;
    std::string_view b;
    if (type == kVarintType) {
      if (!in.Varint(&value) || !SetSlimNumber(number, value, job)) return false;
    } else if (type == kBytesType) {
      if (!in.Bytes(&b) || !SetSlimBytes(number, b, job)) return false;
    } else {
      return false;
    }
  }
  return true;
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
