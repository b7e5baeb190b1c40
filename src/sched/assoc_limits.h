// Accounting limits in a scheduling pass (AccountingStorageEnforce=limits): which pending job
// may not start now because of its QOS's or its association's limits (state/job_limits.h says
// which limits, how each counts and Slurm's reason for it), counting the jobs that run and
// those the pass starts. A job without an association (not enforced when it was submitted) is
// limited by its QOS only.
// Pure; thread-compatible.
#ifndef GANTRY_SCHED_ASSOC_LIMITS_H_
#define GANTRY_SCHED_ASSOC_LIMITS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sched/scheduler.h"
#include "state/cluster_state.h"
#include "state/job_limits.h"

namespace gantry::sched {

class AssocLimits {
 public:
  // Counts the jobs running in `state` at `now`. Limits nothing when `state.enforce_limits` is
  // off or no association or QOS sets a limit.
  AssocLimits(const state::ClusterState& state, int64_t now);

  bool active() const { return active_; }
  // Why `job` may not start in `partition` with time limit `limit_min` ("" = it may).
  std::string_view Blocks(const v1::Job& job, std::string_view partition, uint32_t limit_min);
  // The job starts (this pass's decision): it counts from now on, with its allocation.
  void Started(const v1::Job& job, const Start& start);

 private:
  const v1::Association* AssociationOf(const v1::Job& job, std::string_view partition) const;
  static std::string Key(std::string_view user, std::string_view account,
                         std::string_view partition);
  state::LimitedJob Limited(const v1::Job& job, std::string_view partition,
                            uint32_t limit_min) const;

  const state::ClusterState& s_;
  const int64_t now_;
  bool active_ = false;
  state::JobLimits limits_;
  state::LimitUse use_;
  // User associations by (user, account, partition) key.
  std::unordered_map<std::string, const v1::Association*> by_key_;
  // The last AssociationOf answer.
  struct Last {
    bool found = false;
    std::string user, account, partition;
    const v1::Association* association = nullptr;
  };
  mutable Last last_;
};

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_ASSOC_LIMITS_H_
