#include "ctld/diag_stats.h"

#include <algorithm>

#include "model/job_state.h"

namespace gantry::ctld {

DiagStats::Call::Call(DiagStats* stats, model::RpcType type, uint32_t uid)
    : stats_(stats),
      type_(static_cast<uint32_t>(type)),
      uid_(uid),
      start_(std::chrono::steady_clock::now()) {
  MutexLock lock(stats_->mu_);
  ++stats_->in_progress_[type_];
}

void DiagStats::Call::set_type(model::RpcType type) {
  MutexLock lock(stats_->mu_);
  auto it = stats_->in_progress_.find(type_);
  if (it != stats_->in_progress_.end() && --it->second == 0) stats_->in_progress_.erase(it);
  type_ = static_cast<uint32_t>(type);
  ++stats_->in_progress_[type_];
}

DiagStats::Call::~Call() {
  const auto usec = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                              std::chrono::steady_clock::now() - start_)
                                              .count());
  MutexLock lock(stats_->mu_);
  auto it = stats_->in_progress_.find(type_);
  if (it != stats_->in_progress_.end() && --it->second == 0) stats_->in_progress_.erase(it);
  Tally& type = stats_->by_type_[type_];
  ++type.count;
  type.usec += usec;
  Tally& user = stats_->by_user_[uid_];
  ++user.count;
  user.usec += usec;
}

void DiagStats::CountEvent(const v1::Event& event) {
  using model::JobBaseState;
  MutexLock lock(mu_);
  if (event.has_job_submitted()) {
    counters_.set_jobs_submitted(counters_.jobs_submitted() + 1);
  } else if (event.has_job_started()) {
    counters_.set_jobs_started(counters_.jobs_started() + 1);
  } else if (event.has_job_ended()) {
    switch (static_cast<JobBaseState>(event.job_ended().state())) {
      case JobBaseState::kCancelled:
        counters_.set_jobs_canceled(counters_.jobs_canceled() + 1);
        break;
      case JobBaseState::kNodeFail:
      case JobBaseState::kBootFail:
        counters_.set_jobs_failed(counters_.jobs_failed() + 1);
        break;
      default:
        counters_.set_jobs_completed(counters_.jobs_completed() + 1);
    }
  }
}

void DiagStats::CountPass(const sched::PassStats& pass, uint64_t usec, int64_t now) {
  const auto cycle = static_cast<uint32_t>(std::min<uint64_t>(usec, UINT32_MAX));
  MutexLock lock(mu_);
  v1::GetStatsReply& c = counters_;
  c.set_schedule_cycle_last(cycle);
  c.set_schedule_cycle_max(std::max(c.schedule_cycle_max(), cycle));
  c.set_schedule_cycle_counter(c.schedule_cycle_counter() + 1);
  c.set_schedule_cycle_sum(c.schedule_cycle_sum() + usec);
  c.set_schedule_cycle_depth(c.schedule_cycle_depth() + pass.depth);
  c.set_schedule_queue_len(pass.queue_length);
  backfilled_since_start_ += pass.backfilled;
  c.set_bf_last_backfilled_jobs(c.bf_last_backfilled_jobs() + pass.backfilled);
  if (pass.bf_tried == 0) return;
  c.set_bf_cycle_counter(c.bf_cycle_counter() + 1);
  c.set_bf_when_last_cycle(now);
  c.set_bf_cycle_last(cycle);
  c.set_bf_cycle_max(std::max(c.bf_cycle_max(), cycle));
  c.set_bf_cycle_sum(c.bf_cycle_sum() + usec);
  c.set_bf_last_depth(pass.bf_tried);
  c.set_bf_last_depth_try(pass.bf_planned);
  c.set_bf_depth_sum(c.bf_depth_sum() + pass.bf_tried);
  c.set_bf_depth_try_sum(c.bf_depth_try_sum() + pass.bf_planned);
  c.set_bf_queue_len(pass.queue_length);
  c.set_bf_queue_len_sum(c.bf_queue_len_sum() + pass.queue_length);
  c.set_bf_table_size(pass.bf_reservations);
  c.set_bf_table_size_sum(c.bf_table_size_sum() + pass.bf_reservations);
}

void DiagStats::Reset(int64_t now) {
  MutexLock lock(mu_);
  since_ = now;
  by_type_.clear();
  by_user_.clear();
  counters_.Clear();
}

void DiagStats::Fill(const Call* self, v1::GetStatsReply* reply) const {
  MutexLock lock(mu_);
  reply->MergeFrom(counters_);
  reply->set_since(since_);
  reply->set_bf_backfilled_jobs(backfilled_since_start_);
  uint32_t threads = 0;
  for (const auto& [type, calls] : in_progress_) {
    threads += calls;
    const uint32_t others = self != nullptr && self->type_ == type ? calls - 1 : calls;
    if (others == 0) continue;
    v1::RpcStat* pending = reply->add_pending_rpcs();
    pending->set_id(type);
    pending->set_count(others);
  }
  reply->set_server_thread_count(threads);
  auto add = [](const std::map<uint32_t, Tally>& from, auto* to) {
    for (const auto& [id, tally] : from) {
      v1::RpcStat* stat = to->Add();
      stat->set_id(id);
      stat->set_count(tally.count);
      stat->set_total_usec(tally.usec);
    }
  };
  add(by_type_, reply->mutable_rpc_types());
  add(by_user_, reply->mutable_rpc_users());
}

model::RpcType RpcTypeOf(const v1::GetJobsRequest& request) {
  if (request.job_ids_size() == 1) return model::RpcType::kJobInfoSingle;
  if (request.user_ids_size() > 0) return model::RpcType::kJobUserInfo;
  return model::RpcType::kJobInfo;
}

model::RpcType RpcTypeOf(const v1::GetPrioritiesRequest& request) {
  return request.jobs() ? model::RpcType::kPriorityFactors : model::RpcType::kShareInfo;
}

model::RpcType RpcTypeOf(const v1::JobStepRequest& request) {
  return request.end() ? model::RpcType::kStepComplete : model::RpcType::kJobStepCreate;
}

model::RpcType RpcTypeOf(const v1::JobReport& report) {
  switch (report.kind()) {
    case v1::JobReport::PROLOG_OK:
    case v1::JobReport::PROLOG_FAILED:
      return model::RpcType::kCompleteProlog;
    case v1::JobReport::EPILOG_OK:
    case v1::JobReport::EPILOG_FAILED:
      return model::RpcType::kEpilogComplete;
    default:
      return model::RpcType::kCompleteBatchScript;
  }
}

}  // namespace gantry::ctld
