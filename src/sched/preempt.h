// Preemption rules (slurm.conf PreemptType, PreemptMode, PreemptExemptTime; partitions'
// PreemptMode; QOS Preempt, PreemptMode, PreemptExemptTime): which running jobs a pending job
// may preempt, and what preempting each one does. The scheduler pass (sched/scheduler.h) places
// the preemptor and picks the victims among these candidates.
//
//   preempt/partition_prio  a job preempts running jobs of partitions with a lower PriorityTier
//                           whose PreemptMode (the partition's, else the cluster's) is not OFF.
//   preempt/qos             a job preempts running jobs whose QOS its QOS's Preempt list names;
//                           their QOS's PreemptMode (else the cluster's) says what happens; with
//                           SUSPEND only from the same partition or one of a higher tier.
//   Never a job within its exempt time: start + PreemptExemptTime (its QOS's when set, else the
//   cluster's) still after `now`.
// The action is the mode's base: SUSPEND (the victim stops and keeps its memory and GRES; the
// preemptor takes its CPUs at once), REQUEUE (back to pending; a job that may not be requeued
// is cancelled) or CANCEL (ends PREEMPTED). GANG alone preempts nothing.
// Pure; thread-safe.
#ifndef GANTRY_SCHED_PREEMPT_H_
#define GANTRY_SCHED_PREEMPT_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "state/cluster_state.h"

namespace gantry::sched {

enum class PreemptType { kNone, kPartitionPrio, kQos };
enum class PreemptAction { kOff, kCancel, kRequeue, kSuspend };

struct PreemptOptions {
  PreemptType type = PreemptType::kNone;
  PreemptAction action = PreemptAction::kOff;  // the cluster's PreemptMode base
  bool gang = false;                           // GANG in the cluster's PreemptMode
  int64_t exempt_sec = 0;                      // PreemptExemptTime

  // From slurm.conf's values ("" = unset). Errors name the key, the value and the rule.
  static Result<PreemptOptions> FromConfig(std::string_view type, std::string_view mode,
                                           std::string_view exempt_time);
};

// The base action of a PreemptMode value ("SUSPEND,GANG" -> kSuspend; "" -> `fallback`; "OFF",
// "GANG" -> kOff).
PreemptAction ActionOfMode(std::string_view mode, PreemptAction fallback);

// What preempting `victim` (running, in partition `victim_partition`) for `preemptor` (pending,
// to start in `partition`) would do; nullopt when it may not be preempted for it at `now`.
std::optional<PreemptAction> PreemptionOf(const state::ClusterState& state,
                                          const PreemptOptions& options, const v1::Job& preemptor,
                                          const v1::Partition& partition, const v1::Job& victim,
                                          const v1::Partition& victim_partition, int64_t now);

// The jobs preemption suspended (Job.preempted_by) whose CPUs are free again on every node of
// theirs, in id order; each one's CPUs count as taken for the ones after it. Resuming them
// before a pass gives them back their place, as Slurm's gang scheduler does.
std::vector<uint32_t> ResumableJobs(const state::ClusterState& state);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_PREEMPT_H_
