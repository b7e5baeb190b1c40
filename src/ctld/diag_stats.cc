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
  std::unique_ptr<metrics::LatencyHistogram>& latency = stats_->latency_[type_];
  if (latency == nullptr) latency = std::make_unique<metrics::LatencyHistogram>();
  latency->Observe(usec);
}

void DiagStats::CountEvent(const v1::Event& event) {
  using model::JobBaseState;
  MutexLock lock(mu_);
  if ((event.has_job_requeued() && event.job_requeued().preempted()) ||
      (event.has_job_suspended() && event.job_suspended().preemptor() != 0)) {
    ++preemptions_;
  }
  for (v1::GetStatsReply* c : {&counters_, &totals_}) {
    if (event.has_job_submitted()) {
      c->set_jobs_submitted(c->jobs_submitted() + 1);
    } else if (event.has_job_started()) {
      c->set_jobs_started(c->jobs_started() + 1);
    } else if (event.has_job_ended()) {
      switch (static_cast<JobBaseState>(event.job_ended().state())) {
        case JobBaseState::kCancelled:
          c->set_jobs_canceled(c->jobs_canceled() + 1);
          break;
        case JobBaseState::kNodeFail:
        case JobBaseState::kBootFail:
          c->set_jobs_failed(c->jobs_failed() + 1);
          break;
        default:
          c->set_jobs_completed(c->jobs_completed() + 1);
      }
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

void DiagStats::WriteMetrics(metrics::MetricsText* out) const {
  v1::GetStatsReply s;
  Fill(nullptr, &s);
  const auto mean = [](uint64_t sum, uint64_t count) {
    return count == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(count);
  };
  struct Figure {
    const char* name;
    const char* help;
    double value;
  };
  const Figure figures[] = {
      {"slurm_schedule_cycle_cnt", "Scheduling cycles (sdiag: Total cycles).",
       static_cast<double>(s.schedule_cycle_counter())},
      {"slurm_schedule_cycle_depth", "Jobs the cycles looked at, summed.",
       static_cast<double>(s.schedule_cycle_depth())},
      {"slurm_schedule_cycle_last", "The last cycle's time, microseconds.",
       static_cast<double>(s.schedule_cycle_last())},
      {"slurm_schedule_cycle_max", "The longest cycle, microseconds.",
       static_cast<double>(s.schedule_cycle_max())},
      {"slurm_schedule_cycle_tot", "The cycles' time, summed, microseconds.",
       static_cast<double>(s.schedule_cycle_sum())},
      {"slurm_schedule_queue_len", "Jobs the last cycle could schedule.",
       static_cast<double>(s.schedule_queue_len())},
      {"slurm_sched_mean_cycle", "The mean cycle, microseconds.",
       mean(s.schedule_cycle_sum(), s.schedule_cycle_counter())},
      {"slurm_sched_mean_depth_cycle", "Jobs a cycle looked at, mean.",
       mean(s.schedule_cycle_depth(), s.schedule_cycle_counter())},
      {"slurm_bf_cycle_cnt", "Backfill cycles.", static_cast<double>(s.bf_cycle_counter())},
      {"slurm_bf_cycle_last", "The last backfill cycle's time, microseconds.",
       static_cast<double>(s.bf_cycle_last())},
      {"slurm_bf_cycle_max", "The longest backfill cycle, microseconds.",
       static_cast<double>(s.bf_cycle_max())},
      {"slurm_bf_cycle_tot", "Backfill cycles' time, summed, microseconds.",
       static_cast<double>(s.bf_cycle_sum())},
      {"slurm_bf_depth_mean", "Jobs a backfill cycle tried, mean.",
       mean(s.bf_depth_sum(), s.bf_cycle_counter())},
      {"slurm_bf_last_depth", "Jobs the last backfill cycle tried.",
       static_cast<double>(s.bf_last_depth())},
      {"slurm_bf_last_depth_try", "Jobs the last backfill cycle planned a start for.",
       static_cast<double>(s.bf_last_depth_try())},
      {"slurm_bf_queue_len", "Jobs the last backfill cycle could plan.",
       static_cast<double>(s.bf_queue_len())},
      {"slurm_bf_table_size", "Reservations the last backfill cycle held.",
       static_cast<double>(s.bf_table_size())},
      {"slurm_bf_when_last_cycle", "When the last backfill cycle ran, Unix seconds.",
       static_cast<double>(s.bf_when_last_cycle())},
      {"slurm_backfilled_jobs", "Jobs started by backfill since the controller started.",
       static_cast<double>(s.bf_backfilled_jobs())},
      {"slurm_last_backfilled_jobs", "Jobs started by backfill since sdiag -r.",
       static_cast<double>(s.bf_last_backfilled_jobs())},
      {"slurm_sdiag_jobs_submitted", "Jobs submitted (sdiag, since its reset).",
       static_cast<double>(s.jobs_submitted())},
      {"slurm_sdiag_jobs_started", "Jobs started (sdiag).", static_cast<double>(s.jobs_started())},
      {"slurm_sdiag_jobs_completed", "Jobs completed (sdiag).",
       static_cast<double>(s.jobs_completed())},
      {"slurm_sdiag_jobs_canceled", "Jobs cancelled (sdiag).",
       static_cast<double>(s.jobs_canceled())},
      {"slurm_sdiag_jobs_failed", "Jobs failed (sdiag).", static_cast<double>(s.jobs_failed())},
      {"slurm_server_thread_cnt", "Requests being served.",
       static_cast<double>(s.server_thread_count())},
  };
  for (const Figure& f : figures) out->Gauge(f.name, f.help, f.value);
  MutexLock lock(mu_);
  out->Counter("gantry_jobs_submitted", "Jobs submitted since the controller started.");
  out->Sample(totals_.jobs_submitted());
  out->Counter("gantry_jobs_started", "Jobs started since the controller started.");
  out->Sample(totals_.jobs_started());
  out->Counter("gantry_jobs_ended", "Jobs ended since the controller started, by how.");
  out->Sample(totals_.jobs_completed(), {{"how", "completed"}});
  out->Sample(totals_.jobs_canceled(), {{"how", "cancelled"}});
  out->Sample(totals_.jobs_failed(), {{"how", "failed"}});
  out->Counter("gantry_preemptions", "Jobs suspended or requeued for a preemptor.");
  out->Sample(static_cast<double>(preemptions_));
  out->HistogramFamily("gantry_rpc_seconds", "Requests to the controller by type, latency.");
  for (const auto& [type, histogram] : latency_) {
    const std::string name = model::RpcTypeName(type);
    out->Histogram(histogram->Snapshot(), {{"type", name}});
  }
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
