#include "sched/partition_check.h"

#include "model/pending_reason.h"
#include "state/resources.h"
#include "text/ascii.h"

namespace gantry::sched {

PartitionLimits PartitionLimits::Of(const v1::Partition& part) {
  constexpr uint32_t kUnlimited = 0xFFFFFFFFu;
  PartitionLimits out;
  out.name = part.name();
  out.down = text::EqualsIgnoreCase(part.state(), "DOWN");
  out.inactive = text::EqualsIgnoreCase(part.state(), "INACTIVE");
  out.max_nodes = part.max_nodes() == 0 ? kUnlimited : part.max_nodes();
  out.min_nodes = part.min_nodes();
  out.max_time = part.max_time_min() == 0 ? kUnlimited : part.max_time_min();
  out.default_time = part.default_time_min() != 0 ? part.default_time_min() : out.max_time;
  return out;
}

uint32_t TimeLimitIn(const PartitionLimits& limits, const v1::Job& job) {
  return job.time_limit_min() != 0 ? job.time_limit_min() : limits.default_time;
}

std::string_view PartitionRefusal(const PartitionLimits& limits, const v1::Job& job) {
  if (limits.down) return model::PendingReasonName(model::PendingReason::kPartitionDown);
  if (limits.inactive) return model::PendingReasonName(model::PendingReason::kPartitionInactive);
  const v1::JobRequest& r = job.request();
  if (state::MinNodesOf(r) > limits.max_nodes || state::MaxNodesOf(r) < limits.min_nodes) {
    return model::PendingReasonName(model::PendingReason::kPartitionNodeLimit);
  }
  if (limits.max_time != 0xFFFFFFFFu && TimeLimitIn(limits, job) > limits.max_time) {
    return model::PendingReasonName(model::PendingReason::kPartitionTimeLimit);
  }
  return "";
}

}  // namespace gantry::sched
