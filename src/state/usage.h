// Usage that accounting limits count (GrpWall, GrpTRESMins: sacctmgr's RawUsage), kept per
// association and per QOS in the accounting database and decayed with PriorityDecayHalfLife.
//
// When a job that ran ends, its run time and its TRES x run time are added to the tally of its
// association, of every account association above it (an account's usage includes its
// children's, as in Slurm), and of its QOS. A tally holds its amounts as of `as_of`; reading
// it at a later time halves them every half-life (no decay with half-life 0). A reset
// (RawUsage=0) empties an association's tally and those under it, and takes what it held off the
// accounts above. Deterministic: the same events give the same tallies. Pure; thread-compatible.
#ifndef GANTRY_STATE_USAGE_H_
#define GANTRY_STATE_USAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gantry/v1/accounting.pb.h"
#include "gantry/v1/job.pb.h"
#include "state/accounting.h"

namespace gantry::state {

// TRES amounts by name ("cpu", "mem" in MiB, "node", "billing", "gres/gpu"): a handful per job,
// kept in a flat list (a scheduling pass builds one per pending job).
class TresAmounts {
 public:
  using Entry = std::pair<std::string, int64_t>;
  // The amount of `tres`; 0 when absent.
  int64_t Get(std::string_view tres) const;
  // The amount of `tres`, added as 0 when absent.
  int64_t& operator[](std::string_view tres);
  std::vector<Entry>::const_iterator begin() const { return entries_.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries_.end(); }

 private:
  std::vector<Entry> entries_;
};

// What a job holds once it runs (its allocation) or, pending, asks for; billing is Job.billing
// truncated (its CPUs when unset).
TresAmounts JobTresOf(const v1::Job& job);
// The same for one of cpu, mem, node and billing without building the list (0 for others).
int64_t JobBaseTres(const v1::Job& job, std::string_view tres);
// Job.billing exactly (what usage is charged by); its CPUs when unset.
double JobBilling(const v1::Job& job);

// `tally` read at `now`: decayed from its as_of. Amounts only shrink (a `now` before as_of
// reads them as they are).
v1::UsageTally DecayedUsage(const v1::UsageTally& tally, int64_t now, int64_t half_life_sec);

// The associations a job's usage counts for: its own (if it still exists), then its account's
// and every account's above, up to root's.
std::vector<uint32_t> UsageAssociationsOf(const AccountingDb& db, const v1::Job& job);

// Adds the run of `job` (start to `end`, times its QOS's UsageFactor) to the tallies its
// association, accounts and QOS keep in `db` (jobs whose association is gone count for the
// accounts and QOS that remain).
void AddJobUsage(const v1::Job& job, int64_t end, AccountingDb* db);

// RawUsage=0 for the associations and QOS `change` names (AccountingChange.reset_usage...).
void ResetUsage(const v1::AccountingChange& change, AccountingDb* db);

}  // namespace gantry::state

#endif  // GANTRY_STATE_USAGE_H_
