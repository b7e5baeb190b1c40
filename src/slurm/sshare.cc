// sshare: the fair-share tree, as Slurm 22.05's sshare prints it.
//
// One row per association in the tree's order (sched/fair_share.h), the account indented by its
// depth. Without -a only the accounts and the caller's own user associations are shown; -u
// names users, -A accounts, -U leaves only user rows. Columns (widths as sshare's): Account
// (-20, left), User (10), RawShares (10), NormShares (11), RawUsage (11), NormUsage (11),
// EffectvUsage (13), FairShare (10), LevelFS (10), GrpTRESMins (30), TRESRunMins (30),
// Partition (12), Cluster (10), ID (6); -o takes names with an optional %width, -p/-P print
// '|'-separated fields (-p with a trailing '|'), -n drops the header.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"
#include "slurm/option_parser.h"
#include "text/ascii.h"

namespace gantry::slurm {
namespace {

enum : int { kSshareHelp = 256, kSshareUsage };

constexpr ShortOption kSshareShort[] = {
    {'a', ArgKind::kNone},     {'A', ArgKind::kRequired}, {'l', ArgKind::kNone},
    {'m', ArgKind::kNone},     {'M', ArgKind::kRequired}, {'n', ArgKind::kNone},
    {'o', ArgKind::kRequired}, {'p', ArgKind::kNone},     {'P', ArgKind::kNone},
    {'u', ArgKind::kRequired}, {'U', ArgKind::kNone},     {'v', ArgKind::kNone},
    {'V', ArgKind::kNone},
};

constexpr LongOption kSshareLong[] = {
    {"all", ArgKind::kNone, 'a'},          {"accounts", ArgKind::kRequired, 'A'},
    {"long", ArgKind::kNone, 'l'},         {"partition", ArgKind::kNone, 'm'},
    {"cluster", ArgKind::kRequired, 'M'},  {"clusters", ArgKind::kRequired, 'M'},
    {"noheader", ArgKind::kNone, 'n'},     {"format", ArgKind::kRequired, 'o'},
    {"parsable", ArgKind::kNone, 'p'},     {"parsable2", ArgKind::kNone, 'P'},
    {"users", ArgKind::kRequired, 'u'},    {"Users", ArgKind::kNone, 'U'},
    {"verbose", ArgKind::kNone, 'v'},      {"version", ArgKind::kNone, 'V'},
    {"help", ArgKind::kNone, kSshareHelp}, {"usage", ArgKind::kNone, kSshareUsage},
};

constexpr char kSshareUsageText[] =
    "Usage:  sshare [-A Accounts] [-a] [-l] [-m] [-M Clusters] [-n] [-p] [-P] [-u Users] [-U]\n"
    "               [-v] [-V]\n";

struct SshareColumn {
  std::string name;
  int width;  // negative: left-justified
};

// The known columns and their default widths.
std::optional<SshareColumn> ColumnNamed(std::string_view name) {
  static const SshareColumn kColumns[] = {
      {"Account", -20},     {"User", 10},       {"RawShares", 10},
      {"NormShares", 11},   {"RawUsage", 11},   {"NormUsage", 11},
      {"EffectvUsage", 13}, {"FairShare", 10},  {"LevelFS", 10},
      {"GrpTRESMins", 30},  {"GrpTRESRaw", 30}, {"TRESRunMins", 30},
      {"Partition", 12},    {"Cluster", 10},    {"ID", 6},
  };
  for (const SshareColumn& c : kColumns) {
    if (text::EqualsIgnoreCase(c.name, name)) return c;
  }
  return std::nullopt;
}

std::string Fixed(double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6f", value);
  return buf;
}

std::string SshareValue(const std::string& column, const v1::ShareInfo& s,
                        const std::string& cluster) {
  const bool root = s.depth() == 0;
  const bool user = !s.user().empty();
  if (column == "Account") return std::string(static_cast<size_t>(s.depth()), ' ') + s.account();
  if (column == "User") return s.user();
  if (column == "RawShares") return root ? "" : std::to_string(s.raw_shares());
  if (column == "NormShares") return Fixed(s.norm_shares());
  if (column == "RawUsage") return std::to_string(static_cast<uint64_t>(s.raw_usage()));
  if (column == "NormUsage") return root ? "" : Fixed(s.norm_usage());
  if (column == "EffectvUsage") return Fixed(s.effective_usage());
  if (column == "FairShare") return user ? Fixed(s.fair_share()) : "";
  if (column == "LevelFS") {
    if (root) return "";
    return std::isinf(s.level_fs()) ? "inf" : Fixed(s.level_fs());
  }
  if (column == "GrpTRESMins") return s.grp_tres_mins();
  if (column == "TRESRunMins") return s.tres_run_mins();
  if (column == "Partition") return s.partition();
  if (column == "Cluster") return cluster;
  if (column == "ID") return std::to_string(s.association_id());
  return "";
}

std::string Cell(const SshareColumn& c, std::string value, bool parsable) {
  if (parsable) return value;
  const auto width = static_cast<size_t>(std::abs(c.width));
  if (value.size() > width) {
    value.resize(width);
    if (width > 0) value.back() = '+';
  }
  const std::string pad(width - value.size(), ' ');
  return c.width < 0 ? value + pad : pad + value;
}

}  // namespace

int RunSshare(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed =
      ParseArgs(ctx.argv0, args, kSshareShort, kSshareLong, ArgOrder::kPermute);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "sshare", parsed.error);
    return 1;
  }
  bool all = false;
  bool long_list = false;
  bool with_partition = false;
  bool no_header = false;
  bool users_only = false;
  int parsable = 0;  // 1: -p, 2: -P
  std::vector<std::string> accounts;
  std::vector<std::string> users;
  std::optional<std::string> format;
  for (const ParsedOption& o : parsed.options) {
    const std::string value = o.value.value_or("");
    switch (o.id) {
      case 'a':
        all = true;
        break;
      case 'A':
        for (std::string_view a : text::Split(value, ',')) accounts.emplace_back(a);
        break;
      case 'l':
        long_list = true;
        break;
      case 'm':
        with_partition = true;
        break;
      case 'n':
        no_header = true;
        break;
      case 'o':
        format = value;
        break;
      case 'p':
        parsable = 1;
        break;
      case 'P':
        parsable = 2;
        break;
      case 'u':
        for (std::string_view u : text::Split(value, ',')) users.emplace_back(u);
        break;
      case 'U':
        users_only = true;
        break;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      case kSshareHelp:
      case kSshareUsage:
        *ctx.out << kSshareUsageText;
        return 0;
      default:
        break;
    }
  }
  std::vector<SshareColumn> columns;
  if (format) {
    for (std::string_view item : text::Split(*format, ',')) {
      const size_t percent = item.find('%');
      std::optional<SshareColumn> c = ColumnNamed(item.substr(0, percent));
      if (!c) {
        *ctx.err << "sshare: error: Invalid field requested: \"" << item.substr(0, percent)
                 << "\"\n";
        return 1;
      }
      if (percent != std::string_view::npos) {
        if (std::optional<int64_t> w = ParseSigned(item.substr(percent + 1))) {
          c->width = static_cast<int>(*w);
        }
      }
      columns.push_back(*c);
    }
  } else {
    std::vector<std::string> names = {"Account", "User", "RawShares", "NormShares", "RawUsage"};
    if (long_list) names.emplace_back("NormUsage");
    names.insert(names.end(), {"EffectvUsage", "FairShare"});
    if (long_list) names.insert(names.end(), {"LevelFS", "GrpTRESMins", "TRESRunMins"});
    if (with_partition) names.insert(names.begin() + 2, "Partition");
    for (const std::string& n : names) columns.push_back(*ColumnNamed(n));
  }

  std::unique_ptr<ControllerClient> client =
      ConnectOrReport(ctx, "sshare", "sshare: error: Problem talking to the database: ");
  if (!client) return 1;
  v1::GetPrioritiesRequest request;
  request.set_shares(true);
  Result<v1::GetPrioritiesReply> reply = client->GetPriorities(request);
  if (!reply.ok()) {
    *ctx.err << "sshare: error: " << reply.status().message() << "\n";
    return 1;
  }
  std::string cluster;
  if (Result<v1::GetConfigReply> config = client->GetConfig(v1::GetConfigRequest()); config.ok()) {
    cluster = config->cluster_name();
  }
  const std::string me = ctx.user_name ? ctx.user_name(ctx.uid).value_or("") : "";
  auto listed = [&](const v1::ShareInfo& s) {
    const bool user = !s.user().empty();
    if (users_only && !user) return false;
    if (!accounts.empty() &&
        std::find(accounts.begin(), accounts.end(), s.account()) == accounts.end()) {
      return false;
    }
    if (!user) return true;
    if (!users.empty()) return std::find(users.begin(), users.end(), s.user()) != users.end();
    return all || s.user() == me;
  };

  const std::string separator = parsable > 0 ? "|" : " ";
  auto line = [&](const std::function<std::string(const SshareColumn&)>& cell) {
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) out += separator;
      out += Cell(columns[i], cell(columns[i]), parsable > 0);
    }
    if (parsable == 1) out += "|";
    if (parsable == 0) out += " ";
    return out + "\n";
  };
  if (!no_header) {
    *ctx.out << line([](const SshareColumn& c) { return c.name; });
    if (parsable == 0) {
      *ctx.out << line([](const SshareColumn& c) {
        return std::string(static_cast<size_t>(std::abs(c.width)), '-');
      });
    }
  }
  for (const v1::ShareInfo& s : reply->shares()) {
    if (!listed(s)) continue;
    *ctx.out << line([&](const SshareColumn& c) { return SshareValue(c.name, s, cluster); });
  }
  return 0;
}

}  // namespace gantry::slurm
