#include "state/accounting.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "state/job_limits.h"
#include "state/usage.h"

namespace gantry::state {
namespace {

std::string AssociationLabel(const v1::Association& a) {
  std::string out = "association " + std::to_string(a.id()) + " (account " + a.account();
  if (!a.user().empty()) out += ", user " + a.user();
  if (!a.partition().empty()) out += ", partition " + a.partition();
  return out + ")";
}

}  // namespace

void ApplyAccountingChange(const v1::AccountingChange& change, AccountingDb* db) {
  for (const v1::Account& a : change.accounts()) db->accounts[a.name()] = a;
  for (const v1::AccountingUser& u : change.users()) db->users[u.name()] = u;
  for (const v1::Association& a : change.associations()) db->associations[a.id()] = a;
  for (const v1::Qos& q : change.qos()) db->qos[q.name()] = q;
  for (const std::string& name : change.removed_accounts()) db->accounts.erase(name);
  for (const std::string& name : change.removed_users()) db->users.erase(name);
  for (uint32_t id : change.removed_associations()) db->associations.erase(id);
  for (const std::string& name : change.removed_qos()) db->qos.erase(name);
  ResetUsage(change, db);
  ++db->version;
}

Status CheckAccounting(const AccountingDb& db) {
  const auto root = db.accounts.find("root");
  if (root == db.accounts.end()) return InvalidArgument("account root must exist");
  if (!root->second.parent().empty()) return InvalidArgument("account root has no parent");
  for (const auto& [name, account] : db.accounts) {
    if (name.empty()) return InvalidArgument("an account needs a name");
    if (name == "root") continue;
    // Parents must lead to root (no cycles, no missing parent).
    std::string at = name;
    for (size_t steps = 0; at != "root"; ++steps) {
      const auto it = db.accounts.find(at);
      if (it == db.accounts.end()) {
        return InvalidArgument("account " + name + ": parent account " + at + " does not exist");
      }
      if (steps > db.accounts.size()) {
        return InvalidArgument("account " + name + ": its parents form a cycle");
      }
      at = it->second.parent();
    }
  }
  if (!db.qos.contains("normal")) return InvalidArgument("QOS normal must exist");
  std::set<std::tuple<std::string_view, std::string_view, std::string_view>> seen;
  std::set<std::string_view> with_association;
  for (const auto& [id, a] : db.associations) {
    const std::string label = AssociationLabel(a);
    if (!db.accounts.contains(a.account())) {
      return InvalidArgument(label + ": account " + a.account() + " does not exist");
    }
    if (a.user().empty()) {
      if (!a.partition().empty()) {
        return InvalidArgument(label + ": an account's own association has no partition");
      }
      with_association.insert(a.account());
    } else if (!db.users.contains(a.user())) {
      return InvalidArgument(label + ": user " + a.user() + " does not exist");
    }
    if (!seen.emplace(a.account(), a.user(), a.partition()).second) {
      return InvalidArgument(label + " exists twice");
    }
    for (const std::string& q : a.qos()) {
      if (!db.qos.contains(q)) return InvalidArgument(label + ": QOS " + q + " does not exist");
    }
    if (!a.default_qos().empty() &&
        std::find(a.qos().begin(), a.qos().end(), a.default_qos()) == a.qos().end()) {
      return InvalidArgument(label + ": default QOS " + a.default_qos() + " is not one of its QOS");
    }
  }
  for (const auto& [name, account] : db.accounts) {
    if (!with_association.contains(name)) {
      return InvalidArgument("account " + name + " has no association");
    }
  }
  std::set<std::pair<std::string_view, std::string_view>> user_accounts;
  for (const auto& [id, a] : db.associations) user_accounts.emplace(a.user(), a.account());
  for (const auto& [name, user] : db.users) {
    if (name.empty()) return InvalidArgument("a user needs a name");
    if (!user_accounts.contains({name, user.default_account()})) {
      return InvalidArgument("user " + name + ": default account " + user.default_account() +
                             " is not one of its associations");
    }
  }
  return Status::Ok();
}

v1::AccountingChange DefaultAccounting() {
  v1::AccountingChange change;
  v1::Qos* normal = change.add_qos();
  normal->set_id(1);
  normal->set_name("normal");
  normal->set_description("Normal QOS default");
  normal->set_usage_factor(1.0);
  v1::Account* root = change.add_accounts();
  root->set_name("root");
  root->set_description("default root account");
  root->set_organization("root");
  v1::AccountingUser* user = change.add_users();
  user->set_name("root");
  user->set_default_account("root");
  user->set_admin_level(kAdminAdministrator);
  for (const char* name : {"", "root"}) {
    v1::Association* a = change.add_associations();
    a->set_id(static_cast<uint32_t>(change.associations_size()));
    a->set_account("root");
    a->set_user(name);
    a->set_shares(1);
    a->add_qos("normal");
  }
  return change;
}

v1::AccountingDb ToProto(const AccountingDb& db) {
  v1::AccountingDb out;
  out.set_version(db.version);
  for (const auto& [name, a] : db.accounts) *out.add_accounts() = a;
  for (const auto& [name, u] : db.users) *out.add_users() = u;
  for (const auto& [id, a] : db.associations) *out.add_associations() = a;
  for (const auto& [name, q] : db.qos) *out.add_qos() = q;
  out.mutable_association_usage()->insert(db.association_usage.begin(), db.association_usage.end());
  out.mutable_qos_usage()->insert(db.qos_usage.begin(), db.qos_usage.end());
  return out;
}

AccountingDb FromProto(const v1::AccountingDb& db) {
  AccountingDb out;
  out.version = db.version();
  for (const v1::Account& a : db.accounts()) out.accounts[a.name()] = a;
  for (const v1::AccountingUser& u : db.users()) out.users[u.name()] = u;
  for (const v1::Association& a : db.associations()) out.associations[a.id()] = a;
  for (const v1::Qos& q : db.qos()) out.qos[q.name()] = q;
  out.association_usage.insert(db.association_usage().begin(), db.association_usage().end());
  out.qos_usage.insert(db.qos_usage().begin(), db.qos_usage().end());
  return out;
}

const v1::Association* FindJobAssociation(const AccountingDb& db, std::string_view user,
                                          std::string_view account, std::string_view partition) {
  const v1::Association* any_partition = nullptr;
  for (const auto& [id, a] : db.associations) {
    if (a.user() != user || a.account() != account) continue;
    if (a.partition() == partition) return &a;
    if (a.partition().empty()) any_partition = &a;
  }
  return any_partition;
}

bool HasLimits(const AccountingDb& db) {
  auto any_tres = [](const auto& entity) {
    for (size_t k = 0; k < kTresLimitKinds; ++k) {
      if (!TresLimitText(entity, static_cast<TresLimitKind>(k)).empty()) return true;
    }
    return false;
  };
  if (std::ranges::any_of(db.qos, [&](const auto& entry) {
        const v1::Qos& q = entry.second;
        return q.has_max_wall_min() || q.has_max_jobs_per_user() ||
               q.has_max_submit_jobs_per_user() || q.has_grp_jobs() || q.has_grp_submit_jobs() ||
               q.has_grp_wall_min() || any_tres(q);
      })) {
    return true;
  }
  return std::ranges::any_of(db.associations, [&](const auto& entry) {
    const v1::Association& a = entry.second;
    return a.has_max_jobs() || a.has_max_submit_jobs() || a.has_grp_jobs() ||
           a.has_grp_submit_jobs() || a.has_max_wall_min() || a.has_grp_wall_min() || any_tres(a);
  });
}

std::vector<const v1::Association*> AccountChain(const AccountingDb& db, std::string_view account) {
  std::vector<const v1::Association*> out;
  std::string at(account);
  for (size_t steps = 0; !at.empty() && steps <= db.accounts.size(); ++steps) {
    for (const auto& [id, a] : db.associations) {
      if (a.user().empty() && a.account() == at) {
        out.push_back(&a);
        break;
      }
    }
    const auto it = db.accounts.find(at);
    if (it == db.accounts.end()) break;
    at = it->second.parent();
  }
  return out;
}

MaxLimits EffectiveMaxLimits(const AccountingDb& db, const v1::Association& a) {
  MaxLimits out;
  auto take = [&out](const v1::Association& from) {
    if (!out.max_jobs && from.has_max_jobs()) out.max_jobs = from.max_jobs();
    if (!out.max_submit_jobs && from.has_max_submit_jobs()) {
      out.max_submit_jobs = from.max_submit_jobs();
    }
    if (!out.max_wall_min && from.has_max_wall_min()) out.max_wall_min = from.max_wall_min();
  };
  take(a);
  for (const v1::Association* up : AccountChain(db, a.account())) {
    if (up != &a) take(*up);
  }
  return out;
}

int64_t PreemptExemptSeconds(const AccountingDb& db, const v1::Job& job, int64_t cluster_sec) {
  const auto qos = db.qos.find(job.request().qos());
  return qos != db.qos.end() && qos->second.preempt_exempt_time_sec() > 0
             ? qos->second.preempt_exempt_time_sec()
             : cluster_sec;
}

uint32_t EffectivePriority(const AccountingDb& db, const v1::Association& a) {
  if (a.has_priority()) return a.priority();
  for (const v1::Association* up : AccountChain(db, a.account())) {
    if (up->has_priority()) return up->priority();
  }
  return 0;
}

std::string DefaultQosOf(const v1::Association& association) {
  if (!association.default_qos().empty()) return association.default_qos();
  if (association.qos_size() == 1) return association.qos(0);
  return "normal";
}

}  // namespace gantry::state
