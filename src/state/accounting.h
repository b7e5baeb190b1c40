// The accounting database in gantryd's state (sacctmgr's accounts, users, associations and
// QOS), the rules every version of it keeps, and the lookups admission makes.
//
// Rules (CheckAccounting):
//   - account `root` exists and has no parent; every other account's parent exists, and
//     following parents always ends at root;
//   - every account has its own association (user ""), and no two associations share
//     (account, user, partition);
//   - a user association's account and user exist; an account association has no partition;
//   - every user's default account is one of its associations' accounts;
//   - QOS `normal` exists; every QOS an association names (and its default QOS) exists, and the
//     default QOS is one of the association's QOS.
// Pure; thread-compatible.
#ifndef GANTRY_STATE_ACCOUNTING_H_
#define GANTRY_STATE_ACCOUNTING_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/accounting.pb.h"
#include "gantry/v1/job.pb.h"

namespace gantry::state {

struct AccountingDb {
  uint64_t version = 0;
  std::map<std::string, v1::Account, std::less<>> accounts;
  std::map<std::string, v1::AccountingUser, std::less<>> users;
  std::map<uint32_t, v1::Association> associations;  // by id
  std::map<std::string, v1::Qos, std::less<>> qos;
  // Usage (state/usage.h), by association id and by QOS name; not counted in `version`.
  std::map<uint32_t, v1::UsageTally> association_usage;
  std::map<std::string, v1::UsageTally, std::less<>> qos_usage;
  // PriorityDecayHalfLife in seconds (configuration, set by the owner; 0 = no decay).
  int64_t usage_half_life_sec = int64_t{7} * 24 * 3600;

  bool empty() const { return accounts.empty() && users.empty() && qos.empty(); }
};

// Admin levels (AccountingUser.admin_level).
inline constexpr uint32_t kAdminNone = 0;
inline constexpr uint32_t kAdminOperator = 1;
inline constexpr uint32_t kAdminAdministrator = 2;

// Applies a change as given (puts, then removals, then usage resets) and moves the version on by
// one.
void ApplyAccountingChange(const v1::AccountingChange& change, AccountingDb* db);

// The rules above; InvalidArgument naming the entity and the rule it breaks.
Status CheckAccounting(const AccountingDb& db);

// A new cluster's database: account root ("default root account"), user root
// (Administrator, default account root), their associations (QOS normal), and QOS normal
// ("Normal QOS default").
v1::AccountingChange DefaultAccounting();

v1::AccountingDb ToProto(const AccountingDb& db);
AccountingDb FromProto(const v1::AccountingDb& db);

// The association a job of `user` charged to `account` runs under in `partition`: the user's
// association for that partition, else its association for every partition; nullptr if none.
const v1::Association* FindJobAssociation(const AccountingDb& db, std::string_view user,
                                          std::string_view account, std::string_view partition);

// The QOS a job gets when it names none: the association's default QOS, else its only QOS,
// else "normal".
std::string DefaultQosOf(const v1::Association& association);

// Whether any association or QOS sets a limit (when none does, nothing needs counting).
bool HasLimits(const AccountingDb& db);

// The account's own association, then its parent's, up to root's (accounts without one are
// skipped).
std::vector<const v1::Association*> AccountChain(const AccountingDb& db, std::string_view account);

// The Max* limits that bind a job of association `a`: each from the first association that sets
// it, from `a` up its account chain.
struct MaxLimits {
  std::optional<uint32_t> max_jobs;
  std::optional<uint32_t> max_submit_jobs;
  std::optional<uint32_t> max_wall_min;
};
MaxLimits EffectiveMaxLimits(const AccountingDb& db, const v1::Association& a);

// PreemptExemptTime for `job`: its QOS's when set (non-zero), else `cluster_sec`.
int64_t PreemptExemptSeconds(const AccountingDb& db, const v1::Job& job, int64_t cluster_sec);

// Priority= of association `a`: its own, else the first its account chain sets; 0 when none.
uint32_t EffectivePriority(const AccountingDb& db, const v1::Association& a);

}  // namespace gantry::state

#endif  // GANTRY_STATE_ACCOUNTING_H_
