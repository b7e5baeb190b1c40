// Association limits in a scheduling pass (AccountingStorageEnforce=limits): which pending job
// may not start now because of MaxJobs, GrpJobs or MaxWall, with Slurm's reasons, counting the
// jobs that run and those the pass starts.
//   MaxJobs (the association's, else the first set up its account chain): jobs of the
//     association running or suspended                        AssocMaxJobsLimit
//   GrpJobs on an account's association: jobs running under that account, its children too
//                                                              AssocGrpJobsLimit
//   MaxWall: the job's time limit above it                    AssocMaxWallDurationPerJobLimit
//   GrpTRES on an account's association: the TRES of the jobs running under it plus the
//     job's (cpu, mem, node, gres/<name>; a pending job counts what it asks for)
//                          AssocGrpCpuLimit, AssocGrpMemLimit, AssocGrpNodeLimit, AssocGrpGRES
//   the job's QOS MaxWall: its time limit above it            QOSMaxWallDurationPerJobLimit
//   the job's QOS MaxJobsPerUser: the user's jobs in the QOS running
//                                                              QOSMaxJobsPerUserLimit
// A job without an association (not enforced when it was submitted) is not limited by them.
// Pure; thread-compatible.
#ifndef GANTRY_SCHED_ASSOC_LIMITS_H_
#define GANTRY_SCHED_ASSOC_LIMITS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sched/scheduler.h"
#include "state/cluster_state.h"

namespace gantry::sched {

class AssocLimits {
 public:
  // Counts the jobs running in `state`. Limits nothing when `state.enforce_limits` is off or
  // no association sets a limit.
  explicit AssocLimits(const state::ClusterState& state);

  bool active() const { return active_; }
  // Why `job` may not start in `partition` with time limit `limit_min` ("" = it may).
  std::string_view Blocks(const v1::Job& job, std::string_view partition, uint32_t limit_min);
  // The job starts (this pass's decision): it counts from now on, with its allocation.
  void Started(const v1::Job& job, const Start& start);

 private:
  const v1::Association* AssociationOf(const v1::Job& job, std::string_view partition) const;
  // The account's association and those above it (state::AccountChain), made once per pass.
  const std::vector<const v1::Association*>& ChainOf(const std::string& account);
  static std::string Key(std::string_view user, std::string_view account,
                         std::string_view partition);
  // One more running job of `job`'s association holding `holds`.
  void Count(const v1::Job& job, std::string_view partition,
             const std::map<std::string, int64_t>& holds);

  const state::ClusterState& s_;
  bool active_ = false;
  std::map<uint32_t, uint32_t> running_;                          // association id -> jobs
  std::map<std::string, uint32_t, std::less<>> account_running_;  // account -> jobs below it
  // User associations by (user, account, partition) key, and account chains.
  std::unordered_map<std::string, const v1::Association*> by_key_;
  std::unordered_map<std::string, uint32_t> qos_user_running_;  // (user, QOS) -> running jobs
  std::map<std::string, std::vector<const v1::Association*>, std::less<>> chains_;
  std::map<uint32_t, state::MaxLimits> max_;  // association id -> its limits
  // account -> TRES ("cpu", "mem", "node", "gres/gpu") -> amount of the jobs running below it.
  std::map<std::string, std::map<std::string, int64_t>, std::less<>> account_tres_;
  // Parsed GrpTRES, by association id.
  std::map<uint32_t, std::vector<std::pair<std::string, int64_t>>> grp_tres_;
};

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_ASSOC_LIMITS_H_
