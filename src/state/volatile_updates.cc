#include "state/volatile_updates.h"

#include <optional>

#include "state/records.h"

namespace gantry::state {

void ApplyVolatile(ClusterState* state, const VolatileUpdates& updates) {
  if (updates.clear_entered_pending) state->entered_pending.clear();
  if (updates.all_priorities) {
    // Both walks go in job id order.
    auto next = updates.priorities.begin();
    SetPendingPriorities(state, [&](const v1::Job& job) -> std::optional<uint32_t> {
      while (next != updates.priorities.end() && next->first < job.job_id()) ++next;
      if (next == updates.priorities.end() || next->first != job.job_id()) return std::nullopt;
      return next->second;
    });
  } else {
    for (const auto& [id, priority] : updates.priorities) SetJobPriority(state, id, priority);
  }
  for (const auto& [id, time] : updates.expected_starts) {
    const auto it = state->jobs.find(id);
    if (it == state->jobs.end() || it->second.expected_start_time() == time) continue;
    it->second.set_expected_start_time(time);
    state->changed_jobs.push_back(id);
  }
  for (const auto& [id, reason] : updates.reasons) {
    const auto it = state->jobs.find(id);
    if (it == state->jobs.end()) continue;
    it->second.set_reason(reason);
    it->second.set_last_sched_eval(updates.evaluated_at);
    state->changed_jobs.push_back(id);
  }
  for (const auto& [id, status] : updates.dependency_status) {
    const auto it = state->jobs.find(id);
    if (it == state->jobs.end()) continue;
    it->second.set_dependency_status(status);
    state->changed_jobs.push_back(id);
  }
}

}  // namespace gantry::state
