#include "slurm/command_util.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <ostream>

#include "slurm/slurm_errors.h"
#include "text/ascii.h"

namespace gantry::slurm {

void ReportUsageError(const CommandContext& ctx, std::string_view command,
                      const std::string& error) {
  *ctx.err << error << "\n"
           << "Try \"" << command << " --help\" for more information\n";
}

std::unique_ptr<ControllerClient> ConnectOrReport(const CommandContext& ctx,
                                                  std::string_view command,
                                                  std::string_view failure_prefix) {
  if (!ctx.connect) {
    *ctx.err << failure_prefix << kConnectFailure << "\n";
    return nullptr;
  }
  Result<std::unique_ptr<ControllerClient>> client = ctx.connect();
  if (client.ok()) return std::move(client).value();
  if (client.status().code() != StatusCode::kUnavailable) {
    *ctx.err << command << ": error: " << client.status().message() << "\n";
  }
  *ctx.err << failure_prefix << kConnectFailure << "\n";
  return nullptr;
}

std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (!text::IsAsciiDigit(c)) return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::optional<int64_t> ParseSigned(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::optional<uint64_t> magnitude = ParseUnsigned(text);
  if (!magnitude || *magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  const int64_t v = static_cast<int64_t>(*magnitude);
  return negative ? -v : v;
}

std::optional<uint32_t> ResolveUser(const CommandContext& ctx, std::string_view user) {
  if (ctx.uid_of) {
    if (std::optional<uint32_t> uid = ctx.uid_of(user); uid.has_value()) return uid;
  }
  if (std::optional<uint64_t> n = ParseUnsigned(user); n.has_value() && *n <= 0xFFFFFFFFu) {
    return static_cast<uint32_t>(*n);
  }
  return std::nullopt;
}

std::string CtimeLine(UnixTime now, const TimeZone& tz) {
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const CivilTime c = tz.ToCivil(now);
  const int wday = WeekdayFromDays(DaysFromCivil(c.year, c.month, c.day));
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%s %s %02d %02d:%02d:%02d %d\n", kDays[wday],
                kMonths[(c.month + 11) % 12], c.day, c.hour, c.minute, c.second, c.year);
  return buf;
}

std::string Absolute(const std::string& path, const std::string& cwd) {
  if (path.empty() || path[0] == '/') return path;
  return cwd + "/" + path;
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view item : text::Split(text, ',')) {
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

namespace {

struct Signal {
  std::string_view name;
  int number;
};
// Slurm's sig_name2num table.
constexpr Signal kSignals[] = {
    {"HUP", 1},   {"INT", 2},   {"QUIT", 3},  {"ABRT", 6},  {"KILL", 9},  {"ALRM", 14},
    {"TERM", 15}, {"USR1", 10}, {"USR2", 12}, {"URG", 23},  {"CONT", 18}, {"STOP", 19},
    {"TSTP", 20}, {"TTIN", 21}, {"TTOU", 22}, {"XCPU", 24},
};

}  // namespace

std::optional<int> ParseSignal(std::string_view text) {
  if (std::optional<int64_t> n = ParseSigned(text)) {
    if (*n > 0 && *n < 65) return static_cast<int>(*n);
    return std::nullopt;
  }
  std::string_view name = text;
  if (text::StartsWithIgnoreCase(name, "SIG")) name.remove_prefix(3);
  for (const Signal& s : kSignals) {
    if (text::EqualsIgnoreCase(name, s.name)) return s.number;
  }
  return std::nullopt;
}

bool Keyword(std::string_view word, std::string_view keyword, size_t min) {
  return word.size() >= std::min(min, keyword.size()) && word.size() <= keyword.size() &&
         text::StartsWithIgnoreCase(keyword, word);
}

}  // namespace gantry::slurm
