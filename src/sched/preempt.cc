#include "sched/preempt.h"

#include <algorithm>
#include <map>
#include <string>

#include "model/job_state.h"
#include "state/records.h"
#include "state/shares.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::sched {

PreemptAction ActionOfMode(std::string_view mode, PreemptAction fallback) {
  if (mode.empty()) return fallback;
  const std::string upper = text::AsciiToUpper(mode);
  for (std::string_view word : text::Split(upper, ',')) {
    if (word == "SUSPEND") return PreemptAction::kSuspend;
    if (word == "REQUEUE") return PreemptAction::kRequeue;
    if (word == "CANCEL") return PreemptAction::kCancel;
  }
  return PreemptAction::kOff;
}

Result<PreemptOptions> PreemptOptions::FromConfig(std::string_view type, std::string_view mode,
                                                  std::string_view exempt_time) {
  PreemptOptions o;
  if (type.empty() || type == "preempt/none") {
    o.type = PreemptType::kNone;
  } else if (type == "preempt/partition_prio") {
    o.type = PreemptType::kPartitionPrio;
  } else if (type == "preempt/qos") {
    o.type = PreemptType::kQos;
  } else {
    return InvalidArgument("PreemptType: invalid value '" + std::string(type) +
                           "' (preempt/none, preempt/partition_prio or preempt/qos)");
  }
  const std::string upper = text::AsciiToUpper(mode);
  for (std::string_view word : text::Split(upper, ',')) {
    if (word.empty() && upper.empty()) continue;
    if (word != "OFF" && word != "GANG" && word != "SUSPEND" && word != "REQUEUE" &&
        word != "CANCEL" && word != "WITHIN" && word != "PRIORITY") {
      return InvalidArgument("PreemptMode: invalid value '" + std::string(mode) +
                             "' (OFF, CANCEL, REQUEUE, SUSPEND, GANG, WITHIN, PRIORITY)");
    }
    if (word == "GANG") o.gang = true;
  }
  o.action =
      o.type == PreemptType::kNone ? PreemptAction::kOff : ActionOfMode(mode, PreemptAction::kOff);
  if (!exempt_time.empty() && exempt_time != "-1") {
    Result<int64_t> seconds = text::ParseDurationSeconds(exempt_time);
    if (!seconds.ok() || *seconds < 0) {
      return InvalidArgument("PreemptExemptTime: invalid value '" + std::string(exempt_time) +
                             "' (a duration, e.g. 00:10:00, or -1)");
    }
    o.exempt_sec = *seconds;
  }
  return o;
}

std::optional<PreemptAction> PreemptionOf(const state::ClusterState& state,
                                          const PreemptOptions& options, const v1::Job& preemptor,
                                          const v1::Partition& partition, const v1::Job& victim,
                                          const v1::Partition& victim_partition, int64_t now) {
  const auto qos_of = [&state](const v1::Job& job) -> const v1::Qos* {
    const auto it = state.accounting.qos.find(job.request().qos());
    return it == state.accounting.qos.end() ? nullptr : &it->second;
  };
  const v1::Qos* victim_qos = qos_of(victim);
  PreemptAction action = PreemptAction::kOff;
  switch (options.type) {
    case PreemptType::kNone:
      return std::nullopt;
    case PreemptType::kPartitionPrio:
      if (partition.priority_tier() <= victim_partition.priority_tier()) return std::nullopt;
      action = ActionOfMode(victim_partition.preempt_mode(), options.action);
      break;
    case PreemptType::kQos: {
      const v1::Qos* qos = qos_of(preemptor);
      if (qos == nullptr || victim_qos == nullptr ||
          std::ranges::find(qos->preempt(), victim_qos->name()) == qos->preempt().end()) {
        return std::nullopt;
      }
      const std::string_view mode = victim_qos->preempt_mode();
      action = ActionOfMode(mode == "cluster" ? "" : mode, options.action);
      if (action == PreemptAction::kSuspend && partition.name() != victim_partition.name() &&
          partition.priority_tier() <= victim_partition.priority_tier()) {
        return std::nullopt;
      }
      break;
    }
  }
  if (action == PreemptAction::kOff) return std::nullopt;
  const int64_t exempt = victim_qos != nullptr && victim_qos->preempt_exempt_time_sec() > 0
                             ? victim_qos->preempt_exempt_time_sec()
                             : options.exempt_sec;
  if (victim.start_time() + exempt > now) return std::nullopt;
  return action;
}

std::vector<uint32_t> ResumableJobs(const state::ClusterState& state) {
  std::vector<uint32_t> out;
  std::map<uint32_t, uint64_t> taken;  // node index -> CPUs the jobs before took back
  for (const auto& [id, job] : state.jobs) {
    if (job.preempted_by() == 0 || state::JobStateOf(job).base != model::JobBaseState::kSuspended) {
      continue;
    }
    const state::NodeShares shares = state::SharesOf(state, job);
    bool free = true;
    for (size_t k = 0; k < shares.nodes.size() && free; ++k) {
      const v1::Node& node = state.nodes[shares.nodes[k]];
      free = node.alloc_cpus() + taken[shares.nodes[k]] + shares.cpus[k] <= node.cpus();
    }
    if (!free) continue;
    for (size_t k = 0; k < shares.nodes.size(); ++k) taken[shares.nodes[k]] += shares.cpus[k];
    out.push_back(id);
  }
  return out;
}

}  // namespace gantry::sched
