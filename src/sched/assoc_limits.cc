#include "sched/assoc_limits.h"

#include "model/job_state.h"

namespace gantry::sched {

AssocLimits::AssocLimits(const state::ClusterState& state) : s_(state) {
  active_ = state.enforce_limits && state::HasLimits(state.accounting);
  if (!active_) return;
  for (const auto& [id, job] : state.jobs) {
    if (!model::IsActive(static_cast<model::JobBaseState>(job.state()))) continue;
    Started(job, job.partition());
  }
}

const v1::Association* AssocLimits::AssociationOf(const v1::Job& job,
                                                  std::string_view partition) const {
  return state::FindJobAssociation(s_.accounting, job.user_name(), job.request().account(),
                                   partition);
}

std::string_view AssocLimits::Blocks(const v1::Job& job, std::string_view partition,
                                     uint32_t limit_min) {
  if (!active_) return "";
  const v1::Association* a = AssociationOf(job, partition);
  if (a == nullptr) return "";
  auto it = max_.find(a->id());
  if (it == max_.end()) it = max_.emplace(a->id(), EffectiveMaxLimits(s_.accounting, *a)).first;
  const state::MaxLimits& max = it->second;
  if (max.max_wall_min && limit_min > *max.max_wall_min) return "AssocMaxWallDurationPerJobLimit";
  if (max.max_jobs && running_[a->id()] >= *max.max_jobs) return "AssocMaxJobsLimit";
  for (const v1::Association* up : state::AccountChain(s_.accounting, a->account())) {
    if (!up->has_grp_jobs()) continue;
    const auto count = account_running_.find(up->account());
    if (count != account_running_.end() && count->second >= up->grp_jobs()) {
      return "AssocGrpJobsLimit";
    }
  }
  return "";
}

void AssocLimits::Started(const v1::Job& job, std::string_view partition) {
  if (!active_) return;
  if (const v1::Association* a = AssociationOf(job, partition)) ++running_[a->id()];
  for (const v1::Association* up : state::AccountChain(s_.accounting, job.request().account())) {
    ++account_running_[up->account()];
  }
}

}  // namespace gantry::sched
