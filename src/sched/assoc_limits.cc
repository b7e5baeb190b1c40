#include "sched/assoc_limits.h"

#include "model/job_state.h"
#include "state/resources.h"
#include "text/tres.h"

namespace gantry::sched {
namespace {

// What the job holds (running, or `start`ing now: its allocation) or asks for (pending), by
// TRES.
std::map<std::string, int64_t> TresOf(const v1::Job& job, const Start* start = nullptr) {
  const v1::JobRequest& r = job.request();
  const bool started = job.start_time() > 0 && job.nodes_size() > 0;
  int64_t nodes = started ? job.nodes_size() : state::MinNodesOf(r);
  std::map<std::string, int64_t> out;
  out["cpu"] = started ? job.num_cpus() : static_cast<int64_t>(state::TotalCpusOf(r));
  out["mem"] = started ? static_cast<int64_t>(job.alloc_mem_mb())
                       : static_cast<int64_t>(state::MemPerNodeOf(r)) * nodes;
  if (start != nullptr) {
    nodes = static_cast<int64_t>(start->nodes.size());
    out["cpu"] = start->num_cpus;
    out["mem"] = static_cast<int64_t>(start->alloc_mem_mb);
  }
  out["node"] = nodes;
  if (Result<state::NodeRequest> need = state::NodeRequestOf(r); need.ok()) {
    for (const text::GresSpec& g : need->gres) out["gres/" + g.name] += g.count * nodes;
  }
  return out;
}

std::string_view GrpTresReason(const std::string& tres) {
  if (tres == "cpu") return "AssocGrpCpuLimit";
  if (tres == "mem") return "AssocGrpMemLimit";
  if (tres == "node") return "AssocGrpNodeLimit";
  if (tres == "billing") return "AssocGrpBillingLimit";
  return "AssocGrpGRES";
}

}  // namespace

AssocLimits::AssocLimits(const state::ClusterState& state) : s_(state) {
  active_ = state.enforce_limits && state::HasLimits(state.accounting);
  if (!active_) return;
  for (const auto& [id, a] : state.accounting.associations) {
    if (!a.user().empty()) by_key_[Key(a.user(), a.account(), a.partition())] = &a;
  }
  for (const auto& [id, job] : state.jobs) {
    if (!model::IsActive(static_cast<model::JobBaseState>(job.state()))) continue;
    Count(job, job.partition(), TresOf(job));
  }
}

const v1::Association* AssocLimits::AssociationOf(const v1::Job& job,
                                                  std::string_view partition) const {
  // The user's association for the partition, else for every partition.
  auto find = [&](std::string_view part) -> const v1::Association* {
    const auto it = by_key_.find(Key(job.user_name(), job.request().account(), part));
    return it == by_key_.end() ? nullptr : it->second;
  };
  const v1::Association* a = find(partition);
  return a != nullptr ? a : find("");
}

const std::vector<const v1::Association*>& AssocLimits::ChainOf(const std::string& account) {
  auto it = chains_.find(account);
  if (it == chains_.end()) {
    it = chains_.emplace(account, state::AccountChain(s_.accounting, account)).first;
  }
  return it->second;
}

std::string AssocLimits::Key(std::string_view user, std::string_view account,
                             std::string_view partition) {
  std::string key(user);
  key.push_back('\0');
  key.append(account);
  key.push_back('\0');
  key.append(partition);
  return key;
}

std::string_view AssocLimits::Blocks(const v1::Job& job, std::string_view partition,
                                     uint32_t limit_min) {
  if (!active_) return "";
  if (const auto qos = s_.accounting.qos.find(job.request().qos());
      qos != s_.accounting.qos.end()) {
    if (qos->second.has_max_wall_min() && limit_min > qos->second.max_wall_min()) {
      return "QOSMaxWallDurationPerJobLimit";
    }
    if (qos->second.has_max_jobs_per_user() &&
        qos_user_running_[Key(job.user_name(), job.request().qos(), "")] >=
            qos->second.max_jobs_per_user()) {
      return "QOSMaxJobsPerUserLimit";
    }
  }
  const v1::Association* a = AssociationOf(job, partition);
  if (a == nullptr) return "";
  auto it = max_.find(a->id());
  if (it == max_.end()) it = max_.emplace(a->id(), EffectiveMaxLimits(s_.accounting, *a)).first;
  const state::MaxLimits& max = it->second;
  if (max.max_wall_min && limit_min > *max.max_wall_min) return "AssocMaxWallDurationPerJobLimit";
  if (max.max_jobs && running_[a->id()] >= *max.max_jobs) return "AssocMaxJobsLimit";
  std::map<std::string, int64_t> wants;  // the job's TRES, made when a GrpTRES needs it
  for (const v1::Association* up : ChainOf(a->account())) {
    if (up->has_grp_jobs()) {
      const auto count = account_running_.find(up->account());
      if (count != account_running_.end() && count->second >= up->grp_jobs()) {
        return "AssocGrpJobsLimit";
      }
    }
    if (up->grp_tres().empty()) continue;
    auto limits = grp_tres_.find(up->id());
    if (limits == grp_tres_.end()) {
      std::vector<std::pair<std::string, int64_t>> parsed;
      if (Result<std::vector<text::TresCount>> counts = text::ParseTresCounts(up->grp_tres());
          counts.ok()) {
        for (const text::TresCount& c : *counts) parsed.emplace_back(c.key.ToString(), c.count);
      }
      limits = grp_tres_.emplace(up->id(), std::move(parsed)).first;
    }
    if (wants.empty()) wants = TresOf(job);
    const std::map<std::string, int64_t>& used = account_tres_[up->account()];
    for (const auto& [tres, limit] : limits->second) {
      const auto have = used.find(tres);
      const int64_t in_use = have == used.end() ? 0 : have->second;
      if (in_use + wants[tres] > limit) return GrpTresReason(tres);
    }
  }
  return "";
}

void AssocLimits::Started(const v1::Job& job, const Start& start) {
  if (active_) Count(job, start.partition, TresOf(job, &start));
}

void AssocLimits::Count(const v1::Job& job, std::string_view partition,
                        const std::map<std::string, int64_t>& holds) {
  ++qos_user_running_[Key(job.user_name(), job.request().qos(), "")];
  if (const v1::Association* a = AssociationOf(job, partition)) ++running_[a->id()];
  for (const v1::Association* up : ChainOf(job.request().account())) {
    ++account_running_[up->account()];
    for (const auto& [tres, amount] : holds) account_tres_[up->account()][tres] += amount;
  }
}

}  // namespace gantry::sched
