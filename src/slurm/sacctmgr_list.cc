#include "slurm/sacctmgr_list.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace gantry::slurm {
namespace {

// Each account by name, with its depth in the tree (root 0).
struct AccountInfo {
  const v1::Account* account = nullptr;
  int depth = 0;
};
std::map<std::string, AccountInfo, std::less<>> AccountsByName(const v1::AccountingDb& db) {
  std::map<std::string, AccountInfo, std::less<>> out;
  for (const v1::Account& a : db.accounts()) out[a.name()].account = &a;
  for (auto& [name, info] : out) {
    std::string at = name;
    while (at != "root" && info.depth <= db.accounts_size()) {
      const auto up = out.find(at);
      if (up == out.end()) break;
      at = up->second.account->parent();
      ++info.depth;
    }
  }
  return out;
}

// The associations in sacctmgr's order: depth first from root; under each account its own
// association, then its users' (by user name, a user's partitions newest first), then its
// child accounts by name.
std::vector<const v1::Association*> TreeOrder(const v1::AccountingDb& db) {
  std::map<std::string, std::vector<std::string>> children;
  for (const v1::Account& a : db.accounts()) {
    if (!a.parent().empty()) children[a.parent()].push_back(a.name());
  }
  std::vector<const v1::Association*> out;
  std::vector<std::string> stack = {"root"};
  while (!stack.empty()) {
    const std::string account = stack.back();
    stack.pop_back();
    std::vector<const v1::Association*> own;
    for (const v1::Association& a : db.associations()) {
      if (a.account() == account) own.push_back(&a);
    }
    std::sort(own.begin(), own.end(), [](const v1::Association* x, const v1::Association* y) {
      if (x->user().empty() != y->user().empty()) return x->user().empty();
      if (x->user() != y->user()) return x->user() < y->user();
      return x->id() > y->id();
    });
    out.insert(out.end(), own.begin(), own.end());
    std::vector<std::string>& kids = children[account];
    std::sort(kids.rbegin(), kids.rend());
    stack.insert(stack.end(), kids.begin(), kids.end());
  }
  return out;
}

// Priority= of `a` as sacctmgr lists it: its own, else the nearest account's above it that sets
// one (Slurm stores the inherited value on the association).
std::optional<uint32_t> InheritedPriority(const v1::AccountingDb& db, const v1::Association& a) {
  if (a.has_priority()) return a.priority();
  std::string account = a.user().empty() ? "" : a.account();
  if (account.empty()) {
    for (const v1::Account& acct : db.accounts()) {
      if (acct.name() == a.account()) account = acct.parent();
    }
  }
  for (int depth = 0; !account.empty() && depth <= db.accounts_size(); ++depth) {
    std::string parent;
    for (const v1::Association& up : db.associations()) {
      if (up.account() == account && up.user().empty() && up.has_priority()) return up.priority();
    }
    for (const v1::Account& acct : db.accounts()) {
      if (acct.name() == account) parent = acct.parent();
    }
    account = parent;
  }
  return std::nullopt;
}

}  // namespace

Result<std::string> RenderAccountingListing(Entity entity, const ListSpec& spec,
                                            const v1::AccountingDb& db,
                                            const AccountingCluster& cluster,
                                            bool with_assoc_option, TableStyle style,
                                            bool no_header) {
  const bool with_assoc = with_assoc_option || spec.with_assoc;
  std::vector<AccountingRow> rows;
  std::vector<std::string_view> columns;
  const std::vector<const v1::Association*> tree = TreeOrder(db);
  auto assoc_rows = [&](const v1::Account* account, const v1::AccountingUser* user) {
    for (const v1::Association* a : tree) {
      if (account != nullptr && a->account() != account->name()) continue;
      if (user != nullptr && a->user() != user->name()) continue;
      if (!spec.Matches(*a)) continue;
      AccountingRow row;
      row.account = account;
      row.user = user;
      row.association = a;
      row.cluster = cluster.name;
      rows.push_back(row);
    }
  };
  switch (entity) {
    case Entity::kAccount:
      columns = {"Account", "Descr", "Org"};
      for (const v1::Account& a : db.accounts()) {
        if (!spec.Named(a.name())) continue;
        if (!with_assoc) {
          AccountingRow row;
          row.account = &a;
          rows.push_back(row);
        } else {
          assoc_rows(&a, nullptr);
        }
      }
      if (with_assoc) {
        columns = {"Account",   "Descr",    "Org",        "Cluster",  "ParentName", "User",
                   "Share",     "Priority", "GrpJobs",    "GrpNodes", "GrpCPUs",    "GrpMem",
                   "GrpSubmit", "GrpWall",  "GrpCPUMins", "MaxJobs",  "MaxNodes",   "MaxCPUs",
                   "MaxSubmit", "MaxWall",  "MaxCPUMins", "QOS",      "DefaultQOS"};
      }
      break;
    case Entity::kUser:
      columns = {"User", "DefaultAccount", "AdminLevel"};
      for (const v1::AccountingUser& u : db.users()) {
        if (!spec.Named(u.name())) continue;
        if (!with_assoc) {
          AccountingRow row;
          row.user = &u;
          rows.push_back(row);
          continue;
        }
        std::vector<AccountingRow> mine;
        for (const v1::Association& a : db.associations()) {
          if (a.user() == u.name() && spec.Matches(a)) {
            AccountingRow row;
            row.user = &u;
            row.association = &a;
            row.cluster = cluster.name;
            mine.push_back(row);
          }
        }
        std::sort(mine.begin(), mine.end(), [](const AccountingRow& x, const AccountingRow& y) {
          if (x.association->account() != y.association->account()) {
            return x.association->account() < y.association->account();
          }
          return x.association->id() > y.association->id();
        });
        rows.insert(rows.end(), mine.begin(), mine.end());
      }
      if (with_assoc) {
        columns = {"User",    "DefaultAccount", "AdminLevel", "Cluster",   "Account", "Partition",
                   "Share",   "Priority",       "MaxJobs",    "MaxNodes",  "MaxCPUs", "MaxSubmit",
                   "MaxWall", "MaxCPUMins",     "QOS",        "DefaultQOS"};
      }
      break;
    case Entity::kAssociation: {
      columns = {"Cluster",     "Account",     "User",    "Partition",      "Share",
                 "Priority",    "GrpJobs",     "GrpTRES", "GrpSubmit",      "GrpWall",
                 "GrpTRESMins", "MaxJobs",     "MaxTRES", "MaxTRESPerNode", "MaxSubmit",
                 "MaxWall",     "MaxTRESMins", "QOS",     "DefaultQOS",     "GrpTRESRunMins"};
      const auto accounts = AccountsByName(db);
      for (const v1::Association* a : tree) {
        if (!spec.Matches(*a)) continue;
        const auto info = accounts.find(a->account());
        AccountingRow row;
        row.account = info == accounts.end() ? nullptr : info->second.account;
        row.association = a;
        row.cluster = cluster.name;
        row.tree_depth = !spec.tree ? -1 : info == accounts.end() ? 0 : info->second.depth;
        rows.push_back(row);
      }
      break;
    }
    case Entity::kQos:
      columns = {"Name",        "Priority",       "GraceTime",   "Preempt",     "PreemptExemptTime",
                 "PreemptMode", "Flags",          "UsageThres",  "UsageFactor", "GrpTRES",
                 "GrpTRESMins", "GrpTRESRunMins", "GrpJobs",     "GrpSubmit",   "GrpWall",
                 "MaxTRES",     "MaxTRESPerNode", "MaxTRESMins", "MaxWall",     "MaxTRESPU",
                 "MaxJobsPU",   "MaxSubmitPU",    "MaxTRESPA",   "MaxJobsPA",   "MaxSubmitPA",
                 "MinTRES"};
      {
        std::vector<const v1::Qos*> sorted;
        for (const v1::Qos& q : db.qos()) {
          if (spec.Named(q.name())) sorted.push_back(&q);
        }
        std::sort(sorted.begin(), sorted.end(),
                  [](const v1::Qos* x, const v1::Qos* y) { return x->id() < y->id(); });
        for (const v1::Qos* q : sorted) {
          AccountingRow row;
          row.qos = q;
          rows.push_back(row);
        }
      }
      break;
    case Entity::kCluster: {
      columns = {"Cluster",   "ControlHost", "ControlPort", "RPC",       "Share",
                 "GrpJobs",   "GrpTRES",     "GrpSubmit",   "MaxJobs",   "MaxTRES",
                 "MaxSubmit", "MaxWall",     "QOS",         "DefaultQOS"};
      if (spec.Named(cluster.name)) {
        AccountingRow row;
        row.cluster = cluster.name;
        row.control_host = cluster.control_host;
        row.control_port = cluster.control_port;
        rows.push_back(row);
      }
      break;
    }
    case Entity::kNone:
      break;
  }
  Result<std::vector<AccountingColumn>> parsed = ParseAccountingFormat(spec.format, columns);
  if (!parsed.ok()) return parsed.status();
  if (spec.tree) {
    for (AccountingColumn& c : *parsed) {
      if (c.field->name == "Account" && c.width == c.field->width) c.width = -20;
    }
  }
  for (AccountingRow& row : rows) {
    if (row.association != nullptr) row.priority = InheritedPriority(db, *row.association);
  }
  return RenderAccountingTable(*parsed, rows, style, no_header);
}

}  // namespace gantry::slurm
