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
