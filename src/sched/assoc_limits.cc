#include "sched/assoc_limits.h"

#include <algorithm>

#include "model/job_state.h"
#include "state/usage.h"

namespace gantry::sched {

AssocLimits::AssocLimits(const state::ClusterState& state, int64_t now)
    : s_(state), now_(now), limits_(state.accounting, state.enforce_safe) {
  active_ = state.enforce_limits && state::HasLimits(state.accounting);
  if (!active_) return;
  for (const auto& [id, a] : state.accounting.associations) {
    if (!a.user().empty()) by_key_[Key(a.user(), a.account(), a.partition())] = &a;
  }
  for (const auto& [id, job] : state.jobs) {
    if (!model::IsActive(static_cast<model::JobBaseState>(job.state()))) continue;
    state::LimitedJob running = Limited(job, job.partition(), job.time_limit_min());
    if (job.start_time() > 0 && now > job.start_time()) {
      running.elapsed_min = static_cast<uint32_t>((now - job.start_time()) / 60);
    }
    limits_.Count(running, &use_);
  }
}

const v1::Association* AssocLimits::AssociationOf(const v1::Job& job,
                                                  std::string_view partition) const {
  // Pending jobs come in runs of one user's: the last answer is often the next.
  if (last_.found && last_.user == job.user_name() && last_.account == job.request().account() &&
      last_.partition == partition) {
    return last_.association;
  }
  // The user's association for the partition, else for every partition.
  auto find = [&](std::string_view part) -> const v1::Association* {
    const auto it = by_key_.find(Key(job.user_name(), job.request().account(), part));
    return it == by_key_.end() ? nullptr : it->second;
  };
  const v1::Association* a = find(partition);
  if (a == nullptr) a = find("");
  last_ = {true, job.user_name(), job.request().account(), std::string(partition), a};
  return a;
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

state::LimitedJob AssocLimits::Limited(const v1::Job& job, std::string_view partition,
                                       uint32_t limit_min) const {
  return state::LimitedJobOf(job, AssociationOf(job, partition), limit_min);
}

std::string_view AssocLimits::Blocks(const v1::Job& job, std::string_view partition,
                                     uint32_t limit_min) {
  if (!active_) return "";
  return limits_.Check(Limited(job, partition, limit_min), use_, now_);
}

void AssocLimits::Started(const v1::Job& job, const Start& start) {
  if (!active_) return;
  state::LimitedJob started = Limited(job, start.partition, start.time_limit_min);
  started.tres["cpu"] = start.num_cpus;
  // With billing weights the job's billing stays what it asked for until the next pass counts
  // its record (gantryd sets it from the allocation when the start is applied).
  if (!job.has_billing()) started.tres["billing"] = start.num_cpus;
  started.tres["mem"] = static_cast<int64_t>(start.alloc_mem_mb);
  started.tres["node"] = static_cast<int64_t>(start.nodes.size());
  limits_.Count(started, &use_);
}

}  // namespace gantry::sched
