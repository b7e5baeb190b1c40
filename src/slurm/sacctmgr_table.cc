#include "slurm/sacctmgr_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "model/tres_limit.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::slurm {
namespace {

// The widest column format=name%N makes (Slurm's own layout has no limit; none is useful).
constexpr int kMaxColumnWidth = 4096;

std::string Join(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::string Empty(const AccountingRow& /*row*/) { return ""; }

// An association's own limit ("" when unset).
template <bool (v1::Association::*has)() const, uint32_t (v1::Association::*get)() const>
std::string Count(const AccountingRow& r) {
  if (r.association == nullptr || !(r.association->*has)()) return "";
  return std::to_string((r.association->*get)());
}

// A count limit the row's QOS or association sets ("" when unset).
template <bool (v1::Qos::*qos_has)() const, uint32_t (v1::Qos::*qos_get)() const,
          bool (v1::Association::*has)() const, uint32_t (v1::Association::*get)() const>
std::string EitherCount(const AccountingRow& r) {
  if (r.qos != nullptr) {
    return (r.qos->*qos_has)() ? std::to_string((r.qos->*qos_get)()) : "";
  }
  return Count<has, get>(r);
}

// A TRES-list limit of the row's QOS or association.
template <model::TresLimitKind kind>
std::string TresColumn(const AccountingRow& r) {
  if (r.qos != nullptr) return model::TresLimitText(*r.qos, kind);
  if (r.association != nullptr) return model::TresLimitText(*r.association, kind);
  return "";
}

// A wall-time limit in minutes, as [days-]hours:minutes:seconds.
template <bool (v1::Qos::*qos_has)() const, uint32_t (v1::Qos::*qos_get)() const,
          bool (v1::Association::*has)() const, uint32_t (v1::Association::*get)() const>
std::string WallColumn(const AccountingRow& r) {
  if (r.qos != nullptr) {
    return (r.qos->*qos_has)() ? text::FormatDurationMinutes((r.qos->*qos_get)()) : "";
  }
  if (r.association == nullptr || !(r.association->*has)()) return "";
  return text::FormatDurationMinutes((r.association->*get)());
}

std::string AccountOf(const AccountingRow& r) {
  if (r.association == nullptr) return r.account != nullptr ? r.account->name() : "";
  if (r.tree_depth < 0) return r.association->account();
  const int depth = r.tree_depth + (r.association->user().empty() ? 0 : 1);
  return std::string(static_cast<size_t>(depth), ' ') + r.association->account();
}

std::string AdminLevelName(uint32_t level) {
  switch (level) {
    case 1:
      return "Operator";
    case 2:
      return "Administrator";
    default:
      return "None";
  }
}

std::string Duration(uint32_t seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02u:%02u:%02u", seconds / 3600, seconds / 60 % 60,
                seconds % 60);
  return buf;
}

// The title and default width of every column, as sacctmgr 22.05 prints them.
constexpr AccountingField kSacctmgrTableFields[] = {
    {"Account", "Account", 10, AccountOf},
    {"Descr", "Descr", 20,
     [](const AccountingRow& r) -> std::string {
       if (r.qos != nullptr) return r.qos->description();
       return r.account != nullptr ? r.account->description() : "";
     }},
    {"Org", "Org", 20,
     [](const AccountingRow& r) -> std::string {
       return r.account != nullptr ? r.account->organization() : "";
     }},
    {"Cluster", "Cluster", 10, [](const AccountingRow& r) { return r.cluster; }},
    {"ParentName", "ParentName", 10,
     [](const AccountingRow& r) -> std::string {
       if (r.association == nullptr || !r.association->user().empty()) return "";
       return r.account != nullptr ? r.account->parent() : "";
     }},
    {"User", "User", 10,
     [](const AccountingRow& r) -> std::string {
       if (r.association != nullptr) return r.association->user();
       return r.user != nullptr ? r.user->name() : "";
     }},
    {"DefaultAccount", "Def Acct", 10,
     [](const AccountingRow& r) -> std::string {
       return r.user != nullptr ? r.user->default_account() : "";
     }},
    {"AdminLevel", "Admin", 9,
     [](const AccountingRow& r) -> std::string {
       return r.user != nullptr ? AdminLevelName(r.user->admin_level()) : "";
     }},
    {"Partition", "Partition", 10,
     [](const AccountingRow& r) -> std::string {
       return r.association != nullptr ? r.association->partition() : "";
     }},
    {"Share", "Share", 9,
     [](const AccountingRow& r) -> std::string {
       if (r.association != nullptr) return std::to_string(r.association->shares());
       return r.control_host.empty() ? "" : "1";
     }},
    {"Priority", "Priority", 10,
     [](const AccountingRow& r) -> std::string {
       if (r.qos != nullptr) return std::to_string(r.qos->priority());
       return r.priority ? std::to_string(*r.priority) : "";
     }},
    {"GrpJobs", "GrpJobs", 7,
     EitherCount<&v1::Qos::has_grp_jobs, &v1::Qos::grp_jobs, &v1::Association::has_grp_jobs,
                 &v1::Association::grp_jobs>},
    {"GrpNodes", "GrpNodes", 8, Empty},
    {"GrpCPUs", "GrpCPUs", 8, Empty},
    {"GrpMem", "GrpMem", 7, Empty},
    {"GrpTRES", "GrpTRES", 13, TresColumn<model::TresLimitKind::kGrp>},
    {"GrpSubmitJobs", "GrpSubmit", 9,
     EitherCount<&v1::Qos::has_grp_submit_jobs, &v1::Qos::grp_submit_jobs,
                 &v1::Association::has_grp_submit_jobs, &v1::Association::grp_submit_jobs>},
    {"GrpWall", "GrpWall", 11,
     WallColumn<&v1::Qos::has_grp_wall_min, &v1::Qos::grp_wall_min,
                &v1::Association::has_grp_wall_min, &v1::Association::grp_wall_min>},
    {"GrpCPUMins", "GrpCPUMins", 11, Empty},
    {"GrpTRESMins", "GrpTRESMins", 13, TresColumn<model::TresLimitKind::kGrpMins>},
    {"MaxJobs", "MaxJobs", 7, Count<&v1::Association::has_max_jobs, &v1::Association::max_jobs>},
    {"MaxNodes", "MaxNodes", 8, Empty},
    {"MaxCPUs", "MaxCPUs", 8, Empty},
    {"MaxTRES", "MaxTRES", 13, TresColumn<model::TresLimitKind::kMaxPerJob>},
    {"MaxTRESPerNode", "MaxTRESPerNode", 14, TresColumn<model::TresLimitKind::kMaxPerNode>},
    {"MaxSubmitJobs", "MaxSubmit", 9,
     Count<&v1::Association::has_max_submit_jobs, &v1::Association::max_submit_jobs>},
    {"MaxWall", "MaxWall", 11,
     WallColumn<&v1::Qos::has_max_wall_min, &v1::Qos::max_wall_min,
                &v1::Association::has_max_wall_min, &v1::Association::max_wall_min>},
    {"MaxCPUMins", "MaxCPUMins", 11, Empty},
    {"MaxTRESMins", "MaxTRESMins", 13, TresColumn<model::TresLimitKind::kMaxMinsPerJob>},
    {"QOS", "QOS", 20,
     [](const AccountingRow& r) -> std::string {
       if (r.association != nullptr) return Join(r.association->qos());
       return r.control_host.empty() ? "" : "normal";
     }},
    {"DefaultQOS", "Def QOS", 9,
     [](const AccountingRow& r) -> std::string {
       return r.association != nullptr ? r.association->default_qos() : "";
     }},
    {"GrpTRESRunMins", "GrpTRESRunMin", 13, TresColumn<model::TresLimitKind::kGrpRunMins>},
    {"Name", "Name", 10,
     [](const AccountingRow& r) -> std::string { return r.qos != nullptr ? r.qos->name() : ""; }},
    {"GraceTime", "GraceTime", 10,
     [](const AccountingRow& r) -> std::string {
       return r.qos != nullptr ? Duration(r.qos->grace_time_sec()) : "";
     }},
    {"Preempt", "Preempt", 10,
     [](const AccountingRow& r) -> std::string {
       return r.qos != nullptr ? Join(r.qos->preempt()) : "";
     }},
    {"PreemptExemptTime", "PreemptExemptTime", 19,
     [](const AccountingRow& r) -> std::string {
       if (r.qos == nullptr || r.qos->preempt_exempt_time_sec() == 0) return "";
       return Duration(r.qos->preempt_exempt_time_sec());
     }},
    {"PreemptMode", "PreemptMode", 11,
     [](const AccountingRow& r) -> std::string {
       if (r.qos == nullptr) return "";
       return r.qos->preempt_mode().empty() ? "cluster" : r.qos->preempt_mode();
     }},
    {"Flags", "Flags", 40,
     [](const AccountingRow& r) -> std::string {
       return r.qos != nullptr ? Join(r.qos->flags()) : "";
     }},
    {"UsageThres", "UsageThres", 10, Empty},
    {"UsageFactor", "UsageFactor", 11,
     [](const AccountingRow& r) -> std::string {
       if (r.qos == nullptr) return "";
       char buf[32];
       std::snprintf(buf, sizeof(buf), "%f", r.qos->usage_factor());
       return buf;
     }},
    {"MaxTRESPerUser", "MaxTRESPU", 13, TresColumn<model::TresLimitKind::kMaxPerUser>},
    {"MaxJobsPerUser", "MaxJobsPU", 9,
     [](const AccountingRow& r) -> std::string {
       if (r.qos == nullptr || !r.qos->has_max_jobs_per_user()) return "";
       return std::to_string(r.qos->max_jobs_per_user());
     }},
    {"MaxSubmitJobsPerUser", "MaxSubmitPU", 11,
     [](const AccountingRow& r) -> std::string {
       if (r.qos == nullptr || !r.qos->has_max_submit_jobs_per_user()) return "";
       return std::to_string(r.qos->max_submit_jobs_per_user());
     }},
    {"MaxTRESPerAccount", "MaxTRESPA", 13, Empty},
    {"MaxJobsPerAccount", "MaxJobsPA", 9, Empty},
    {"MaxSubmitJobsPerAccount", "MaxSubmitPA", 11, Empty},
    {"MinTRESPerJob", "MinTRES", 13, TresColumn<model::TresLimitKind::kMinPerJob>},
    {"ControlHost", "ControlHost", 15, [](const AccountingRow& r) { return r.control_host; }},
    {"ControlPort", "ControlPort", 12, [](const AccountingRow& r) { return r.control_port; }},
    {"RPC", "RPC", 5,
     [](const AccountingRow& r) -> std::string { return r.control_host.empty() ? "" : "9728"; }},
};

// Other names sacctmgr takes for a column.
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"Description", "Descr"},
    {"Organization", "Org"},
    {"Fairshare", "Share"},
    {"Admin", "AdminLevel"},
    {"DefAcct", "DefaultAccount"},
    {"GrpSubmit", "GrpSubmitJobs"},
    {"MaxSubmit", "MaxSubmitJobs"},
    {"GrpTRESRunMin", "GrpTRESRunMins"},
    {"MaxTRESPU", "MaxTRESPerUser"},
    {"MaxJobsPU", "MaxJobsPerUser"},
    {"MaxSubmitPU", "MaxSubmitJobsPerUser"},
    {"MaxTRESPA", "MaxTRESPerAccount"},
    {"MaxJobsPA", "MaxJobsPerAccount"},
    {"MaxSubmitPA", "MaxSubmitJobsPerAccount"},
    {"MinTRES", "MinTRESPerJob"},
    {"DefQOS", "DefaultQOS"},
    {"ParentAccount", "ParentName"},
    {"Acct", "Account"},
    {"Users", "User"},
};

const AccountingField* FindField(std::string_view name) {
  for (const auto& [alias, target] : kAliases) {
    if (text::EqualsIgnoreCase(name, alias)) name = target;
  }
  for (const AccountingField& f : kSacctmgrTableFields) {
    if (text::EqualsIgnoreCase(f.name, name)) return &f;
  }
  // A unique prefix of at least 3 characters.
  const AccountingField* found = nullptr;
  if (name.size() < 3) return nullptr;
  for (const AccountingField& f : kSacctmgrTableFields) {
    if (!text::StartsWithIgnoreCase(f.name, name)) continue;
    if (found != nullptr) return nullptr;
    found = &f;
  }
  return found;
}

}  // namespace

std::span<const AccountingField> AccountingFields() { return kSacctmgrTableFields; }

Result<std::vector<AccountingColumn>> ParseAccountingFormat(
    std::string_view format, std::span<const std::string_view> defaults) {
  std::vector<AccountingColumn> out;
  if (format.empty()) {
    for (std::string_view name : defaults) {
      const AccountingField* f = FindField(name);
      if (f != nullptr) out.push_back({f, f->width});
    }
    return out;
  }
  for (std::string_view item : text::Split(format, ',')) {
    if (item.empty()) continue;
    std::string_view name = item;
    std::optional<int> width;
    if (const size_t pct = item.find('%'); pct != std::string_view::npos) {
      name = item.substr(0, pct);
      // atoi's value, clamped: a width past any terminal must not overflow the layout (found by
      // fuzz/sacctmgr_fuzz.cc: %2147483648 and %-2147483648).
      const long long asked = std::atoll(std::string(item.substr(pct + 1)).c_str());
      width = static_cast<int>(std::clamp<long long>(asked, -kMaxColumnWidth, kMaxColumnWidth));
    }
    const AccountingField* f = FindField(name);
    if (f == nullptr) return InvalidArgument("Unknown field '" + std::string(name) + "'");
    out.push_back({f, width.value_or(f->width)});
  }
  return out;
}

std::string LayoutCell(std::string_view value, int width) {
  const auto w = static_cast<size_t>(width < 0 ? -width : width);
  std::string out;
  if (value.size() > w) {
    out = std::string(value.substr(0, w == 0 ? 0 : w - 1)) + (w == 0 ? "" : "+");
  } else if (width < 0) {
    out = std::string(value) + std::string(w - value.size(), ' ');
  } else {
    out = std::string(w - value.size(), ' ') + std::string(value);
  }
  return out + " ";
}

std::string RenderAccountingTable(std::span<const AccountingColumn> columns,
                                  std::span<const AccountingRow> rows, TableStyle style,
                                  bool no_header) {
  std::string out;
  auto line = [&](auto value_of) {
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::string value = value_of(columns[i]);
      switch (style) {
        case TableStyle::kAligned:
          out += LayoutCell(value, columns[i].width);
          break;
        case TableStyle::kParsable:
          out += value + "|";
          break;
        case TableStyle::kParsable2:
          out += (i == 0 ? "" : "|") + value;
          break;
      }
    }
    out += "\n";
  };
  if (!no_header) {
    line([](const AccountingColumn& c) { return std::string(c.field->header); });
    if (style == TableStyle::kAligned) {
      for (const AccountingColumn& c : columns) {
        out += std::string(static_cast<size_t>(c.width < 0 ? -c.width : c.width), '-') + " ";
      }
      out += "\n";
    }
  }
  for (const AccountingRow& row : rows) {
    line([&](const AccountingColumn& c) { return c.field->value(row); });
  }
  return out;
}

}  // namespace gantry::slurm
