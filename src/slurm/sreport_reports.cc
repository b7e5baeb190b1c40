#include "slurm/sreport_reports.h"

#include <algorithm>
#include <map>
#include <optional>

#include "slurm/command_util.h"
#include "text/ascii.h"
#include "text/begin_time.h"

namespace gantry::slurm {
namespace {

enum class Field {
  kAccount,
  kAllocated,
  kSreportReportsCluster,
  kDown,
  kIdle,
  kLogin,
  kOvercommitted,
  kPlannedDown,
  kProper,
  kReported,
  kPlanned,
  kTresCount,
  kTresName,
  kUsed,
  kSreportReportsWckey,
  kEnergy,
  kOther,  // a field the report knows but prints empty
};

struct SreportReportsColumn {
  Field field;
  SreportColumn column;
  bool usage = false;  // its width follows the largest usage value
};

// One format= name: the field, its header, its width (and the width for the combined time
// forms), whether it holds usage.
struct FieldSpec {
  Field field;
  std::string_view name;
  int width;
  int combined_width;
  CellKind kind;
  bool usage;
};

std::optional<FieldSpec> ClusterReportField(std::string_view word, bool tree) {
  auto is = [&](std::string_view keyword, size_t min) { return Keyword(word, keyword, min); };
  using K = CellKind;
  if (is("Accounts", 2)) {
    return FieldSpec{Field::kAccount, "Account", tree ? -20 : 15, 0, K::kText, false};
  }
  if (is("allocated", 2)) {
    return FieldSpec{Field::kAllocated, "Allocated", 12, 20, K::kNumber, true};
  }
  if (is("Cluster", 2))
    return FieldSpec{Field::kSreportReportsCluster, "Cluster", 9, 0, K::kText, false};
  if (is("down", 1)) return FieldSpec{Field::kDown, "Down", 10, 18, K::kNumber, true};
  if (is("idle", 1)) return FieldSpec{Field::kIdle, "Idle", 12, 20, K::kNumber, true};
  if (is("Login", 1)) return FieldSpec{Field::kLogin, "Login", 9, 0, K::kText, false};
  if (is("overcommitted", 1)) {
    return FieldSpec{Field::kOvercommitted, "Over Comm", 9, 18, K::kNumber, true};
  }
  if (is("PlannedDown", 2)) {
    return FieldSpec{Field::kPlannedDown, "PLND Down", 10, 18, K::kNumber, true};
  }
  if (is("Proper", 2)) return FieldSpec{Field::kProper, "Proper Name", 15, 0, K::kText, false};
  if (is("reported", 3)) return FieldSpec{Field::kReported, "Reported", 12, 20, K::kNumber, true};
  if (is("reserved", 3)) return FieldSpec{Field::kPlanned, "Planned", 9, 18, K::kNumber, true};
  if (is("TresCount", 5) || is("cpucount", 2) || is("count", 2)) {
    return FieldSpec{Field::kTresCount, "TRES Count", 10, 0, K::kNumber, false};
  }
  if (is("TresName", 5)) return FieldSpec{Field::kTresName, "TRES Name", 14, 0, K::kText, false};
  if (is("Used", 1)) return FieldSpec{Field::kUsed, "Used", 10, 18, K::kNumber, true};
  if (is("WCKey", 2))
    return FieldSpec{Field::kSreportReportsWckey, "WCKey", tree ? 20 : 15, 0, K::kText, false};
  if (is("Energy", 1)) return FieldSpec{Field::kEnergy, "Energy", 10, 18, K::kNumber, true};
  return std::nullopt;
}

std::optional<FieldSpec> UserReportField(std::string_view word) {
  auto is = [&](std::string_view keyword, size_t min) { return Keyword(word, keyword, min); };
  using K = CellKind;
  if (is("Accounts", 1)) return FieldSpec{Field::kAccount, "Account", 15, 0, K::kText, false};
  if (is("Cluster", 1))
    return FieldSpec{Field::kSreportReportsCluster, "Cluster", 9, 0, K::kText, false};
  if (is("Energy", 1)) return FieldSpec{Field::kEnergy, "Energy", 10, 18, K::kNumber, true};
  if (is("Login", 1)) return FieldSpec{Field::kLogin, "Login", 9, 0, K::kText, false};
  if (is("Proper", 1)) return FieldSpec{Field::kProper, "Proper Name", 15, 0, K::kText, false};
  if (is("TresName", 5)) return FieldSpec{Field::kTresName, "TRES Name", 14, 0, K::kText, false};
  if (is("Used", 1)) return FieldSpec{Field::kUsed, "Used", 10, 18, K::kNumber, true};
  return std::nullopt;
}

std::optional<FieldSpec> JobReportField(std::string_view word) {
  auto is = [&](std::string_view keyword, size_t min) { return Keyword(word, keyword, min); };
  using K = CellKind;
  if (is("Account", 1) || is("Acct", 4)) {
    return FieldSpec{Field::kAccount, "Account", 9, 0, K::kText, false};
  }
  if (is("Cluster", 2))
    return FieldSpec{Field::kSreportReportsCluster, "Cluster", 9, 0, K::kText, false};
  if (is("Duration", 1)) return FieldSpec{Field::kOther, "Duration", 12, 0, K::kText, false};
  if (is("JobCount", 2)) return FieldSpec{Field::kOther, "Job Count", 9, 0, K::kNumber, false};
  if (is("NodeCount", 2)) return FieldSpec{Field::kOther, "Node Count", 9, 0, K::kNumber, false};
  if (is("TresCount", 5) || is("CpuCount", 2) || is("count", 2)) {
    return FieldSpec{Field::kOther, "TRES Count", 10, 0, K::kNumber, false};
  }
  if (is("User", 1)) return FieldSpec{Field::kOther, "User", 9, 0, K::kText, false};
  if (is("Wckey", 1)) return FieldSpec{Field::kSreportReportsWckey, "Wckey", 9, 0, K::kText, false};
  return std::nullopt;
}

int32_t AtoiAfterPercent(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  int32_t value = 0;
  for (; i < text.size() && text::IsAsciiDigit(text[i]) && value < 100000; ++i) {
    value = value * 10 + (text[i] - '0');
  }
  return negative ? -value : value;
}

// The columns of format= items (or `defaults`), with " Unknown field" errors.
template <typename Lookup>
std::vector<SreportReportsColumn> Columns(const std::vector<std::string>& format,
                                          std::string_view defaults, SreportTime time,
                                          const Lookup& lookup, SreportOutput* out) {
  std::vector<std::string> items = format;
  if (items.empty()) items = SreportList(defaults);
  std::vector<SreportReportsColumn> columns;
  for (const std::string& item : items) {
    const size_t percent = item.find('%');
    const std::string name = item.substr(0, percent);
    std::optional<FieldSpec> spec = lookup(name);
    if (!spec.has_value()) {
      out->failed = true;
      out->err += " Unknown field '" + name + "'\n";
      continue;
    }
    int width =
        IsCombinedTime(time) && spec->combined_width != 0 ? spec->combined_width : spec->width;
    if (percent != std::string::npos) {
      const std::string_view whole = item;
      const int32_t given = AtoiAfterPercent(whole.substr(percent + 1));
      if (given != 0) width = given;
    }
    columns.push_back({spec->field, {std::string(spec->name), width, spec->kind}, spec->usage});
  }
  return columns;
}

SreportTable MakeTable(const std::vector<SreportReportsColumn>& columns, SreportLayout layout) {
  std::vector<SreportColumn> out;
  out.reserve(columns.size());
  for (const SreportReportsColumn& c : columns) out.push_back(c.column);
  return {std::move(out), layout};
}

bool SreportReportsListedIgnoreCase(const std::vector<std::string>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& s) { return text::EqualsIgnoreCase(s, name); });
}

bool ClusterSelected(const SreportConditions& conditions, const SreportSettings& settings,
                     std::string_view name) {
  std::vector<std::string> clusters = conditions.clusters;
  for (std::string& c : SreportList(settings.clusters)) clusters.push_back(std::move(c));
  return clusters.empty() || SreportReportsListedIgnoreCase(clusters, name);
}

std::string Range(const SreportPeriod& period, const TimeZone& tz) {
  return text::FormatIsoTime(period.start, tz) + " - " + text::FormatIsoTime(period.end - 1, tz);
}

std::string Seconds(const SreportPeriod& period) {
  return " (" + std::to_string(static_cast<int32_t>(period.end - period.start)) + " secs)";
}

std::string UnitLine(const SreportSettings& settings, bool tres) {
  if (settings.time == SreportTime::kPercent) return "Usage reported in Percentage of Total";
  return std::string("Usage reported in ") + (tres ? "TRES " : "CPU ") +
         std::string(SreportTimeName(settings.time));
}

// The report's banner and column header, as far as -n lets them through.
std::string Head(const SreportSettings& settings, const std::vector<std::string>& banner,
                 const SreportTable& table) {
  if (!settings.header) return "";
  return SreportBanner(banner) + table.Header();
}

void SetUsageWidths(std::vector<SreportReportsColumn>* columns, SreportTime time,
                    const std::function<uint64_t(Field)>& largest) {
  for (SreportReportsColumn& c : *columns) {
    if (c.usage) c.column.width = UsageColumnWidth(largest(c.field), time);
  }
}

// The cells of one line of a user report (AccountUtilizationByUser, UserUtilizationByAccount,
// TopUsage): `seconds` of CPU time out of the cluster's `reported`.
std::vector<std::string> UserCells(const std::vector<SreportReportsColumn>& columns,
                                   const std::string& cluster, const std::string& account,
                                   const std::string& login, const std::string& proper,
                                   uint64_t seconds, uint64_t reported, SreportTime time) {
  std::vector<std::string> cells;
  for (const SreportReportsColumn& c : columns) {
    switch (c.field) {
      case Field::kSreportReportsCluster:
        cells.push_back(cluster);
        break;
      case Field::kAccount:
        cells.push_back(account);
        break;
      case Field::kLogin:
        cells.push_back(login);
        break;
      case Field::kProper:
        cells.push_back(proper);
        break;
      case Field::kUsed:
        cells.push_back(FormatUsage(seconds, reported, time));
        break;
      case Field::kEnergy:
        cells.push_back(FormatUsage(0, 0, time));
        break;
      case Field::kTresName:
        cells.emplace_back("cpu");
        break;
      default:
        cells.emplace_back();
    }
  }
  return cells;
}

UsagePeriod CountedPeriod(const SreportPeriod& period, UnixTime now) {
  return {period.start, period.end, now};
}

// ---- cluster Utilization ---------------------------------------------------------------------

SreportOutput Utilization(const SreportConditions& conditions, const SreportSettings& settings,
                          const SreportData& data, const TimeZone& tz) {
  SreportOutput out;
  const SreportPeriod period = ReportPeriod(conditions, data.now, tz);
  std::vector<SreportReportsColumn> columns = Columns(
      conditions.format,
      settings.tres_named ? "Cl,TresName,al,d,planned,i,res,rep" : "Cl,al,d,planned,i,res,rep",
      settings.time, [](std::string_view w) { return ClusterReportField(w, false); }, &out);
  ClusterUsage usage;
  if (ClusterSelected(conditions, settings, data.cluster.name)) {
    usage = ComputeClusterUsage(data.cluster, data.jobs, CountedPeriod(period, data.now));
  }
  auto value = [&](Field f) -> uint64_t {
    switch (f) {
      case Field::kAllocated:
      case Field::kEnergy:
        return usage.allocated;
      case Field::kDown:
        return usage.down;
      case Field::kIdle:
        return usage.idle;
      case Field::kPlanned:
        return usage.planned;
      case Field::kOvercommitted:
        return usage.overcommitted;
      case Field::kPlannedDown:
        return usage.planned_down;
      case Field::kReported:
        return usage.reported_seconds;
      default:
        return 0;
    }
  };
  SetUsageWidths(&columns, settings.time, value);
  const SreportTable table = MakeTable(columns, settings.layout);
  out.out = Head(
      settings,
      {"Cluster Utilization " + Range(period, tz), UnitLine(settings, settings.tres_named)}, table);
  if (!usage.reported) return out;
  const uint64_t total_time = static_cast<uint64_t>(period.end - period.start) * usage.cpu_count;
  std::vector<std::string> cells;
  for (const SreportReportsColumn& c : columns) {
    switch (c.field) {
      case Field::kSreportReportsCluster:
        cells.push_back(data.cluster.name);
        break;
      case Field::kTresCount:
        cells.push_back(std::to_string(usage.cpu_count));
        break;
      case Field::kTresName:
        cells.emplace_back("cpu");
        break;
      case Field::kEnergy:
        cells.push_back(FormatUsage(0, 0, settings.time));
        break;
      case Field::kReported:
        cells.push_back(FormatUsage(usage.reported_seconds, total_time, settings.time));
        break;
      default:
        cells.push_back(c.usage ? FormatUsage(value(c.field), usage.reported_seconds, settings.time)
                                : std::string());
    }
  }
  out.out += table.Row(cells);
  return out;
}

// ---- cluster AccountUtilizationByUser / UserUtilizationByAccount / wckey reports ------------

SreportOutput AccountUsers(SreportReport report, const SreportConditions& conditions,
                           const SreportSettings& settings, const SreportData& data,
                           const TimeZone& tz, const ProperNameFn& proper_name) {
  SreportOutput out;
  const SreportPeriod period = ReportPeriod(conditions, data.now, tz);
  const bool tres = settings.tres_named;
  std::string title;
  std::string defaults;
  switch (report) {
    case SreportReport::kClusterAccountByUser:
      title = "Cluster/Account/User Utilization ";
      defaults =
          tres ? "Cluster,Ac,Login,Proper,TresName,Used" : "Cluster,Ac,Login,Proper,Used,Energy";
      break;
    case SreportReport::kClusterUserByAccount:
      title = "Cluster/User/Account Utilization ";
      defaults =
          tres ? "Cluster,Login,Proper,Ac,TresName,Used" : "Cluster,Login,Proper,Ac,Used,Energy";
      break;
    case SreportReport::kClusterUserByWckey:
      title = "Cluster/User/WCKey Utilization ";
      defaults =
          tres ? "Cluster,Login,Proper,WCkey,TresName,Used" : "Cluster,Login,Proper,WCkey,Used";
      break;
    default:
      title = "Cluster/WCKey/User Utilization ";
      defaults =
          tres ? "Cluster,WCKey,Login,Proper,TresName,Used" : "Cluster,WCKey,Login,Proper,Used";
      break;
  }
  const bool tree_view = report == SreportReport::kClusterAccountByUser && conditions.tree;
  std::vector<SreportReportsColumn> columns = Columns(
      conditions.format, defaults, settings.time,
      [&](std::string_view w) { return ClusterReportField(w, tree_view); }, &out);

  ClusterUsage cluster;
  std::vector<AccountUserLine> lines;
  if (ClusterSelected(conditions, settings, data.cluster.name)) {
    const UsagePeriod counted = CountedPeriod(period, data.now);
    cluster = ComputeClusterUsage(data.cluster, data.jobs, counted);
    if (cluster.reported) {
      const AccountTree tree(data.accounting);
      const std::map<uint32_t, uint64_t> usage = UsageByAssociation(tree, data.jobs, counted);
      if (report == SreportReport::kClusterAccountByUser) {
        lines = AccountUserLines(tree, usage, conditions.accounts, conditions.users);
      } else if (report == SreportReport::kClusterUserByAccount) {
        lines = UserAccountLines(tree, usage, conditions.accounts, conditions.users);
        std::stable_sort(lines.begin(), lines.end(),
                         [&](const AccountUserLine& a, const AccountUserLine& b) {
                           if (!settings.sort_by_name && a.seconds != b.seconds) {
                             return a.seconds > b.seconds;
                           }
                           return a.user < b.user;
                         });
      }  // no wckeys in Gantry: the wckey reports have no lines
    }
  }
  const uint64_t first =
      !lines.empty() ? lines.front().seconds : (cluster.reported ? cluster.reported_seconds : 0);
  SetUsageWidths(&columns, settings.time, [&](Field f) { return f == Field::kEnergy ? 0 : first; });
  const SreportTable table = MakeTable(columns, settings.layout);
  out.out = Head(settings, {title + Range(period, tz) + Seconds(period), UnitLine(settings, tres)},
                 table);

  std::map<std::string, int> indent;  // Tree: the printed accounts' indentation
  auto tree_name = [&](const AccountUserLine& line) {
    const std::string key = line.user.empty() ? line.account : "|" + line.account;
    auto known = indent.find(key);
    int spaces = 0;
    if (known != indent.end()) {
      spaces = known->second;
    } else {
      auto parent = indent.find(line.parent);
      if (!line.parent.empty() && parent != indent.end()) spaces = parent->second + 1;
      indent.emplace(key, spaces);
    }
    return std::string(static_cast<size_t>(spaces), ' ') + line.account;
  };
  for (const AccountUserLine& line : lines) {
    const std::string proper =
        line.user.empty() || !proper_name ? std::string() : proper_name(line.user);
    const std::vector<std::string> cells =
        UserCells(columns, data.cluster.name, tree_view ? tree_name(line) : line.account, line.user,
                  proper, line.seconds, cluster.reported_seconds, settings.time);
    out.out += table.Row(cells);
  }
  return out;
}

// ---- user TopUsage ---------------------------------------------------------------------------

SreportOutput TopUsage(const SreportConditions& conditions, const SreportSettings& settings,
                       const SreportData& data, const TimeZone& tz,
                       const ProperNameFn& proper_name) {
  SreportOutput out;
  const SreportPeriod period = ReportPeriod(conditions, data.now, tz);
  std::vector<SreportReportsColumn> columns = Columns(
      conditions.format, settings.tres_named ? "Cl,L,P,A,TresName,Used" : "Cl,L,P,A,U,Energy",
      settings.time, UserReportField, &out);
  ClusterUsage cluster;
  std::vector<TopUser> users;
  if (ClusterSelected(conditions, settings, data.cluster.name)) {
    const UsagePeriod counted = CountedPeriod(period, data.now);
    cluster = ComputeClusterUsage(data.cluster, data.jobs, counted);
    if (cluster.reported) {
      const AccountTree tree(data.accounting);
      users = TopUsers(tree, UsageByAssociation(tree, data.jobs, counted), conditions.accounts,
                       conditions.users, conditions.group, settings.sort_by_name);
    }
  }
  const uint64_t first =
      !users.empty() ? users.front().seconds : (cluster.reported ? cluster.reported_seconds : 0);
  SetUsageWidths(&columns, settings.time, [&](Field f) { return f == Field::kEnergy ? 0 : first; });
  const SreportTable table = MakeTable(columns, settings.layout);
  out.out = Head(settings,
                 {"Top " + std::to_string(conditions.top_count) + " Users " + Range(period, tz) +
                      Seconds(period),
                  UnitLine(settings, settings.tres_named)},
                 table);
  uint32_t count = 0;
  for (const TopUser& user : users) {
    std::string accounts;
    for (const std::string& a : user.accounts) accounts += (accounts.empty() ? "" : ", ") + a;
    const std::vector<std::string> cells =
        UserCells(columns, data.cluster.name, accounts, user.user,
                  proper_name ? proper_name(user.user) : std::string(), user.seconds,
                  cluster.reported_seconds, settings.time);
    out.out += table.Row(cells);
    if (++count >= conditions.top_count) break;
  }
  return out;
}

// ---- job SizesBy* ----------------------------------------------------------------------------

bool JobSelected(const UsageJob& job, const SreportConditions& c, const AccountTree& tree) {
  auto has = [](const auto& list, const auto& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!c.wckeys.empty()) return false;  // Gantry's jobs have no wckey
  if (c.users_given && !has(c.user_ids, job.uid)) return false;
  if (!c.group_ids.empty() && !has(c.group_ids, job.gid)) return false;
  if (!c.partitions.empty() && !SreportReportsListedIgnoreCase(c.partitions, job.partition))
    return false;
  if (!c.job_ids.empty() && !has(c.job_ids, job.job_id)) return false;
  if (!c.nodes.empty() && std::none_of(job.nodes.begin(), job.nodes.end(),
                                       [&](const auto& n) { return has(c.nodes, n); })) {
    return false;
  }
  if (!c.association_ids.empty()) {
    const v1::Association* a = tree.JobAssociation(job.user, job.account, job.partition);
    if (a == nullptr || !has(c.association_ids, a->id())) return false;
  }
  return true;
}

SreportOutput JobSizesReport(SreportReport report, const SreportConditions& conditions,
                             const SreportSettings& settings, const SreportData& data,
                             const TimeZone& tz) {
  SreportOutput out;
  const SreportPeriod period = ReportPeriod(conditions, data.now, tz);
  const UsagePeriod counted = CountedPeriod(period, data.now);
  const bool by_wckey = report == SreportReport::kJobSizesByWckey;
  const std::string_view defaults = by_wckey                                      ? "Cl,wc"
                                    : report == SreportReport::kJobSizesByAccount ? "Cl,a"
                                                                                  : "Cl,a%-20";
  std::vector<SreportReportsColumn> columns =
      Columns(conditions.format, defaults, settings.time, JobReportField, &out);

  const AccountTree tree(data.accounting);
  std::vector<UsageJob> jobs;
  std::vector<uint32_t> sizes;
  if (ClusterSelected(conditions, settings, data.cluster.name)) {
    for (const UsageJob& job : data.jobs) {
      if (!JobSelected(job, conditions, tree)) continue;
      if (RunSecondsIn(job, counted.start, counted.counted_end()) > 0) sizes.push_back(job.cpus);
      jobs.push_back(job);
    }
  }
  const std::vector<SizeBucket> buckets =
      SizeBuckets(conditions.grouping, conditions.individual, sizes);
  const int default_width = IsCombinedTime(settings.time) ? 20 : 13;
  const CellKind bucket_kind = CellKind::kNumber;
  for (const SizeBucket& b : buckets) {
    columns.push_back({Field::kOther,
                       {b.label + " CPUs", b.width != 0 ? b.width : default_width, bucket_kind},
                       false});
  }
  columns.push_back({Field::kOther, {"% of cluster", 12, CellKind::kNumber}, false});
  const SreportTable table = MakeTable(columns, settings.layout);
  if (settings.header) {
    std::vector<std::string> banner = {"Job Sizes " + std::string(by_wckey ? "by Wckey " : "") +
                                       Range(period, tz) + Seconds(period)};
    if (settings.tres_named) banner.emplace_back("TRES type is cpu");
    banner.push_back(conditions.print_job_count
                         ? "Units are in number of jobs ran"
                         : "Time reported in " + std::string(SreportTimeName(settings.time)));
    out.out = SreportBanner(banner) + table.Header();
  }
  if (by_wckey || (report == SreportReport::kJobSizesByAccountAndWckey && !conditions.flat_view)) {
    return out;  // no wckeys: no groups
  }
  JobSizesOptions options;
  options.accounts = conditions.accounts;
  options.flat_view = conditions.flat_view;
  options.acct_as_parent = conditions.acct_as_parent;
  options.wckey_suffix = report == SreportReport::kJobSizesByAccountAndWckey;
  const JobSizes sizes_report = ComputeJobSizes(tree, jobs, counted, buckets, options);
  const size_t fields = columns.size() - buckets.size() - 1;
  for (const JobSizesLine& line : sizes_report.lines) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < fields; ++i) {
      switch (columns[i].field) {
        case Field::kSreportReportsCluster:
          cells.push_back(data.cluster.name);
          break;
        case Field::kAccount:
        case Field::kSreportReportsWckey:
          cells.push_back(line.account);
          break;
        default:
          cells.emplace_back();
      }
    }
    for (size_t i = 0; i < buckets.size(); ++i) {
      cells.push_back(conditions.print_job_count
                          ? std::to_string(line.jobs[i])
                          : FormatUsage(line.seconds[i], line.total_seconds, settings.time));
    }
    cells.push_back(
        conditions.print_job_count
            ? FormatUsage(line.total_jobs, sizes_report.cluster_jobs, SreportTime::kPercent)
            : FormatUsage(line.total_seconds, sizes_report.cluster_seconds, SreportTime::kPercent));
    out.out += table.Row(cells);
  }
  return out;
}

// ---- reservation Utilization -----------------------------------------------------------------

SreportOutput ReservationUtilization(const SreportConditions& conditions,
                                     const SreportSettings& settings, const SreportData& data,
                                     const TimeZone& tz) {
  SreportOutput out;
  const SreportPeriod period = ReportPeriod(conditions, data.now, tz);
  const int usage_width = IsCombinedTime(settings.time) ? 29 : 20;
  const SreportTable table({{"Cluster", 9, CellKind::kText},
                            {"Name", 9, CellKind::kText},
                            {"Start", 19, CellKind::kText},
                            {"End", 19, CellKind::kText},
                            {"TRES Name", 14, CellKind::kText},
                            {"Allocated", usage_width, CellKind::kNumber},
                            {"Idle", usage_width, CellKind::kNumber}},
                           settings.layout);
  out.out = Head(settings,
                 {"Reservation Utilization " + Range(period, tz), UnitLine(settings, true)}, table);
  return out;  // Gantry has no reservations
}

}  // namespace

SreportPeriod ReportPeriod(const SreportConditions& conditions, UnixTime now, const TimeZone& tz) {
  return ResolveSreportPeriod(conditions.start, conditions.end, now, tz);
}

bool ReportNeedsJobs(SreportReport report) {
  return report != SreportReport::kReservationUtilization;
}

bool ReportNeedsAccounting(SreportReport report) {
  return report != SreportReport::kClusterUtilization &&
         report != SreportReport::kReservationUtilization;
}

SreportOutput BuildSreportReport(SreportReport report, const SreportConditions& conditions,
                                 const SreportSettings& settings, const SreportData& data,
                                 const TimeZone& tz, const ProperNameFn& proper_name) {
  switch (report) {
    case SreportReport::kClusterUtilization:
      return Utilization(conditions, settings, data, tz);
    case SreportReport::kClusterAccountByUser:
    case SreportReport::kClusterUserByAccount:
    case SreportReport::kClusterUserByWckey:
    case SreportReport::kClusterWckeyByUser:
      return AccountUsers(report, conditions, settings, data, tz, proper_name);
    case SreportReport::kUserTop:
      return TopUsage(conditions, settings, data, tz, proper_name);
    case SreportReport::kJobSizesByAccount:
    case SreportReport::kJobSizesByWckey:
    case SreportReport::kJobSizesByAccountAndWckey:
      return JobSizesReport(report, conditions, settings, data, tz);
    case SreportReport::kReservationUtilization:
      return ReservationUtilization(conditions, settings, data, tz);
  }
  return {};
}

}  // namespace gantry::slurm
