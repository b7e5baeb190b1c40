#include "sched/preempt.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "model/job_state.h"
#include "state/accounting.h"
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
    if (word == "PRIORITY") o.priority = true;
    if (word == "WITHIN") o.within = true;
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
  const auto has = [](std::string_view mode, std::string_view word) {
    return text::AsciiToUpper(mode).find(word) != std::string::npos;
  };
  bool by_priority = options.priority;
  PreemptAction action = PreemptAction::kOff;
  switch (options.type) {
    case PreemptType::kNone:
      return std::nullopt;
    case PreemptType::kPartitionPrio:
      if (partition.priority_tier() <= victim_partition.priority_tier()) return std::nullopt;
      action = ActionOfMode(victim_partition.preempt_mode(), options.action);
      by_priority = by_priority || has(victim_partition.preempt_mode(), "PRIORITY");
      break;
    case PreemptType::kQos: {
      const v1::Qos* qos = qos_of(preemptor);
      if (qos == nullptr || victim_qos == nullptr) return std::nullopt;
      const std::string_view mode = victim_qos->preempt_mode();
      const bool listed =
          std::ranges::find(qos->preempt(), victim_qos->name()) != qos->preempt().end();
      const bool within = qos == victim_qos && (options.within || has(mode, "WITHIN"));
      if (!listed && !within) return std::nullopt;
      if (within && !listed && victim.priority() >= preemptor.priority()) return std::nullopt;
      by_priority = by_priority || has(mode, "PRIORITY");
      action = ActionOfMode(mode == "cluster" ? "" : mode, options.action);
      if (action == PreemptAction::kSuspend && partition.name() != victim_partition.name() &&
          partition.priority_tier() <= victim_partition.priority_tier()) {
        return std::nullopt;
      }
      break;
    }
  }
  if (action == PreemptAction::kOff) return std::nullopt;
  if (by_priority && victim.priority() > preemptor.priority()) return std::nullopt;
  const int64_t exempt = state::PreemptExemptSeconds(state.accounting, victim, options.exempt_sec);
  if (victim.start_time() + exempt > now) return std::nullopt;
  return action;
}

namespace {

// The jobs preemption or time-slicing suspended (the state's index of them), longest suspended
// first (then by id).
std::vector<const v1::Job*> PreemptedJobs(const state::ClusterState& state) {
  std::vector<const v1::Job*> out;
  out.reserve(state.preempted.size());
  for (uint32_t id : state.preempted) {
    if (const v1::Job* job = state.FindJob(id)) out.push_back(job);
  }
  std::ranges::sort(out, [](const v1::Job* a, const v1::Job* b) {
    return std::pair(a->suspend_time(), a->job_id()) < std::pair(b->suspend_time(), b->job_id());
  });
  return out;
}

}  // namespace

std::vector<uint32_t> ResumableJobs(const state::ClusterState& state) {
  const std::vector<const v1::Job*> waiting = PreemptedJobs(state);
  std::vector<uint32_t> out;
  std::map<uint32_t, uint64_t> taken;  // node index -> CPUs the jobs before took back
  for (const v1::Job* waiter : waiting) {
    const v1::Job& job = *waiter;
    const uint32_t id = job.job_id();
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

uint32_t ForceShares(const v1::Partition& partition) {
  const std::string mode = text::AsciiToUpper(partition.oversubscribe());
  if (mode.rfind("FORCE", 0) != 0) return 0;
  if (mode.size() > 6 && mode[5] == ':') {
    uint32_t n = 0;
    for (char c : mode.substr(6)) {
      if (!text::IsAsciiDigit(c)) return 4;
      n = n * 10 + static_cast<uint32_t>(c - '0');
    }
    return std::max<uint32_t>(n, 1);
  }
  return 4;  // Slurm's default for FORCE
}

bool TimeSliced(const PreemptOptions& options, const v1::Partition& partition) {
  return options.gang && ForceShares(partition) > 1;
}

int64_t ActiveSince(const v1::Job& job) {
  return job.suspend_time() != 0 ? job.suspend_time() : job.start_time();
}

std::vector<SliceSuspension> TimeSlice(const state::ClusterState& state,
                                       const PreemptOptions& options, int64_t slice_sec,
                                       int64_t now) {
  std::vector<SliceSuspension> out;
  if (!options.gang) return out;
  std::set<uint32_t> suspending;
  for (const v1::Job* waiting : PreemptedJobs(state)) {
    const v1::Job& waiter = *waiting;
    const uint32_t id = waiter.job_id();
    if (now - waiter.suspend_time() < slice_sec) continue;
    const v1::Partition* partition = state.FindPartition(waiter.partition());
    if (partition == nullptr || !TimeSliced(options, *partition)) continue;
    // The running jobs of its partition on its nodes that had their slice, and whether the
    // waiter fits once they stop.
    const state::NodeShares shares = state::SharesOf(state, waiter);
    std::vector<uint32_t> turn;
    bool fits = true;
    for (size_t k = 0; k < shares.nodes.size() && fits; ++k) {
      const v1::Node& node = state.nodes[shares.nodes[k]];
      uint64_t freed = 0;
      for (uint32_t other : node.job_ids()) {
        const v1::Job* job = state.FindJob(other);
        if (job == nullptr || job->partition() != waiter.partition() ||
            state::JobStateOf(*job).base != model::JobBaseState::kRunning ||
            (now - ActiveSince(*job) < slice_sec && !suspending.contains(other))) {
          continue;
        }
        const state::NodeShares theirs = state::SharesOf(state, *job);
        for (size_t j = 0; j < theirs.nodes.size(); ++j) {
          if (theirs.nodes[j] == shares.nodes[k]) freed += theirs.cpus[j];
        }
        if (std::ranges::find(turn, other) == turn.end()) turn.push_back(other);
      }
      fits = node.alloc_cpus() - std::min<uint64_t>(node.alloc_cpus(), freed) + shares.cpus[k] <=
             node.cpus();
    }
    if (!fits || turn.empty()) continue;
    for (uint32_t other : turn) {
      if (suspending.insert(other).second) out.push_back({other, id});
    }
  }
  return out;
}

}  // namespace gantry::sched
