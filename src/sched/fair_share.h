// Fair-share as Slurm's priority/multifactor computes it, over the association tree.
//
// Usage: an association's raw usage is its decayed tally (state/usage.h; an account's tally
// already holds everything run under it) in billing-seconds, plus what the running jobs under it
// have used so far (billing x run time x their QOS's UsageFactor). Slurm adds running jobs'
// usage every PriorityCalcPeriod; here it is exact at `now`.
//
// Fair Tree (the default): among siblings (the user associations of an account and its
// sub-accounts), NormShares S = own shares / the siblings' shares, EffectvUsage U = own usage /
// parent's usage (0 when the parent has none), LevelFS = S / U (infinite when U = 0 and S > 0;
// 0 when S = 0). Siblings are visited by LevelFS, highest first, users before accounts on equal
// LevelFS (otherwise in sshare's order); a user gets rank / N as its fair-share factor
// (N = every user association), the rank dropping by one per user except that users tied with
// the previous sibling (equal LevelFS, or first under an account tied with its previous
// sibling) keep the previous rank; an account is descended into where it stands. So every user
// under a better-served account ranks above every user under a worse-served one.
//
// Classic (PriorityFlags=NO_FAIR_TREE): NormShares = the product down the tree of each level's
// share; NormUsage = usage / root usage; EffectvUsage of a top-level association is its
// NormUsage, below it is NormUsage + (parent's EffectvUsage - NormUsage) x shares / siblings'
// shares; the factor is 2^(-EffectvUsage / NormShares / FairShareDampeningFactor).
// Pure; thread-compatible.
#ifndef GANTRY_SCHED_FAIR_SHARE_H_
#define GANTRY_SCHED_FAIR_SHARE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "state/accounting.h"

namespace gantry::sched {

enum class FairShareAlgorithm { kFairTree, kClassic };

// One association as sshare shows it.
struct ShareRow {
  uint32_t association_id = 0;
  std::string account;
  std::string user;       // "" for an account's own association
  std::string partition;  // "" = every partition
  std::string parent;     // the parent account ("" for root)
  int depth = 0;          // root 0, its children 1, ...
  uint32_t raw_shares = 0;
  double norm_shares = 0;
  double raw_usage = 0;        // decayed billing-seconds
  double norm_usage = 0;       // raw usage / root's
  double effective_usage = 0;  // Fair Tree: / parent's; classic: see above
  double level_fs = 0;         // Fair Tree only; +inf when unused
  double fair_share = 0;       // users: the fair-share factor
};

struct FairShare {
  // Every association in sshare's order: depth first from root, users (by name, a user's
  // associations newest first) before sub-accounts (by name) under each account.
  std::vector<ShareRow> rows;
  size_t user_associations = 0;
  std::map<uint32_t, size_t> row_of;  // association id -> index in rows

  // The factor of a user association by id (0 for an unknown one).
  double FactorOf(uint32_t association_id) const;
};

// The fair-share of every association at `now`; `running` are the jobs running now (their usage
// so far counts); dampening = FairShareDampeningFactor (classic only).
FairShare ComputeFairShare(const state::AccountingDb& db, std::span<const v1::Job* const> running,
                           int64_t now, FairShareAlgorithm algorithm, double dampening = 1.0);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_FAIR_SHARE_H_
