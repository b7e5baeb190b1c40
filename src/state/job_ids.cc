#include "state/job_ids.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "text/array_spec.h"

namespace gantry::state {
namespace {

constexpr char kInvalidJobId[] = "Invalid job id specified";

bool HasPendingTask(const v1::Job& job, uint32_t task) {
  return std::ranges::find(job.array_pending_tasks(), task) != job.array_pending_tasks().end();
}

}  // namespace

Result<std::vector<JobTarget>> ResolveJobId(const ClusterState& state, std::string_view text) {
  const std::optional<text::ParsedJobId> parsed = text::ParseJobIdText(text);
  if (!parsed) return InvalidArgument(kInvalidJobId);
  std::vector<JobTarget> out;
  const auto array = state.arrays.find(parsed->job_id);
  if (array == state.arrays.end()) {
    // Not an array id: a plain job, or one task by its own id ("N_*" of a plain job is N).
    const v1::Job* job = state.FindJob(parsed->job_id);
    if (job != nullptr && parsed->whole) out.push_back({job, std::nullopt});
  } else {
    for (uint32_t id : array->second) {
      const v1::Job* job = state.FindJob(id);
      if (job == nullptr) continue;
      if (parsed->whole) {
        out.push_back({job, std::nullopt});
        continue;
      }
      for (uint32_t task : parsed->tasks) {
        if (job->has_array_task_id()) {
          if (job->array_task_id() == task) out.push_back({job, std::nullopt});
        } else if (HasPendingTask(*job, task)) {
          out.push_back({job, task});
        }
      }
    }
  }
  if (out.empty()) return NotFound(kInvalidJobId);
  return out;
}

}  // namespace gantry::state
