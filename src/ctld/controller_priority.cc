// Controller: priority/multifactor's priorities (kept in memory) and what sprio/sshare read.
#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "ctld/controller.h"
#include "sched/priority.h"
#include "state/records.h"
#include "state/usage.h"

namespace gantry::ctld {
namespace {

// sshare's TRESRunMins: Slurm's TRES in its order, then each GRES.
std::string TresRunMinutesText(const state::TresAmounts& minutes) {
  std::string out;
  for (const char* tres : {"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"}) {
    if (!out.empty()) out += ',';
    out += std::string(tres) + "=" + std::to_string(minutes.Get(tres));
  }
  for (const auto& [tres, count] : minutes) {
    if (tres.rfind("gres/", 0) == 0) out += "," + tres + "=" + std::to_string(count);
  }
  return out;
}

}  // namespace

std::map<uint32_t, state::TresAmounts> Controller::TresRunMinutesLocked(UnixTime now) const {
  std::map<uint32_t, state::TresAmounts> out;
  const state::AccountingDb& db = state_.accounting;
  for (const auto& [job_id, job] : state_.jobs) {
    if (state::JobStateOf(job).base != model::JobBaseState::kRunning || job.start_time() <= 0 ||
        job.time_limit_min() == 0 || job.time_limit_min() == 0xFFFFFFFFu) {
      continue;
    }
    const int64_t left_min =
        std::max<int64_t>(0, (job.start_time() + int64_t{job.time_limit_min()} * 60 - now) / 60);
    const std::vector<uint32_t> ids = state::UsageAssociationsOf(db, job);
    for (const auto& [tres, count] : state::JobTresOf(job)) {
      for (uint32_t a : ids) out[a][tres] += count * left_min;
    }
  }
  return out;
}

v1::GetPrioritiesReply Controller::GetPriorities(const v1::GetPrioritiesRequest& request) const {
  const UnixTime now = clock_->Now();
  ReaderLock lock(mu_);
  const sched::PriorityConfig& config = config_.core.priority;
  v1::GetPrioritiesReply reply;
  reply.set_now(now);
  reply.set_fair_tree(config.fair_share == sched::FairShareAlgorithm::kFairTree);
  v1::PriorityWeights& w = *reply.mutable_weights();
  w.set_multifactor(config.multifactor);
  w.set_age(config.weight_age);
  w.set_assoc(config.weight_assoc);
  w.set_fairshare(config.weight_fairshare);
  w.set_job_size(config.weight_job_size);
  w.set_partition(config.weight_partition);
  w.set_qos(config.weight_qos);
  for (const auto& [name, weight] : config.weight_tres) {
    w.add_tres_names(name);
    w.add_tres_weights(weight);
  }
  if (request.shares()) {
    // sshare shows the tree even where fair-share has no weight.
    sched::PriorityConfig shares_config = config;
    shares_config.weight_fairshare = 1;
    const sched::PriorityCalculator shares_calc(shares_config, state_, now);
    const std::map<uint32_t, state::TresAmounts> run_mins = TresRunMinutesLocked(now);
    for (const sched::ShareRow& row : shares_calc.fair_share().rows) {
      v1::ShareInfo& s = *reply.add_shares();
      const auto a = state_.accounting.associations.find(row.association_id);
      if (a != state_.accounting.associations.end()) s.set_grp_tres_mins(a->second.grp_tres_mins());
      const auto run = run_mins.find(row.association_id);
      s.set_tres_run_mins(
          TresRunMinutesText(run == run_mins.end() ? state::TresAmounts() : run->second));
      s.set_association_id(row.association_id);
      s.set_account(row.account);
      s.set_user(row.user);
      s.set_partition(row.partition);
      s.set_parent(row.parent);
      s.set_depth(row.depth);
      s.set_raw_shares(row.raw_shares);
      s.set_norm_shares(row.norm_shares);
      s.set_raw_usage(row.raw_usage);
      s.set_norm_usage(row.norm_usage);
      s.set_effective_usage(row.effective_usage);
      s.set_level_fs(row.level_fs);
      s.set_fair_share(row.fair_share);
    }
  }
  if (request.jobs() && config.multifactor) {
    const sched::PriorityCalculator jobs_calc(config, state_, now);
    for (const state::PendingKey& key : state_.pending) {
      const v1::Job* job = state_.FindJob(key.job_id);
      if (job == nullptr || job->priority() == 0) continue;  // held
      for (const sched::PriorityFactors& f : jobs_calc.FactorsOf(*job)) {
        v1::JobPriority& p = *reply.add_jobs();
        p.set_job_id(job->job_id());
        p.set_partition(f.partition);
        p.set_user(job->user_name());
        p.set_account(job->request().account());
        p.set_qos(job->request().qos());
        p.set_priority(f.priority);
        p.set_age(f.age);
        p.set_assoc(f.assoc);
        p.set_fairshare(f.fairshare);
        p.set_job_size(f.job_size);
        p.set_partition_factor(f.partition_factor);
        p.set_qos_factor(f.qos);
        for (const auto& [name, value] : f.tres) p.add_tres(value);
        p.set_nice(f.nice);
        p.set_array_job_id(job->array_job_id());
        if (job->has_array_task_id()) p.set_array_task_id(job->array_task_id());
      }
    }
  }
  return reply;
}

}  // namespace gantry::ctld
