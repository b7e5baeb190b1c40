// Preemption rules (slurm.conf PreemptType, PreemptMode, PreemptExemptTime; partitions'
// PreemptMode; QOS Preempt, PreemptMode, PreemptExemptTime): which running jobs a pending job
// may preempt, and what preempting each one does. sched/preemptor.h implements them behind one
// interface; the scheduler pass (sched/scheduler.h) places the preemptor and picks the victims
// among the candidates it allows.
//
//   preempt/partition_prio  a job preempts running jobs of partitions with a lower PriorityTier
//                           whose PreemptMode (the partition's, else the cluster's) is not OFF.
//   preempt/qos             a job preempts running jobs whose QOS its QOS's Preempt list names;
//                           their QOS's PreemptMode (else the cluster's) says what happens; with
//                           SUSPEND only from the same partition or one of a higher tier.
//   Never a job within its exempt time: start + PreemptExemptTime (its QOS's when set, else the
//   cluster's) still after `now`. Modifiers: PRIORITY (the cluster's mode, or the victim's
//   partition's or QOS's): never a victim with a higher priority than the preemptor. WITHIN
//   (preempt/qos; the cluster's or the QOS's): jobs of one QOS may preempt that QOS's jobs of a
//   lower priority.
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
  bool priority = false;  // PRIORITY: only victims whose priority is not above the preemptor's
  bool within = false;    // WITHIN (qos): a QOS's jobs may preempt its own lower-priority ones

  // From slurm.conf's values ("" = unset). Errors name the key, the value and the rule.
  static Result<PreemptOptions> FromConfig(std::string_view type, std::string_view mode,
                                           std::string_view exempt_time);
};

// The base action of a PreemptMode value ("SUSPEND,GANG" -> kSuspend; "" -> `fallback`; "OFF",
// "GANG" -> kOff).
PreemptAction ActionOfMode(std::string_view mode, PreemptAction fallback);

// The jobs preemption suspended (Job.preempted_by) whose CPUs are free again on every node of
// theirs, the longest suspended first; each one's CPUs count as taken for the ones after it.
// Resuming them before a pass gives them back their place, as Slurm's gang scheduler does.
std::vector<uint32_t> ResumableJobs(const state::ClusterState& state);

// Gang time-slicing (GANG in the cluster's PreemptMode, a partition with OverSubscribe=FORCE[:n]):
// up to n jobs share each CPU of the partition's nodes and take turns every
// SchedulerTimeSlice. A pending job of such a partition may suspend running jobs of the same
// partition that have run a whole slice since they (re)started (the scheduler pass does it,
// PreemptionOf's rules aside); TimeSlice gives the other half of the turn: for each job that
// time-slicing suspended at least a slice ago and that fits once they are suspended, the running
// jobs of its partition on its nodes that have run a slice (each suspended for it, once).
// ResumableJobs then resumes the one that waited longest.
uint32_t ForceShares(const v1::Partition& partition);  // n of FORCE[:n] (FORCE: 4); 0 if not
bool TimeSliced(const PreemptOptions& options, const v1::Partition& partition);
int64_t ActiveSince(const v1::Job& job);  // start, or the last resume
struct SliceSuspension {
  uint32_t job_id;
  uint32_t for_job;
};
std::vector<SliceSuspension> TimeSlice(const state::ClusterState& state,
                                       const PreemptOptions& options, int64_t slice_sec,
                                       int64_t now);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_PREEMPT_H_
