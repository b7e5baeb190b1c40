#include "slurm/sacctmgr_edit.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "model/tres_limit.h"
#include "slurm/command_util.h"
#include "slurm/sacctmgr_limits.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/tres.h"

namespace gantry::slurm {
namespace {

// The words after the entity: names, `where` conditions and `set` values.
struct SacctmgrEditWords {
  std::vector<std::string> names;
  std::vector<std::pair<std::string, std::string>> where;  // K=V before `set` (and after where)
  std::vector<std::pair<std::string, std::string>> set;
};

SacctmgrEditWords SacctmgrEditSort(const std::vector<std::string>& words) {
  SacctmgrEditWords out;
  bool in_set = false;
  for (const std::string& w : words) {
    if (text::EqualsIgnoreCase(w, "where")) {
      in_set = false;
      continue;
    }
    if (text::EqualsIgnoreCase(w, "set")) {
      in_set = true;
      continue;
    }
    const size_t eq = w.find('=');
    if (eq == std::string::npos) {
      for (std::string& n : SplitList(w)) out.names.push_back(std::move(n));
      continue;
    }
    // "QOS+=x" / "QOS-=x" keep their sign on the key (SetAssociationField reads it).
    (in_set ? out.set : out.where).emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  return out;
}

bool SacctmgrEditContains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string SacctmgrEditPad(std::string_view s, size_t width) {
  std::string out(s.substr(0, width));
  out.resize(width, ' ');
  return out;
}

uint32_t NextAssociationId(const v1::AccountingDb& db, const v1::AccountingChange& change) {
  uint32_t next = 1;
  for (const v1::Association& a : db.associations()) next = std::max(next, a.id() + 1);
  for (const v1::Association& a : change.associations()) next = std::max(next, a.id() + 1);
  return next;
}

const v1::Account* FindAccount(const v1::AccountingDb& db, std::string_view name) {
  for (const v1::Account& a : db.accounts()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
const v1::AccountingUser* FindUser(const v1::AccountingDb& db, std::string_view name) {
  for (const v1::AccountingUser& u : db.users()) {
    if (u.name() == name) return &u;
  }
  return nullptr;
}
const v1::Association* AccountAssociation(const v1::AccountingDb& db, std::string_view account) {
  for (const v1::Association& a : db.associations()) {
    if (a.account() == account && a.user().empty()) return &a;
  }
  return nullptr;
}

std::optional<uint32_t> AdminLevel(std::string_view value) {
  if (Keyword(value, "None", 1)) return 0;
  if (Keyword(value, "Operator", 1)) return 1;
  if (Keyword(value, "Administrator", 2) || Keyword(value, "Admin", 2)) return 2;
  return std::nullopt;
}

std::string UnknownSetting(const std::string& key, const std::string& value) {
  return " Unknown option: " + key + "=" + value + "\n";
}

std::string UnknownOption(const std::string& key, const std::string& value) {
  return UnknownSetting(key, value) + " Use keyword 'where' to modify condition\n";
}

constexpr char kRawUsageZero[] = " RawUsage can only be set to 0\n";

v1::Association* AddCopy(const v1::Association& a, v1::AccountingChange* change) {
  v1::Association* copy = change->add_associations();
  *copy = a;
  return copy;
}

// A MaxWall/GrpWall value in minutes; nullopt with *bad set when it does not read.
std::optional<uint32_t> WallMinutes(const std::string& value, std::string_view name,
                                    std::string* bad) {
  Result<int64_t> minutes = text::ParseDurationMinutes(value);
  if (!minutes.ok() || *minutes < 0 || *minutes >= UINT32_MAX) {
    *bad = " Bad " + std::string(name == "GrpWall" ? "GrpWall" : "MaxWall") +
           " time format: " + value + "\n";
    return std::nullopt;
  }
  return static_cast<uint32_t>(*minutes);
}

// Association-level settings (Fairshare, Priority, limits, QOS, DefaultQOS) applied to `a`. False
// for a key that is not one; *bad says why a value is refused.
bool SetAssociationField(const std::string& key, const std::string& value, v1::Association* a,
                         std::string* bad) {
  // Job-count limits: a count, or -1 to clear.
  using Setter = void (v1::Association::*)(uint32_t);
  using Clearer = void (v1::Association::*)();
  const struct {
    const char* name;
    size_t min;
    Setter set;
    Clearer clear;
  } kCounts[] = {
      {"MaxJobs", 4, &v1::Association::set_max_jobs, &v1::Association::clear_max_jobs},
      {"MaxSubmitJobs", 4, &v1::Association::set_max_submit_jobs,
       &v1::Association::clear_max_submit_jobs},
      {"GrpJobs", 4, &v1::Association::set_grp_jobs, &v1::Association::clear_grp_jobs},
      {"GrpSubmitJobs", 4, &v1::Association::set_grp_submit_jobs,
       &v1::Association::clear_grp_submit_jobs},
  };
  for (const auto& c : kCounts) {
    if (!Keyword(key, c.name, c.min)) continue;
    if (value == "-1") {
      (a->*c.clear)();
      return true;
    }
    const std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n || *n >= UINT32_MAX) {
      *bad = " Bad " + std::string(c.name) + " value: " + value + "\n";
    } else {
      (a->*c.set)(static_cast<uint32_t>(*n));
    }
    return true;
  }
  if (const std::optional<TresLimitName> tres = TresLimitNamed(key)) {
    std::string* limit = model::MutableTresLimit(a, tres->kind);
    if (limit == nullptr) return false;
    if (value == "-1" || value.empty()) {
      limit->clear();
    } else {
      MergeTresLimit(value, limit, bad);
    }
    return true;
  }
  for (const auto& [name, min, has_set, clear] : {
           std::tuple{"MaxWallDurationPerJob", size_t{4}, &v1::Association::set_max_wall_min,
                      &v1::Association::clear_max_wall_min},
           std::tuple{"GrpWall", size_t{4}, &v1::Association::set_grp_wall_min,
                      &v1::Association::clear_grp_wall_min},
       }) {
    if (!Keyword(key, name, min)) continue;
    if (value == "-1") {
      (a->*clear)();
    } else if (std::optional<uint32_t> minutes = WallMinutes(value, name, bad)) {
      (a->*has_set)(*minutes);
    }
    return true;
  }
  if (Keyword(key, "Priority", 3)) {
    const std::optional<uint64_t> n = ParseUnsigned(value);
    if (value == "-1") {
      a->clear_priority();
    } else if (!n || *n >= UINT32_MAX) {
      *bad = "sacctmgr: error: Invalid value for Priority (" + value + ")\n" +
             UnknownOption(key, value);
    } else {
      a->set_priority(static_cast<uint32_t>(*n));
    }
    return true;
  }
  if (Keyword(key, "Fairshare", 1) || Keyword(key, "Shares", 1)) {
    const std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n || *n > UINT32_MAX) {
      *bad = " Bad Fairshare value: " + value + "\n";
    } else {
      a->set_shares(static_cast<uint32_t>(*n));
    }
    return true;
  }
  if (Keyword(key, "DefaultQOS", 3)) {
    a->set_default_qos(value);
    return true;
  }
  const char sign = !key.empty() && (key.back() == '+' || key.back() == '-') ? key.back() : 0;
  const std::string base = sign != 0 ? key.substr(0, key.size() - 1) : key;
  if (Keyword(base, "QosLevel", 1) || Keyword(base, "QOS", 1)) {
    // QOS=a,b sets the list; QOS+=a adds to it and QOS-=a takes from it.
    std::set<std::string> qos;
    if (sign != 0) qos.insert(a->qos().begin(), a->qos().end());
    for (const std::string& q : SplitList(value)) {
      if (sign == '-') {
        qos.erase(q);
      } else {
        qos.insert(q);
      }
    }
    a->clear_qos();
    for (const std::string& q : qos) a->add_qos(q);
    return true;
  }
  return false;
}

using Settings = std::vector<std::pair<std::string, std::string>>;

// A `set` key that is an association setting: checked and kept in *fields. Returns the error
// text ("" when it is one and its value is good).
std::string TakeAssociationSetting(const std::string& key, const std::string& value,
                                   Settings* fields) {
  v1::Association probe;
  std::string bad;
  if (!SetAssociationField(key, value, &probe, &bad)) return UnknownOption(key, value);
  if (bad.empty()) fields->emplace_back(key, value);
  return bad;
}

bool HasKey(const Settings& fields, std::string_view name, size_t min) {
  return std::ranges::any_of(fields, [&](const auto& f) { return Keyword(f.first, name, min); });
}

void ApplySettings(const Settings& fields, v1::Association* a) {
  std::string unused;  // checked by TakeAssociationSetting
  for (const auto& [key, value] : fields) SetAssociationField(key, value, a, &unused);
}

// QOS settings; false for a key that is not one.
// A QOS setting; false for a key that is not one. *label gets its name as sacctmgr prints it.
bool SetQosField(const std::string& key, const std::string& value, v1::Qos* q, std::string* bad,
                 std::string* label = nullptr) {
  std::string unused;
  std::string& name = label != nullptr ? *label : unused;
  auto number = [&](const char* what) -> std::optional<uint32_t> {
    const std::optional<uint64_t> n = ParseUnsigned(value);
    if (!n || *n > UINT32_MAX) {
      *bad = " Bad " + std::string(what) + " value: " + value + "\n";
      return std::nullopt;
    }
    return static_cast<uint32_t>(*n);
  };
  if (Keyword(key, "Description", 1)) {
    name = "Description";
    q->set_description(value);
  } else if (Keyword(key, "Priority", 3)) {
    name = "Priority";
    if (auto n = number("Priority")) q->set_priority(*n);
  } else if (Keyword(key, "UsageFactor", 6)) {
    name = "UsageFactor";
    char* end = nullptr;
    const double f = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || f < 0) {
      *bad = " Bad UsageFactor value: " + value + "\n";
    } else {
      q->set_usage_factor(f);
    }
  } else if (Keyword(key, "GraceTime", 3)) {
    name = "GraceTime";
    if (auto n = number("GraceTime")) q->set_grace_time_sec(*n);
  } else if (const std::optional<TresLimitName> tres = TresLimitNamed(key)) {
    name = tres->label;
    std::string* limit = model::MutableTresLimit(q, tres->kind);
    if (value == "-1" || value.empty()) {
      limit->clear();
    } else {
      MergeTresLimit(value, limit, bad);
    }
  } else if (Keyword(key, "MaxWallDurationPerJob", 4)) {
    name = "MaxWall";
    if (value == "-1") {
      q->clear_max_wall_min();
    } else if (std::optional<uint32_t> minutes = WallMinutes(value, "MaxWall", bad)) {
      q->set_max_wall_min(*minutes);
    }
  } else if (Keyword(key, "GrpWall", 4)) {
    name = "GrpWall";
    if (value == "-1") {
      q->clear_grp_wall_min();
    } else if (std::optional<uint32_t> minutes = WallMinutes(value, "GrpWall", bad)) {
      q->set_grp_wall_min(*minutes);
    }
  } else if (Keyword(key, "GrpJobs", 4)) {
    name = "GrpJobs";
    if (value == "-1") {
      q->clear_grp_jobs();
    } else if (auto n = number("GrpJobs")) {
      q->set_grp_jobs(*n);
    }
  } else if (Keyword(key, "GrpSubmitJobs", 4)) {
    name = "GrpSubmitJobs";
    if (value == "-1") {
      q->clear_grp_submit_jobs();
    } else if (auto n = number("GrpSubmitJobs")) {
      q->set_grp_submit_jobs(*n);
    }
  } else if (Keyword(key, "MaxJobsPerUser", 10) || text::EqualsIgnoreCase(key, "MaxJobsPU")) {
    name = "MaxJobsPU";
    if (value == "-1") {
      q->clear_max_jobs_per_user();
    } else if (auto n = number("MaxJobsPerUser")) {
      q->set_max_jobs_per_user(*n);
    }
  } else if (Keyword(key, "MaxSubmitJobsPerUser", 16) ||
             text::EqualsIgnoreCase(key, "MaxSubmitPU")) {
    name = "MaxSubmitPU";
    if (value == "-1") {
      q->clear_max_submit_jobs_per_user();
    } else if (auto n = number("MaxSubmitJobsPerUser")) {
      q->set_max_submit_jobs_per_user(*n);
    }
  } else if (Keyword(key, "PreemptMode", 8)) {
    name = "PreemptMode";
    q->set_preempt_mode(text::AsciiToLower(value));
  } else if (Keyword(key, "PreemptExemptTime", 8)) {
    name = "PreemptExemptTime";
    // A duration ("01:00:00", "2-0", "30" minutes), as sacctmgr's time_str2secs reads it.
    const Result<int64_t> seconds = text::ParseDurationSeconds(value);
    if (!seconds.ok() || *seconds < 0 || *seconds > UINT32_MAX) {
      *bad = " Bad PreemptExemptTime value: " + value + "\n";
    } else {
      q->set_preempt_exempt_time_sec(static_cast<uint32_t>(*seconds));
    }
  } else if (Keyword(key, "Preempt", 7)) {
    name = "Preempt";
    q->clear_preempt();
    for (const std::string& p : SplitList(value)) q->add_preempt(p);
  } else if (Keyword(key, "Flags", 2)) {
    name = "Flags";
    q->clear_flags();
    for (const std::string& f : SplitList(value)) q->add_flags(f);
  } else {
    return false;
  }
  return true;
}

// A user's associations in sacctmgr's order: by account, a partition's newest first.
std::vector<const v1::Association*> UserAssociations(const v1::AccountingDb& db,
                                                     std::string_view user) {
  std::vector<const v1::Association*> out;
  for (const v1::Association& a : db.associations()) {
    if (a.user() == user) out.push_back(&a);
  }
  std::sort(out.begin(), out.end(), [](const v1::Association* x, const v1::Association* y) {
    return x->account() != y->account() ? x->account() < y->account() : x->id() > y->id();
  });
  return out;
}

std::string UserAssociationLine(const v1::Association& a, const std::string& cluster) {
  std::string line = "  U = " + SacctmgrEditPad(a.user(), 9) +
                     " A = " + SacctmgrEditPad(a.account(), 10) +
                     " C = " + SacctmgrEditPad(cluster, 10);
  if (!a.partition().empty()) line += " P = " + SacctmgrEditPad(a.partition(), 10);
  return line + "\n";
}

std::string ModifiedAssociationLine(const v1::Association& a, const std::string& cluster) {
  std::string line = "  C = " + SacctmgrEditPad(cluster, 10) +
                     " A = " + SacctmgrEditPad(a.account(), 20) +
                     " U = " + SacctmgrEditPad(a.user(), 9);
  if (!a.partition().empty()) line += " P = " + a.partition();
  return line + "\n";
}

Edit Nothing(const char* text) {
  Edit e;
  e.out = text;
  e.exit_code = 1;
  e.nothing = true;
  return e;
}

Edit Failed(std::string err) {
  Edit e;
  e.err = std::move(err);
  e.exit_code = 1;
  return e;
}

Edit AddAccounts(const SacctmgrEditWords& w, const v1::AccountingDb& db,
                 const std::string& cluster) {
  std::vector<std::string> names = w.names;
  std::string parent = "root";
  std::optional<std::string> description;
  std::optional<std::string> organization;
  v1::Association settings;  // association fields given
  bool settings_given = false;
  std::string bad;
  for (const auto& [key, value] : w.where) {
    if (Keyword(key, "Names", 1) || Keyword(key, "Accounts", 3)) {
      for (std::string& n : SplitList(value)) names.push_back(std::move(n));
    } else if (Keyword(key, "Description", 1)) {
      description = value;
    } else if (Keyword(key, "Organization", 1)) {
      organization = value;
    } else if (Keyword(key, "Parent", 1)) {
      parent = value;
    } else if (Keyword(key, "Clusters", 1)) {
      continue;  // one cluster per controller
    } else if (!SetAssociationField(key, value, &settings, &bad)) {
      return Failed(UnknownSetting(key, value));
    }
    settings_given = true;
  }
  if (!bad.empty()) return Failed(bad);
  if (names.empty()) return Failed(" Need name of account to add.\n");
  const v1::Association* parent_assoc = AccountAssociation(db, parent);
  if (FindAccount(db, parent) == nullptr || parent_assoc == nullptr) {
    return Failed(" The parent account '" + parent + "' doesn't exist.\n");
  }
  Edit e;
  e.problem = "Problem adding accounts";
  std::string list;
  std::string associations;
  for (const std::string& name : names) {
    if (FindAccount(db, name) != nullptr) continue;
    if (std::any_of(e.change.accounts().begin(), e.change.accounts().end(),
                    [&](const v1::Account& a) { return a.name() == name; })) {
      continue;
    }
    v1::Account* account = e.change.add_accounts();
    account->set_name(name);
    account->set_description(description.value_or(name));
    account->set_organization(organization.value_or(parent == "root" ? name : parent));
    account->set_parent(parent);
    v1::Association* a = e.change.add_associations();
    a->set_id(NextAssociationId(db, e.change));
    a->set_account(name);
    a->set_shares(settings.shares() != 0 ? settings.shares() : 1);
    if (settings.has_priority()) a->set_priority(settings.priority());
    *a->mutable_qos() = settings.qos().empty() ? parent_assoc->qos() : settings.qos();
    a->set_default_qos(settings.default_qos().empty() ? parent_assoc->default_qos()
                                                      : settings.default_qos());
    list += "  " + name + "\n";
    associations +=
        "  A = " + SacctmgrEditPad(name, 10) + " C = " + SacctmgrEditPad(cluster, 10) + "\n";
  }
  if (e.change.accounts().empty()) return Nothing(" Nothing new added.\n");
  e.out = " Adding Account(s)\n" + list +
          " Settings\n  Description     = " + description.value_or("Account Name") +
          "\n  Organization    = " + organization.value_or("Parent/Account Name") +
          "\n Associations\n" + associations;
  if (settings_given) e.out += " Settings\n  Parent        = " + parent + "\n";
  return e;
}

Edit AddUsers(const SacctmgrEditWords& w, const v1::AccountingDb& db, const std::string& cluster) {
  std::vector<std::string> names = w.names;
  std::vector<std::string> accounts;
  std::vector<std::string> partitions;
  std::optional<std::string> default_account;
  std::optional<uint32_t> admin;
  v1::Association settings;
  std::string bad;
  for (const auto& [key, value] : w.where) {
    if (Keyword(key, "Names", 1) || Keyword(key, "Users", 1)) {
      for (std::string& n : SplitList(value)) names.push_back(std::move(n));
    } else if (Keyword(key, "DefaultAccount", 3)) {
      default_account = value;
    } else if (Keyword(key, "Accounts", 2) || Keyword(key, "Acct", 4)) {
      for (std::string& a : SplitList(value)) accounts.push_back(std::move(a));
    } else if (Keyword(key, "Partitions", 1)) {
      for (std::string& p : SplitList(value)) partitions.push_back(std::move(p));
    } else if (Keyword(key, "AdminLevel", 2)) {
      admin = AdminLevel(value);
      if (!admin) return Failed(" Unknown AdminLevel: " + value + "\n");
    } else if (Keyword(key, "Clusters", 1)) {
      continue;
    } else if (!SetAssociationField(key, value, &settings, &bad)) {
      return Failed(UnknownSetting(key, value));
    }
  }
  if (!bad.empty()) return Failed(bad);
  if (names.empty()) return Failed(" Need name of user to add.\n");
  if (default_account && !SacctmgrEditContains(accounts, *default_account)) {
    accounts.insert(accounts.begin(), *default_account);
  }
  for (const std::string& account : accounts) {
    if (FindAccount(db, account) == nullptr) {
      return Failed(" This account '" + account +
                    "' doesn't exist.\n        Contact your admin to add this account.\n"
                    " No associations or wckeys created.\n");
    }
  }
  if (partitions.empty()) partitions.emplace_back();
  Edit e;
  e.problem = "Problem adding users";
  std::string added;
  std::string associations;
  for (const std::string& name : names) {
    const bool exists = FindUser(db, name) != nullptr;
    if (!exists) {
      if (accounts.empty()) return Failed(" Need a default account for these users to add.\n");
      v1::AccountingUser* user = e.change.add_users();
      user->set_name(name);
      user->set_default_account(default_account.value_or(accounts.front()));
      user->set_admin_level(admin.value_or(0));
      added += "  " + name + "\n";
    }
    for (const std::string& account : accounts) {
      for (const std::string& partition : partitions) {
        const bool have = std::any_of(
            db.associations().begin(), db.associations().end(), [&](const v1::Association& a) {
              return a.user() == name && a.account() == account && a.partition() == partition;
            });
        if (have) continue;
        const v1::Association* parent = AccountAssociation(db, account);
        v1::Association* a = e.change.add_associations();
        a->set_id(NextAssociationId(db, e.change));
        a->set_account(account);
        a->set_user(name);
        a->set_partition(partition);
        a->set_shares(settings.shares() != 0 ? settings.shares() : 1);
        if (settings.has_priority()) a->set_priority(settings.priority());
        if (parent != nullptr) {
          *a->mutable_qos() = settings.qos().empty() ? parent->qos() : settings.qos();
          a->set_default_qos(settings.default_qos().empty() ? parent->default_qos()
                                                            : settings.default_qos());
        }
        associations += UserAssociationLine(*a, cluster);
      }
    }
  }
  if (e.change.users().empty() && e.change.associations().empty()) {
    return Nothing(" Nothing new added.\n");
  }
  if (!added.empty()) {
    e.out = " Adding User(s)\n" + added;
    if (default_account || admin) {
      e.out += " Settings =\n";
      if (default_account) e.out += "  Default Account = " + *default_account + "\n";
      if (admin) {
        static const char* kLevels[] = {"None", "Operator", "Administrator"};
        e.out += "  Admin Level     = " + std::string(kLevels[*admin]) + "\n";
      }
    }
  }
  if (!associations.empty()) e.out += " Associations =\n" + associations;
  e.out += " Non Default Settings\n";
  return e;
}

Edit AddQos(const SacctmgrEditWords& w, const v1::AccountingDb& db) {
  std::vector<std::string> names = w.names;
  v1::Qos settings;
  std::map<std::string, std::string> shown;  // by label: sacctmgr lists them in name order
  std::string bad;
  for (const auto& [key, value] : w.where) {
    if (Keyword(key, "Names", 1)) {
      for (std::string& n : SplitList(value)) names.push_back(std::move(n));
      continue;
    }
    std::string label;
    if (!SetQosField(key, value, &settings, &bad, &label)) {
      return Failed(UnknownSetting(key, value));
    }
    if (label != "Description") shown[label] = value;
  }
  if (!bad.empty()) return Failed(bad);
  if (names.empty()) return Failed(" Need name of QOS to add.\n");
  uint32_t next_id = 1;
  for (const v1::Qos& q : db.qos()) next_id = std::max(next_id, q.id() + 1);
  Edit e;
  e.problem = "Problem adding QOS";
  std::string list;
  for (const std::string& name : names) {
    const bool exists = std::any_of(db.qos().begin(), db.qos().end(),
                                    [&](const v1::Qos& q) { return q.name() == name; });
    if (exists) continue;
    v1::Qos* q = e.change.add_qos();
    *q = settings;
    q->set_id(next_id++);
    q->set_name(name);
    if (settings.description().empty()) q->set_description(name);
    if (!settings.has_usage_factor()) q->set_usage_factor(1.0);
    list += "  " + name + "\n";
  }
  if (e.change.qos().empty()) return Nothing(" Nothing new added.\n");
  e.out = " Adding QOS(s)\n" + list + " Settings\n  Description    = " +
          (settings.description().empty() ? names.front() : settings.description()) + "\n";
  for (const auto& [label, value] : shown)
    e.out += "  " + SacctmgrEditPad(label, 24) + " = " + value + "\n";
  return e;
}

// The users, accounts or QOS a modify/delete names: positional names and Name=; the other
// `where` keys (user/account/partition) narrow associations.
struct Target {
  std::vector<std::string> names, accounts, partitions;
};

Result<Target> TargetOf(const SacctmgrEditWords& w, Entity entity) {
  Target t{w.names, {}, {}};
  for (const auto& [key, value] : w.where) {
    std::vector<std::string> values = SplitList(value);
    if (Keyword(key, "Names", 1) || (entity == Entity::kUser && Keyword(key, "Users", 1)) ||
        (entity == Entity::kAccount && Keyword(key, "Accounts", 2)) ||
        (entity == Entity::kQos && Keyword(key, "QOS", 1))) {
      t.names.insert(t.names.end(), values.begin(), values.end());
    } else if (Keyword(key, "Accounts", 2) || Keyword(key, "Acct", 4)) {
      t.accounts.insert(t.accounts.end(), values.begin(), values.end());
    } else if (Keyword(key, "Partitions", 1)) {
      t.partitions.insert(t.partitions.end(), values.begin(), values.end());
    } else if (Keyword(key, "Clusters", 1)) {
      continue;
    } else {
      return InvalidArgument(UnknownOption(key, value));
    }
  }
  return t;
}

Edit ModifyUsers(const SacctmgrEditWords& w, const v1::AccountingDb& db,
                 const std::string& cluster) {
  Result<Target> t = TargetOf(w, Entity::kUser);
  if (!t.ok()) return Failed(t.status().message());
  if (w.set.empty()) return Failed(" Nothing to set\n");
  std::optional<std::string> default_account;
  std::optional<uint32_t> admin;
  Settings assoc_fields;
  bool reset_usage = false;
  for (const auto& [key, value] : w.set) {
    if (Keyword(key, "RawUsage", 3)) {
      if (value != "0") return Failed(kRawUsageZero);
      reset_usage = true;
    } else if (Keyword(key, "DefaultAccount", 3)) {
      default_account = value;
    } else if (Keyword(key, "AdminLevel", 2)) {
      admin = AdminLevel(value);
      if (!admin) return Failed(" Unknown AdminLevel: " + value + "\n");
    } else if (std::string bad = TakeAssociationSetting(key, value, &assoc_fields); !bad.empty()) {
      return Failed(bad);
    }
  }
  Edit e;
  std::string users;
  std::string associations;
  for (const v1::AccountingUser& u : db.users()) {
    if (!t->names.empty() && !SacctmgrEditContains(t->names, u.name())) continue;
    if (default_account || admin) {
      v1::AccountingUser* changed = e.change.add_users();
      *changed = u;
      if (default_account) changed->set_default_account(*default_account);
      if (admin) changed->set_admin_level(*admin);
      users += "  " + u.name() + "\n";
    }
    if (assoc_fields.empty() && !reset_usage) continue;
    for (const v1::Association* a : UserAssociations(db, u.name())) {
      if (!t->accounts.empty() && !SacctmgrEditContains(t->accounts, a->account())) continue;
      if (!t->partitions.empty() && !SacctmgrEditContains(t->partitions, a->partition())) continue;
      if (reset_usage) e.change.add_reset_usage(a->id());
      if (!assoc_fields.empty()) ApplySettings(assoc_fields, AddCopy(*a, &e.change));
      associations += ModifiedAssociationLine(*a, cluster);
    }
  }
  if (users.empty() && associations.empty()) return Nothing(" Nothing modified\n");
  if (!users.empty()) e.after += " Modified users...\n" + users;
  if (!associations.empty()) e.after += " Modified user associations...\n" + associations;
  return e;
}

Edit ModifyAccounts(const SacctmgrEditWords& w, const v1::AccountingDb& db,
                    const std::string& cluster) {
  Result<Target> t = TargetOf(w, Entity::kAccount);
  if (!t.ok()) return Failed(t.status().message());
  if (w.set.empty()) return Failed(" Nothing to set\n");
  std::optional<std::string> description;
  std::optional<std::string> organization;
  std::optional<std::string> parent;
  Settings assoc_fields;
  bool reset_usage = false;
  for (const auto& [key, value] : w.set) {
    if (Keyword(key, "RawUsage", 3)) {
      if (value != "0") return Failed(kRawUsageZero);
      reset_usage = true;
    } else if (Keyword(key, "Description", 1)) {
      description = value;
    } else if (Keyword(key, "Organization", 1)) {
      organization = value;
    } else if (Keyword(key, "Parent", 1)) {
      parent = value;
    } else if (std::string bad = TakeAssociationSetting(key, value, &assoc_fields); !bad.empty()) {
      return Failed(bad);
    }
  }
  Edit e;
  std::string accounts;
  std::string associations;
  for (const v1::Account& account : db.accounts()) {
    if (!t->names.empty() && !SacctmgrEditContains(t->names, account.name())) continue;
    if (description || organization || parent) {
      v1::Account* changed = e.change.add_accounts();
      *changed = account;
      if (description) changed->set_description(*description);
      if (organization) changed->set_organization(*organization);
      if (parent) changed->set_parent(*parent);
      accounts += "  " + account.name() + "\n";
    }
    const v1::Association* own = AccountAssociation(db, account.name());
    if ((assoc_fields.empty() && !reset_usage) || own == nullptr) continue;
    if (reset_usage) e.change.add_reset_usage(own->id());
    if (!assoc_fields.empty()) ApplySettings(assoc_fields, AddCopy(*own, &e.change));
    associations += "  C = " + SacctmgrEditPad(cluster, 10) + " A = " + account.name() + " of " +
                    (account.parent().empty() ? "" : account.parent()) + "\n";
    // A Priority set on the account reaches its users' associations that set none (they inherit
    // it), and sacctmgr lists them too, newest first.
    if (!HasKey(assoc_fields, "Priority", 3)) continue;
    std::vector<const v1::Association*> inheriting;
    for (const v1::Association& a : db.associations()) {
      if (a.account() == account.name() && !a.user().empty() && !a.has_priority()) {
        inheriting.push_back(&a);
      }
    }
    std::ranges::sort(inheriting, std::greater<>(), &v1::Association::id);
    for (const v1::Association* a : inheriting) {
      associations += ModifiedAssociationLine(*a, cluster);
    }
  }
  if (accounts.empty() && associations.empty()) return Nothing(" Nothing modified\n");
  if (!accounts.empty()) e.after += " Modified accounts...\n" + accounts;
  if (!associations.empty()) e.after += " Modified account associations...\n" + associations;
  return e;
}

Edit ModifyQos(const SacctmgrEditWords& w, const v1::AccountingDb& db) {
  Result<Target> t = TargetOf(w, Entity::kQos);
  if (!t.ok()) return Failed(t.status().message());
  if (w.set.empty()) return Failed(" Nothing to set\n");
  Edit e;
  std::string list;
  for (const v1::Qos& q : db.qos()) {
    if (!t->names.empty() && !SacctmgrEditContains(t->names, q.name())) continue;
    v1::Qos changed = q;
    bool fields = false;
    for (const auto& [key, value] : w.set) {
      if (Keyword(key, "RawUsage", 3)) {
        if (value != "0") return Failed(kRawUsageZero);
        e.change.add_reset_qos_usage(q.name());
        continue;
      }
      std::string bad;
      if (!SetQosField(key, value, &changed, &bad)) return Failed(UnknownOption(key, value));
      if (!bad.empty()) return Failed(bad);
      fields = true;
    }
    if (fields) *e.change.add_qos() = std::move(changed);
    list += "  " + q.name() + "\n";
  }
  if (list.empty()) return Nothing(" Nothing modified\n");
  e.after = " Modified qos...\n" + list;
  return e;
}

// Users left without their default account's association by `removed` get another one, or go.
void FixDefaults(const v1::AccountingDb& db, const std::set<uint32_t>& removed,
                 const std::set<std::string>& removed_users, v1::AccountingChange* change) {
  for (const v1::AccountingUser& u : db.users()) {
    if (removed_users.contains(u.name())) continue;
    std::set<std::string> left;
    for (const v1::Association& a : db.associations()) {
      if (a.user() == u.name() && !removed.contains(a.id())) left.insert(a.account());
    }
    if (left.contains(u.default_account())) continue;
    if (left.empty()) {
      change->add_removed_users(u.name());
      continue;
    }
    v1::AccountingUser* changed = change->add_users();
    *changed = u;
    changed->set_default_account(*left.begin());
  }
}

Edit DeleteUsers(const SacctmgrEditWords& w, const v1::AccountingDb& db,
                 const std::string& cluster) {
  Result<Target> t = TargetOf(w, Entity::kUser);
  if (!t.ok()) return Failed(t.status().message());
  if (t->names.empty()) return Failed(" No conditions given\n");
  const bool whole = t->accounts.empty() && t->partitions.empty();
  Edit e;
  std::set<uint32_t> removed;
  std::set<std::string> removed_users;
  std::string list;
  for (const v1::AccountingUser& u : db.users()) {
    if (!SacctmgrEditContains(t->names, u.name())) continue;
    for (const v1::Association& a : db.associations()) {
      if (a.user() != u.name()) continue;
      if (!t->accounts.empty() && !SacctmgrEditContains(t->accounts, a.account())) continue;
      if (!t->partitions.empty() && !SacctmgrEditContains(t->partitions, a.partition())) continue;
      removed.insert(a.id());
      e.change.add_removed_associations(a.id());
      if (!whole) list += ModifiedAssociationLine(a, cluster);
    }
    if (whole) {
      removed_users.insert(u.name());
      e.change.add_removed_users(u.name());
      list += "  " + u.name() + "\n";
    }
  }
  if (list.empty()) return Nothing(" Nothing deleted\n");
  FixDefaults(db, removed, removed_users, &e.change);
  e.after = (whole ? " Deleting users...\n" : " Deleting user associations...\n") + list;
  return e;
}

Edit DeleteAccounts(const SacctmgrEditWords& w, const v1::AccountingDb& db) {
  Result<Target> t = TargetOf(w, Entity::kAccount);
  if (!t.ok()) return Failed(t.status().message());
  if (t->names.empty()) return Failed(" No conditions given\n");
  Edit e;
  std::set<uint32_t> removed;
  std::string list;
  for (const v1::Account& account : db.accounts()) {
    if (!SacctmgrEditContains(t->names, account.name())) continue;
    if (account.name() == "root") return Failed(" You can't remove the root account\n");
    for (const v1::Account& child : db.accounts()) {
      if (child.parent() == account.name() && !SacctmgrEditContains(t->names, child.name())) {
        return Failed(" Account '" + account.name() + "' has child account '" + child.name() +
                      "': delete or move it first\n");
      }
    }
    e.change.add_removed_accounts(account.name());
    for (const v1::Association& a : db.associations()) {
      if (a.account() != account.name()) continue;
      removed.insert(a.id());
      e.change.add_removed_associations(a.id());
    }
    list += "  " + account.name() + "\n";
  }
  if (list.empty()) return Nothing(" Nothing deleted\n");
  FixDefaults(db, removed, {}, &e.change);
  e.after = " Deleting accounts...\n" + list;
  return e;
}

Edit DeleteQos(const SacctmgrEditWords& w, const v1::AccountingDb& db) {
  Result<Target> t = TargetOf(w, Entity::kQos);
  if (!t.ok()) return Failed(t.status().message());
  if (t->names.empty()) return Failed(" No conditions given\n");
  Edit e;
  std::string list;
  for (const v1::Qos& q : db.qos()) {
    if (!SacctmgrEditContains(t->names, q.name())) continue;
    e.change.add_removed_qos(q.name());
    list += "  " + q.name() + "\n";
  }
  if (list.empty()) return Nothing(" Nothing deleted\n");
  // Associations stop naming the QOS.
  for (const v1::Association& a : db.associations()) {
    const bool names = std::any_of(a.qos().begin(), a.qos().end(), [&](const std::string& q) {
      return SacctmgrEditContains(t->names, q);
    });
    if (!names && !SacctmgrEditContains(t->names, a.default_qos())) continue;
    v1::Association* changed = e.change.add_associations();
    *changed = a;
    changed->clear_qos();
    for (const std::string& q : a.qos()) {
      if (!SacctmgrEditContains(t->names, q)) changed->add_qos(q);
    }
    if (SacctmgrEditContains(t->names, a.default_qos())) changed->clear_default_qos();
  }
  e.after = " Deleting QOS(s)...\n" + list;
  return e;
}

}  // namespace

bool ListSpec::Named(std::string_view name) const {
  return names.empty() || SacctmgrEditContains(names, name);
}

bool ListSpec::Matches(const v1::Association& a) const {
  if (!users.empty() && !SacctmgrEditContains(users, a.user())) return false;
  if (!accounts.empty() && !SacctmgrEditContains(accounts, a.account())) return false;
  if (!partitions.empty() && !SacctmgrEditContains(partitions, a.partition())) return false;
  return true;
}

Result<ListSpec> ParseListSpec(Entity entity, const std::vector<std::string>& words) {
  ListSpec spec;
  for (const std::string& word : words) {
    if (text::EqualsIgnoreCase(word, "where")) continue;
    if (text::EqualsIgnoreCase(word, "withassoc")) {
      spec.with_assoc = true;
      continue;
    }
    if (text::EqualsIgnoreCase(word, "tree")) {
      spec.tree = true;
      continue;
    }
    const size_t eq = word.find('=');
    if (eq == std::string::npos) {
      for (std::string& n : SplitList(word)) spec.names.push_back(std::move(n));
      continue;
    }
    const std::string key = word.substr(0, eq);
    std::vector<std::string> values = SplitList(word.substr(eq + 1));
    auto add = [&](std::vector<std::string>* to) {
      to->insert(to->end(), values.begin(), values.end());
    };
    if (Keyword(key, "Format", 1)) {
      spec.format = word.substr(eq + 1);
    } else if (Keyword(key, "Names", 1) || Keyword(key, "Clusters", 1) || Keyword(key, "QOS", 1)) {
      add(&spec.names);
    } else if (Keyword(key, "Users", 1)) {
      add(entity == Entity::kUser ? &spec.names : &spec.users);
    } else if (Keyword(key, "Accounts", 2) || Keyword(key, "Acct", 4)) {
      add(entity == Entity::kAccount ? &spec.names : &spec.accounts);
    } else if (Keyword(key, "Partitions", 1)) {
      add(&spec.partitions);
    } else {
      return InvalidArgument("Unknown condition: " + word);
    }
  }
  return spec;
}

Edit WorkOutEdit(EditVerb verb, Entity entity, const std::vector<std::string>& words,
                 const v1::AccountingDb& db, const std::string& cluster) {
  const SacctmgrEditWords w = SacctmgrEditSort(words);
  switch (verb) {
    case EditVerb::kAdd:
      if (entity == Entity::kAccount) return AddAccounts(w, db, cluster);
      if (entity == Entity::kUser) return AddUsers(w, db, cluster);
      return AddQos(w, db);
    case EditVerb::kModify:
      if (entity == Entity::kAccount) return ModifyAccounts(w, db, cluster);
      if (entity == Entity::kUser) return ModifyUsers(w, db, cluster);
      return ModifyQos(w, db);
    case EditVerb::kDelete:
      if (entity == Entity::kAccount) return DeleteAccounts(w, db);
      if (entity == Entity::kUser) return DeleteUsers(w, db, cluster);
      return DeleteQos(w, db);
  }
  return Failed("unknown command\n");
}

}  // namespace gantry::slurm
