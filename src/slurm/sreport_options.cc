#include "slurm/sreport_options.h"

#include <algorithm>

#include "slurm/command_util.h"
#include "slurm/sacct_format.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

// The condition keys each report type reads (Slurm's _set_cond functions differ per type).
enum class CondKind {
  kSreportOptionsCluster,
  kAssoc,
  kSreportOptionsWckey,
  kUser,
  kJob,
  kReservation
};

CondKind KindOf(SreportReport report) {
  switch (report) {
    case SreportReport::kClusterUtilization:
      return CondKind::kSreportOptionsCluster;
    case SreportReport::kClusterAccountByUser:
    case SreportReport::kClusterUserByAccount:
      return CondKind::kAssoc;
    case SreportReport::kClusterUserByWckey:
    case SreportReport::kClusterWckeyByUser:
      return CondKind::kSreportOptionsWckey;
    case SreportReport::kUserTop:
      return CondKind::kUser;
    case SreportReport::kJobSizesByAccount:
    case SreportReport::kJobSizesByWckey:
    case SreportReport::kJobSizesByAccountAndWckey:
      return CondKind::kJob;
    case SreportReport::kReservationUtilization:
      return CondKind::kReservation;
  }
  return CondKind::kSreportOptionsCluster;
}

// strtol's reading: blanks, a sign, digits; `rest` is whether anything follows them.
int64_t StrToLong(std::string_view text, bool* rest) {
  size_t i = 0;
  while (i < text.size() && text::IsAsciiSpace(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const size_t digits = i;
  int64_t value = 0;
  for (; i < text.size() && text::IsAsciiDigit(text[i]); ++i) {
    if (value < (INT64_MAX - 9) / 10) value = value * 10 + (text[i] - '0');
  }
  if (i == digits) {  // no number at all: strtol leaves the whole text
    *rest = !text.empty();
    return 0;
  }
  *rest = i < text.size();
  return negative ? -value : value;
}

uint32_t Atoi(std::string_view text) {
  bool rest = false;
  return static_cast<uint32_t>(StrToLong(text, &rest));
}

// Slurm's strip_quotes: a leading quote dropped, and the text from the next quote on.
std::string StripQuotes(std::string_view text) {
  if (!text.empty() && (text[0] == '"' || text[0] == '\'')) text.remove_prefix(1);
  const size_t quote = text.find_first_of("\"'");
  return std::string(text.substr(0, quote));
}

void AddAll(std::vector<std::string>* list, std::string_view value) {
  for (std::string& item : SreportList(value)) {
    if (std::none_of(list->begin(), list->end(),
                     [&](const std::string& s) { return text::EqualsIgnoreCase(s, item); })) {
      list->push_back(std::move(item));
    }
  }
}

class ConditionReader {
 public:
  ConditionReader(SreportReport report, UnixTime now, const TimeZone& tz,
                  const std::function<std::optional<uint32_t>(std::string_view)>& uid_of)
      : kind_(KindOf(report)), now_(now), tz_(tz), uid_of_(uid_of) {}

  void Read(const std::string& word) {
    const size_t eq = word.find('=');
    const bool bare = eq == std::string::npos;
    const std::string_view whole = word;
    const std::string_view key = bare ? whole : whole.substr(0, eq);
    const std::string_view value = bare ? whole : whole.substr(eq + 1);
    auto is = [&](std::string_view keyword, size_t min) { return Keyword(key, keyword, min); };
    SreportConditions& c = out_.conditions;

    if (bare && is("all_clusters", 1)) {
      c.all_clusters = true;
      return;
    }
    switch (kind_) {
      case CondKind::kSreportOptionsCluster:
        if (bare || is("Clusters", 1)) return AddAll(&c.clusters, value);
        break;
      case CondKind::kAssoc:
        if (bare && is("Tree", 4)) {
          c.tree = true;
          return;
        }
        if (bare || is("Users", 1)) return AddAll(&c.users, value);
        if (is("Accounts", 2) || is("Acct", 4)) return AddAll(&c.accounts, value);
        if (is("Clusters", 1)) return AddAll(&c.clusters, value);
        break;
      case CondKind::kSreportOptionsWckey:
        if (bare && is("withdeleted", 5)) return;
        if (bare || is("WCKeys", 3)) return AddAll(&c.wckeys, value);
        if (is("Clusters", 3)) return AddAll(&c.clusters, value);
        if (is("User", 1)) return AddAll(&c.users, value);
        break;
      case CondKind::kUser:
        if (bare && is("group", 1)) {
          c.group = true;
          return;
        }
        if (bare || is("Users", 1)) return AddAll(&c.users, value);
        if (is("Accounts", 2) || is("Acct", 4)) return AddAll(&c.accounts, value);
        if (is("Clusters", 1)) return AddAll(&c.clusters, value);
        if (is("TopCount", 1)) return TopCount(value);
        break;
      case CondKind::kJob:
        if (ReadJobCondition(key, value, bare)) return;
        break;
      case CondKind::kReservation:
        if (bare || is("Clusters", 1)) return AddAll(&c.clusters, value);
        if (is("Names", 2) || is("Nodes", 2) || is("Ids", 1)) return;  // no reservations
        break;
    }
    if (!bare && kind_ != CondKind::kJob) {
      if (is("End", 1)) return End(value);
      if (is("Format", 1)) return AddAll(&c.format, value);
      if (is("Start", 1)) return Start(value);
    }
    out_.failed = true;
    out_.errors += " Unknown condition: " + word + "\n";
    if (kind_ != CondKind::kSreportOptionsWckey) out_.errors += "Use keyword set to modify value\n";
  }

  SreportConditionsParse Take() { return std::move(out_); }

 private:
  bool ReadJobCondition(std::string_view key, std::string_view value, bool bare) {
    auto is = [&](std::string_view keyword, size_t min) { return Keyword(key, keyword, min); };
    SreportConditions& c = out_.conditions;
    if (bare && is("PrintJobCount", 2)) {
      c.print_job_count = true;
    } else if (bare && is("FlatView", 2)) {
      c.flat_view = true;
    } else if (bare && is("AcctAsParent", 2)) {
      c.acct_as_parent = true;
    } else if (bare || is("Clusters", 1)) {
      AddAll(&c.clusters, value);
    } else if (is("Accounts", 2) || is("Acct", 4)) {
      AddAll(&c.accounts, value);
    } else if (is("Associations", 2)) {
      for (const std::string& a : SreportList(value)) c.association_ids.push_back(Atoi(a));
    } else if (is("End", 1)) {
      End(value);
    } else if (is("Format", 2)) {
      AddAll(&c.format, value);
    } else if (is("Gid", 2)) {
      for (const std::string& g : SreportList(value)) c.group_ids.push_back(Atoi(g));
    } else if (is("grouping", 2)) {
      if (!value.empty() && text::AsciiLower(value[0]) == 'i') {
        c.individual = true;
      } else {
        AddAll(&c.grouping, value);
      }
    } else if (is("Jobs", 1)) {
      for (const std::string& j : SreportList(value)) c.job_ids.push_back(Atoi(j));
    } else if (is("Nodes", 1)) {
      if (nodes_given_) {
        out_.failed = true;
        out_.errors += "sreport: error: You already specified nodes '" + nodes_text_ +
                       "'  combine your request into 1 nodes=.\n";
        return true;
      }
      nodes_given_ = true;
      nodes_text_ = std::string(value);
      Result<std::vector<std::string>> nodes = text::ExpandHostlist(value);
      if (nodes.ok()) {
        c.nodes = *nodes;
      } else {
        c.nodes = {std::string(value)};
      }
    } else if (is("Partitions", 2)) {
      AddAll(&c.partitions, value);
    } else if (is("Start", 1)) {
      Start(value);
    } else if (is("Users", 1)) {
      for (const std::string& u : SreportList(value)) {
        std::optional<uint32_t> uid = uid_of_ ? uid_of_(u) : std::nullopt;
        if (!uid.has_value() && !u.empty() &&
            std::all_of(u.begin(), u.end(), [](char ch) { return text::IsAsciiDigit(ch); })) {
          uid = Atoi(u);
        }
        if (!uid.has_value()) {
          out_.errors += "sreport: error: Invalid user id: " + u + "\n";
          continue;
        }
        if (std::find(c.user_ids.begin(), c.user_ids.end(), *uid) == c.user_ids.end()) {
          c.user_ids.push_back(*uid);
        }
        c.users_given = true;
      }
    } else if (is("Wckeys", 2)) {
      AddAll(&c.wckeys, value);
    } else {
      return false;
    }
    return true;
  }

  std::optional<UnixTime> Time(std::string_view value) {
    if (value.empty()) return std::nullopt;  // parse_time("") is 0: the default
    Result<UnixTime> t = text::ParsePastTime(value, now_, tz_);
    if (!t.ok()) {
      out_.errors += SacctTimeError(value, now_, tz_) + "\n";
      return std::nullopt;
    }
    return *t;
  }
  void Start(std::string_view value) { out_.conditions.start = Time(value); }
  void End(std::string_view value) {
    std::optional<UnixTime> t = Time(value);
    if (t.has_value() && *t > now_) t = now_;
    out_.conditions.end = t;
  }

  void TopCount(std::string_view value) {
    const std::string meat = StripQuotes(value);
    bool rest = false;
    const int64_t n = StrToLong(meat, &rest);
    if (n == 0 && rest) {
      out_.errors += "sreport: error: Invalid value for TopCount (" + meat + ")\n";
      out_.failed = true;
      return;
    }
    out_.conditions.top_count = n < 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(n);
  }

  CondKind kind_;
  UnixTime now_;
  const TimeZone& tz_;
  const std::function<std::optional<uint32_t>(std::string_view)>& uid_of_;
  SreportConditionsParse out_;
  bool nodes_given_ = false;
  std::string nodes_text_;
};

}  // namespace

std::optional<SreportTime> ParseSreportTime(std::string_view text) {
  if (Keyword(text, "SecPer", 6)) return SreportTime::kSecondsPercent;
  if (Keyword(text, "MinPer", 6)) return SreportTime::kMinutesPercent;
  if (Keyword(text, "HourPer", 6)) return SreportTime::kHoursPercent;
  if (Keyword(text, "Seconds", 1)) return SreportTime::kSeconds;
  if (Keyword(text, "Minutes", 1)) return SreportTime::kMinutes;
  if (Keyword(text, "Hours", 1)) return SreportTime::kHours;
  if (Keyword(text, "Percent", 1)) return SreportTime::kPercent;
  return std::nullopt;
}

bool MatchesFirst(std::string_view word, std::string_view keyword, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const char a = i < word.size() ? text::AsciiLower(word[i]) : '\0';
    const char b = i < keyword.size() ? text::AsciiLower(keyword[i]) : '\0';
    if (a != b) return false;
    if (a == '\0') return true;
  }
  return true;
}

std::optional<SreportReport> FindSreportReport(std::string_view type, std::string_view word) {
  if (type == "cluster") {
    if (MatchesFirst(word, "AccountUtilizationByUser", 1)) {
      return SreportReport::kClusterAccountByUser;
    }
    if (MatchesFirst(word, "UserUtilizationByAccount", 18) || MatchesFirst(word, "UA", 2)) {
      return SreportReport::kClusterUserByAccount;
    }
    if (MatchesFirst(word, "UserUtilizationByWckey", 18) || MatchesFirst(word, "UW", 2)) {
      return SreportReport::kClusterUserByWckey;
    }
    if (MatchesFirst(word, "Utilization", 2)) return SreportReport::kClusterUtilization;
    if (MatchesFirst(word, "WCKeyUtilizationByUser", 1)) return SreportReport::kClusterWckeyByUser;
  } else if (type == "job") {
    if (Keyword(word, "SizesByAccount", 1)) return SreportReport::kJobSizesByAccount;
    if (Keyword(word, "SizesByWcKey", 8)) return SreportReport::kJobSizesByWckey;
    if (Keyword(word, "SizesByAccountAndWcKey", 15)) {
      return SreportReport::kJobSizesByAccountAndWckey;
    }
  } else if (type == "user") {
    if (MatchesFirst(word, "Top", 1)) return SreportReport::kUserTop;
  } else if (type == "reservation") {
    if (MatchesFirst(word, "Utilization", 1)) return SreportReport::kReservationUtilization;
  }
  return std::nullopt;
}

std::string InvalidReportText(std::string_view type, std::string_view word) {
  std::string out = "Not valid report " + std::string(word) + "\n";
  if (type == "cluster") {
    out +=
        "Valid cluster reports are, \"AccountUtilizationByUser\", \"UserUtilizationByAccount\", "
        "\"UserUtilizationByWckey\", \"Utilization\", and \"WCKeyUtilizationByUser\"\n";
  } else if (type == "job") {
    out +=
        "Valid job reports are, \"SizesByAccount, SizesByAccountAndWcKey, and  "
        "SizesByWckey\"\n";
  } else if (type == "user") {
    out += "Valid user reports are, \"Top\"\n";
  } else {
    out += "Valid reservation reports are, \"Utilization\"\n";
  }
  return out;
}

SreportConditionsParse ParseSreportConditions(
    SreportReport report, const std::vector<std::string>& words, UnixTime now, const TimeZone& tz,
    const std::function<std::optional<uint32_t>(std::string_view)>& uid_of) {
  ConditionReader reader(report, now, tz, uid_of);
  for (const std::string& word : words) reader.Read(word);
  return reader.Take();
}

SreportPeriod ResolveSreportPeriod(std::optional<UnixTime> start, std::optional<UnixTime> end,
                                   UnixTime now, const TimeZone& tz) {
  auto round_to_hour = [&](UnixTime t) {
    CivilTime c = tz.ToCivil(t);
    if (c.second >= 30) ++c.minute;
    if (c.minute >= 30) ++c.hour;
    c.minute = 0;
    c.second = 0;
    return tz.FromCivil(c);
  };
  SreportPeriod period;
  if (end.has_value() && *end != 0) {
    period.end = round_to_hour(*end);
  } else {
    CivilTime c = tz.ToCivil(now);
    c.hour = c.minute = c.second = 0;
    period.end = tz.FromCivil(c);
  }
  if (start.has_value() && *start != 0) {
    period.start = round_to_hour(*start);
  } else {
    CivilTime c = tz.ToCivil(now);
    c.hour = c.minute = c.second = 0;
    --c.day;
    period.start = tz.FromCivil(c);
  }
  if (period.end - period.start < 3600) period.end = period.start + 3600;
  return period;
}

std::vector<std::string> SreportList(std::string_view text) {
  std::vector<std::string> out;
  if (!text.empty() && (text[0] == '"' || text[0] == '\'')) text.remove_prefix(1);
  const size_t quote = text.find_first_of("\"'");
  if (quote != std::string_view::npos) text = text.substr(0, quote);
  for (std::string_view item : text::Split(text, ',')) {
    if (item.empty()) continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const std::string& s) { return text::EqualsIgnoreCase(s, item); })) {
      out.emplace_back(item);
    }
  }
  return out;
}

}  // namespace gantry::slurm
