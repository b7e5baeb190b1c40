// Who may preempt whom, behind one interface: an implementation per PreemptType (Slurm's
// preempt/none, preempt/partition_prio and preempt/qos plugins) and GANG time-slicing in front
// of any of them (sched/preempt.h has the rules in words). The scheduler pass asks a Preemptor
// which running jobs a pending job may take nodes from, what that does to each, and in which
// order Slurm takes candidates off; placing the preemptor and picking victims stay the pass's.
// Pure; a Preemptor reads the state it was made for, which must outlive it.
#ifndef GANTRY_SCHED_PREEMPTOR_H_
#define GANTRY_SCHED_PREEMPTOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "sched/preempt.h"
#include "state/cluster_state.h"

namespace gantry::sched {

class Preemptor {
 public:
  virtual ~Preemptor() = default;

  // Whether jobs of partition `p` (an index into the state's partitions), `job` among them, may
  // preempt anyone at all: a cheap test before any node is looked at.
  virtual bool MayPreempt(const v1::Job& job, uint32_t p) const = 0;
  // What preempting running `victim` (of `victim_partition`) for `job` (to start in
  // `partition`) does at `now`; nullopt when it may not. Partitions are compared by address:
  // both are the state's.
  virtual std::optional<PreemptAction> ActionOn(const v1::Job& job, const v1::Partition& partition,
                                                const v1::Job& victim,
                                                const v1::Partition& victim_partition,
                                                int64_t now) const = 0;
  // Where `victim` comes in the plugin's order of candidates (taken off lowest first): its
  // partition's tier then its node count (partition_prio), its QOS's priority (qos).
  virtual std::pair<uint64_t, uint64_t> CandidateRank(const v1::Job& victim) const = 0;
  // Whether every preemption it allows outside time-slicing suspends the victim, which keeps
  // its memory and GRES: a node without room for them beside it can be passed over at once.
  virtual bool SuspendsOnly() const = 0;
};

// The preemptor of `options` over `state`; with GANG, time-slicing (`slice_sec` a turn) comes
// first in partitions that share CPUs (OverSubscribe=FORCE).
std::unique_ptr<const Preemptor> MakePreemptor(const state::ClusterState& state,
                                               const PreemptOptions& options, int64_t slice_sec);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_PREEMPTOR_H_
