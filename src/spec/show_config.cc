#include "spec/show_config.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "spec/slurm_keys.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::spec {

namespace {

constexpr std::string_view kNull = "(null)";
constexpr int64_t kDefaultMaxJobId = 67043328;  // MAX_JOB_ID (0x03FF0000)
constexpr int64_t kDefaultMaxDbdMsgs = 10000;   // DEFAULT_MAX_DBD_MSGS
constexpr std::string_view kBaseTresList = "cpu,mem,energy,node,billing,fs/disk,vmem,pages";

using text::AsciiToLower;
using text::AsciiToUpper;
using text::EqualsIgnoreCase;

// Case-insensitive substring test, as Slurm's xstrcasestr() option parsing uses.
bool IContains(std::string_view haystack, std::string_view needle) {
  return AsciiToLower(haystack).find(AsciiToLower(needle)) != std::string::npos;
}

std::vector<std::string_view> SplitCommas(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t pos = s.find(',', start);
    const size_t end = pos == std::string_view::npos ? s.size() : pos;
    if (end > start) parts.push_back(s.substr(start, end - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

std::optional<int64_t> ParseUnsigned(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool IsUnlimitedWord(std::string_view s) {
  return EqualsIgnoreCase(s, "UNLIMITED") || EqualsIgnoreCase(s, "INFINITE");
}

// S_P_BOOLEAN: yes/true/up/1.
bool Truthy(std::string_view s) {
  return EqualsIgnoreCase(s, "yes") || EqualsIgnoreCase(s, "true") || EqualsIgnoreCase(s, "up") ||
         s == "1";
}

// The value, or "" when unset; a view, so it never outlives the configuration.
std::string_view OrEmpty(const std::string* v) {
  return v != nullptr ? std::string_view(*v) : std::string_view();
}

std::string YesNo(bool b) { return b ? "Yes" : "No"; }

// The configuration, looked up by normalized parameter name.
class Conf {
 public:
  explicit Conf(const std::map<std::string, std::string>& values) {
    for (const auto& [key, value] : values) values_[NormalizeKey(key)] = value;
  }

  const std::string* Get(std::string_view name) const {
    const auto it = values_.find(NormalizeKey(name));
    return it == values_.end() ? nullptr : &it->second;
  }

  // The value as written, or `fallback` when unset ("(null)" for plain strings).
  std::string Str(std::string_view name, std::string_view fallback = kNull) const {
    const std::string* v = Get(name);
    return v != nullptr ? *v : std::string(fallback);
  }

  // An unsigned integer parameter; `fallback` when unset. Unreadable values are kept raw.
  std::string Num(std::string_view name, int64_t fallback) const {
    const std::string* v = Get(name);
    if (v == nullptr) return std::to_string(fallback);
    const std::optional<int64_t> n = ParseUnsigned(*v);
    return n ? std::to_string(*n) : *v;
  }

  int64_t NumValue(std::string_view name, int64_t fallback) const {
    const std::string* v = Get(name);
    if (v == nullptr) return fallback;
    return ParseUnsigned(*v).value_or(fallback);
  }

  std::string Seconds(std::string_view name, int64_t fallback) const {
    return Num(name, fallback) + " sec";
  }

  bool Flag(std::string_view name) const {
    const std::string* v = Get(name);
    return v != nullptr && Truthy(*v);
  }

 private:
  std::map<std::string, std::string> values_;
};

// --- Value renderers, each mirroring the Slurm helper named in its comment. ---

// accounting_enforce_string() over the flags _validate_accounting_storage_enforce() sets.
std::string AccountingEnforce(const Conf& conf, bool* track_wckey) {
  enum : unsigned {
    kAssocs = 1,
    kLimits = 2,
    kWckeys = 4,
    kQos = 8,
    kSafe = 16,
    kNoJobs = 32,
    kNoSteps = 64,
  };
  unsigned flags = 0;
  const std::string* v = conf.Get("AccountingStorageEnforce");
  for (std::string_view tok : SplitCommas(OrEmpty(v))) {
    if (EqualsIgnoreCase(tok, "1") || EqualsIgnoreCase(tok, "associations")) {
      flags |= kAssocs;
    } else if (EqualsIgnoreCase(tok, "2") || EqualsIgnoreCase(tok, "limits")) {
      flags |= kAssocs | kLimits;
    } else if (EqualsIgnoreCase(tok, "safe")) {
      flags |= kAssocs | kLimits | kSafe;
    } else if (EqualsIgnoreCase(tok, "wckeys")) {
      flags |= kAssocs | kWckeys;
      *track_wckey = true;
    } else if (EqualsIgnoreCase(tok, "qos")) {
      flags |= kAssocs | kQos;
    } else if (EqualsIgnoreCase(tok, "all")) {
      flags |= kAssocs | kLimits | kWckeys | kQos | kSafe;
      *track_wckey = true;
    } else if (EqualsIgnoreCase(tok, "nojobs")) {
      flags |= kNoJobs | kNoSteps;
    } else if (EqualsIgnoreCase(tok, "nosteps")) {
      flags |= kNoSteps;
    } else {
      flags = 0;  // Slurm refuses the whole value
      break;
    }
  }
  std::string out;
  const auto add = [&out](std::string_view word) {
    if (!out.empty()) out += ",";
    out += word;
  };
  if (flags & kAssocs) add("associations");
  if (flags & kLimits) add("limits");
  if (flags & kNoJobs) add("nojobs");
  if (flags & kNoSteps) add("nosteps");
  if (flags & kQos) add("qos");
  if (flags & kSafe) add("safe");
  if (flags & kWckeys) add("wckeys");
  return out.empty() ? "none" : out;
}

// The built-in TRES, then the configured ones not already listed, in the order written.
std::string AccountingTres(const Conf& conf) {
  std::string out(kBaseTresList);
  std::vector<std::string> seen;
  for (std::string_view t : SplitCommas(kBaseTresList)) seen.push_back(std::string(t));
  const std::string* v = conf.Get("AccountingStorageTRES");
  for (std::string_view tok : SplitCommas(OrEmpty(v))) {
    const std::string lower = AsciiToLower(tok);
    if (std::find(seen.begin(), seen.end(), lower) != seen.end()) continue;
    seen.push_back(lower);
    out += ",";
    out += tok;
  }
  return out;
}

std::string StoreFlags(const Conf& conf) {
  const std::string* v = conf.Get("AccountingStoreFlags");
  if (v == nullptr) return std::string(kNull);
  std::string out;
  for (std::string_view word : {"job_comment", "job_env", "job_script"}) {
    if (!IContains(*v, word)) continue;
    if (!out.empty()) out += ",";
    out += word;
  }
  return out.empty() ? std::string(kNull) : out;
}

// cpu_freq_to_string(): a frequency in kHz, or one of the named settings.
std::string CpuFreqDef(const Conf& conf) {
  const std::string* v = conf.Get("CpuFreqDef");
  if (v == nullptr) return "Unknown";
  static constexpr std::array<std::string_view, 10> kNames = {
      "Low",      "Medium",      "High",      "HighM1",    "Conservative",
      "OnDemand", "Performance", "PowerSave", "UserSpace", "SchedUtil"};
  for (std::string_view n : kNames) {
    if (EqualsIgnoreCase(*v, n)) return std::string(n);
  }
  return *v;
}

// cpu_freq_govlist_to_string(): governors in a fixed order.
std::string CpuFreqGovernors(const Conf& conf) {
  const std::string* v = conf.Get("CpuFreqGovernors");
  if (v == nullptr) return "OnDemand,Performance,UserSpace";
  std::string out;
  for (std::string_view g :
       {"Conservative", "OnDemand", "Performance", "PowerSave", "SchedUtil", "UserSpace"}) {
    bool present = false;
    for (std::string_view tok : SplitCommas(*v)) present = present || EqualsIgnoreCase(tok, g);
    if (!present) continue;
    if (!out.empty()) out += ",";
    out += g;
  }
  return out.empty() ? *v : out;
}

// DefMemPerCPU/DefMemPerNode (and MaxMem*): one line whose name says which one is in force.
std::pair<std::string, std::string> MemoryLimit(const Conf& conf, std::string_view per_node,
                                                std::string_view per_cpu) {
  if (const std::string* node = conf.Get(per_node)) {
    if (IsUnlimitedWord(*node)) return {std::string(per_node), "UNLIMITED"};
    const std::optional<int64_t> n = ParseUnsigned(*node);
    if (n && *n == 0) return {std::string(per_node), "UNLIMITED"};
    return {std::string(per_node), n ? std::to_string(*n) : *node};
  }
  if (const std::string* cpu = conf.Get(per_cpu)) {
    if (IsUnlimitedWord(*cpu)) return {std::string(per_node), "UNLIMITED"};
    const std::optional<int64_t> n = ParseUnsigned(*cpu);
    return {std::string(per_cpu), n ? std::to_string(*n) : *cpu};
  }
  return {std::string(per_node), "UNLIMITED"};
}

// parse_part_enforce_type_2str().
std::string EnforcePartLimits(const Conf& conf) {
  const std::string* v = conf.Get("EnforcePartLimits");
  if (v == nullptr) return "NO";
  if (EqualsIgnoreCase(*v, "yes") || EqualsIgnoreCase(*v, "all") || *v == "1") return "ALL";
  if (EqualsIgnoreCase(*v, "any")) return "ANY";
  return "NO";
}

// job_defaults_str(): DefCpuPerGPU then DefMemPerGPU.
std::string JobDefaults(const Conf& conf) {
  std::string out;
  if (const std::string* cpu = conf.Get("DefCPUPerGPU")) out = "DefCpuPerGPU=" + *cpu;
  if (const std::string* mem = conf.Get("DefMemPerGPU")) {
    if (!out.empty()) out += ",";
    out += "DefMemPerGPU=" + *mem;
  }
  return out.empty() ? std::string(kNull) : out;
}

std::string LogTimeFormat(const Conf& conf) {
  const std::string* v = conf.Get("LogTimeFormat");
  if (v == nullptr) return "iso8601_ms";
  for (std::string_view f :
       {"iso8601_ms", "iso8601", "rfc5424_ms", "rfc5424", "clock", "short", "thread_id"}) {
    if (IContains(*v, f)) return std::string(f);
  }
  return "iso8601_ms";
}

// "%u min", or UNLIMITED for OverTimeLimit/ResvOverRun.
std::string Minutes(const Conf& conf, std::string_view name) {
  const std::string* v = conf.Get(name);
  if (v == nullptr) return "0 min";
  if (IsUnlimitedWord(*v)) return "UNLIMITED";
  const std::optional<int64_t> n = ParseUnsigned(*v);
  return (n ? std::to_string(*n) : *v) + " min";
}

// preempt_mode_num() then preempt_mode_string().
std::string PreemptMode(const Conf& conf) {
  const std::string* v = conf.Get("PreemptMode");
  if (v == nullptr) return "OFF";
  bool gang = false;
  bool within = false;
  int modes = 0;
  std::string mode = "OFF";
  for (std::string_view tok : SplitCommas(*v)) {
    if (EqualsIgnoreCase(tok, "gang")) {
      gang = true;
    } else if (EqualsIgnoreCase(tok, "within")) {
      within = true;
    } else if (EqualsIgnoreCase(tok, "off") || EqualsIgnoreCase(tok, "cluster")) {
      ++modes;
    } else if (EqualsIgnoreCase(tok, "cancel")) {
      mode = "CANCEL";
      ++modes;
    } else if (EqualsIgnoreCase(tok, "requeue")) {
      mode = "REQUEUE";
      ++modes;
    } else if (EqualsIgnoreCase(tok, "suspend") || EqualsIgnoreCase(tok, "on")) {
      mode = "SUSPEND";
      ++modes;
    } else {
      return "UNKNOWN";
    }
  }
  if (modes > 1 || (gang && within)) return "UNKNOWN";
  if (mode == "OFF") {
    if (gang) return "GANG";
    if (within) return "WITHIN";
    return "OFF";
  }
  if (gang) return "GANG," + mode;
  if (within) return "WITHIN," + mode;
  return mode;
}

// time_str2secs() shown through secs2time_str(); INFINITE is "NONE".
std::string PreemptExemptTime(const Conf& conf) {
  const std::string* v = conf.Get("PreemptExemptTime");
  if (v == nullptr) return text::FormatDurationSeconds(0);
  const Result<int64_t> secs = text::ParseDurationSeconds(*v);
  if (!secs.ok()) return *v;
  if (*secs == text::kInfiniteDuration) return "NONE";
  return text::FormatDurationSeconds(*secs);
}

// A priority time read with time_str2mins() (whole minutes, rounded up) and shown with
// secs2time_str().
std::string PriorityTime(const Conf& conf, std::string_view name, int64_t default_seconds) {
  const std::string* v = conf.Get(name);
  if (v == nullptr) return text::FormatDurationSeconds(default_seconds);
  const Result<int64_t> minutes = text::ParseDurationMinutes(*v);
  if (!minutes.ok()) return *v;
  if (*minutes == text::kInfiniteDuration) return "UNLIMITED";
  return text::FormatDurationSeconds(*minutes * 60);
}

// The flags _validate_and_set_defaults() derives (substring matches, as Slurm does), printed by
// priority_flags_string(). Slurm 22.05 prints NO_NORMAL_ALL when any NO_NORMAL_* flag is set.
std::string PriorityFlags(const Conf& conf) {
  const std::string* v = conf.Get("PriorityFlags");
  const std::string s = v != nullptr ? *v : "";
  bool fair_tree = true;
  bool depth_oblivious = false;
  if (IContains(s, "DEPTH_OBLIVIOUS")) {
    depth_oblivious = true;
    fair_tree = false;
  } else if (IContains(s, "NO_FAIR_TREE")) {
    fair_tree = false;
  }
  std::string out;
  const auto add = [&out](std::string_view word) {
    if (!out.empty()) out += ",";
    out += word;
  };
  if (IContains(s, "ACCRUE_ALWAYS")) add("ACCRUE_ALWAYS");
  if (IContains(s, "SMALL_RELATIVE_TO_TIME")) add("SMALL_RELATIVE_TO_TIME");
  if (IContains(s, "CALCULATE_RUNNING")) add("CALCULATE_RUNNING");
  if (depth_oblivious) add("DEPTH_OBLIVIOUS");
  if (!fair_tree) add("NO_FAIR_TREE");
  if (IContains(s, "INCR_ONLY")) add("INCR_ONLY");
  if (IContains(s, "MAX_TRES")) add("MAX_TRES");
  if (IContains(s, "NO_NORMAL_")) add("NO_NORMAL_ALL");
  return out;
}

std::string ResetPeriod(const Conf& conf) {
  const std::string* v = conf.Get("PriorityUsageResetPeriod");
  if (v == nullptr) return "NONE";
  for (std::string_view p : {"NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY"}) {
    if (EqualsIgnoreCase(*v, p)) return std::string(p);
  }
  return "UNKNOWN";
}

// private_data_string().
std::string PrivateData(const Conf& conf) {
  const std::string* v = conf.Get("PrivateData");
  if (v == nullptr) return "none";
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kFlags = {{
      {"account", "accounts"},
      {"cloud", "cloud"},
      {"event", "events"},
      {"job", "jobs"},
      {"node", "nodes"},
      {"partition", "partitions"},
      {"reservation", "reservations"},
      {"usage", "usage"},
      {"user", "users"},
  }};
  const bool all = IContains(*v, "all");
  std::string out;
  for (const auto& [match, shown] : kFlags) {
    if (!all && !IContains(*v, match)) continue;
    if (!out.empty()) out += ",";
    out += shown;
  }
  return out.empty() ? "none" : out;
}

// prolog_flags2str().
std::string PrologFlags(const Conf& conf) {
  const std::string* v = conf.Get("PrologFlags");
  if (v == nullptr) return std::string(kNull);
  bool alloc = false;
  std::vector<std::string_view> given;
  for (std::string_view tok : SplitCommas(*v)) given.push_back(tok);
  const auto has = [&given](std::string_view flag) {
    return std::any_of(given.begin(), given.end(),
                       [flag](std::string_view t) { return EqualsIgnoreCase(t, flag); });
  };
  alloc = has("Alloc") || has("NoHold") || has("Contain") || has("X11");
  std::string out;
  const auto add = [&out](std::string_view word) {
    if (!out.empty()) out += ",";
    out += word;
  };
  if (alloc) add("Alloc");
  if (has("Contain") || has("X11")) add("Contain");
  if (has("DeferBatch")) add("DeferBatch");
  if (has("NoHold")) add("NoHold");
  if (has("ForceRequeueOnFail")) add("ForceRequeueOnFail");
  if (has("RunInJob")) add("RunInJob");
  if (has("Serial")) add("Serial");
  if (has("X11")) add("X11");
  return out.empty() ? std::string(kNull) : out;
}

std::string ReconfigFlags(const Conf& conf) {
  const std::string* v = conf.Get("ReconfigFlags");
  if (v == nullptr) return std::string(kNull);
  std::string out;
  for (std::string_view f : {"KeepPartInfo", "KeepPartState", "KeepPowerSaveSettings"}) {
    bool present = false;
    for (std::string_view tok : SplitCommas(*v)) present = present || EqualsIgnoreCase(tok, f);
    if (!present) continue;
    if (!out.empty()) out += ",";
    out += f;
  }
  return out.empty() ? std::string(kNull) : out;
}

// parse_select_type_param() then select_type_param_string(). Unset with cons_tres/cons_res:
// the plugin's default, CR_Core_Memory. Returns nullopt when the line is not shown.
std::optional<std::string> SelectTypeParameters(const Conf& conf, std::string_view select_type) {
  const std::string* v = conf.Get("SelectTypeParameters");
  if (v == nullptr) {
    if (select_type.find("cons_tres") != std::string_view::npos ||
        select_type.find("cons_res") != std::string_view::npos) {
      return "CR_CORE_MEMORY";
    }
    return std::nullopt;
  }
  bool cpu = false, core = false, socket = false, memory = false;
  std::vector<std::string_view> modifiers;
  for (std::string_view tok : SplitCommas(*v)) {
    const std::string t = AsciiToUpper(tok);
    if (t == "CR_CPU") {
      cpu = true;
    } else if (t == "CR_CORE") {
      core = true;
    } else if (t == "CR_SOCKET") {
      socket = true;
    } else if (t == "CR_MEMORY") {
      memory = true;
    } else if (t == "CR_CPU_MEMORY") {
      cpu = memory = true;
    } else if (t == "CR_CORE_MEMORY") {
      core = memory = true;
    } else if (t == "CR_SOCKET_MEMORY") {
      socket = memory = true;
    }
  }
  std::string out;
  if (cpu && memory) {
    out = "CR_CPU_MEMORY";
  } else if (core && memory) {
    out = "CR_CORE_MEMORY";
  } else if (socket && memory) {
    out = "CR_SOCKET_MEMORY";
  } else if (cpu) {
    out = "CR_CPU";
  } else if (core) {
    out = "CR_CORE";
  } else if (socket) {
    out = "CR_SOCKET";
  } else if (memory) {
    out = "CR_MEMORY";
  }
  for (std::string_view m : {"OTHER_CONS_RES", "OTHER_CONS_TRES", "CR_ONE_TASK_PER_CORE",
                             "CR_CORE_DEFAULT_DIST_BLOCK", "CR_LLN", "CR_PACK_NODES"}) {
    bool present = false;
    for (std::string_view tok : SplitCommas(*v)) present = present || EqualsIgnoreCase(tok, m);
    if (!present) continue;
    if (!out.empty()) out += ",";
    out += m;
  }
  return out.empty() ? "NONE" : out;
}

// log_num2string() over log_string2num(): names or 0-9; unset syslog levels print "(null)".
std::string DebugLevel(const Conf& conf, std::string_view name, std::string_view fallback) {
  static constexpr std::array<std::string_view, 10> kLevels = {
      "quiet", "fatal",  "error",  "info",   "verbose",
      "debug", "debug2", "debug3", "debug4", "debug5"};
  const std::string* v = conf.Get(name);
  if (v == nullptr) return std::string(fallback);
  if (const std::optional<int64_t> n = ParseUnsigned(*v)) {
    return *n < static_cast<int64_t>(kLevels.size()) ? std::string(kLevels[*n]) : "debug5";
  }
  for (std::string_view l : kLevels) {
    if (EqualsIgnoreCase(*v, l)) return std::string(l);
  }
  return "unknown";
}

std::string SuspendTime(const Conf& conf) {
  const std::string* v = conf.Get("SuspendTime");
  if (v == nullptr || EqualsIgnoreCase(*v, "NONE") || IsUnlimitedWord(*v) || *v == "-1") {
    return "INFINITE";
  }
  return conf.Seconds("SuspendTime", 0);
}

std::string SuspendTimeout(const Conf& conf) {
  if (conf.NumValue("SuspendTimeout", 30) == 0) return "NONE";
  return conf.Seconds("SuspendTimeout", 30);
}

// slurm_sprint_cpu_bind_type() for the TaskPluginParam bits.
std::string TaskPluginParam(const Conf& conf) {
  const std::string* v = conf.Get("TaskPluginParam");
  if (v == nullptr) return "(null type)";
  std::string out;
  const auto add = [&out](std::string_view word) {
    if (!out.empty()) out += ",";
    out += word;
  };
  std::vector<std::string> tokens;
  for (std::string_view tok : SplitCommas(*v)) tokens.push_back(AsciiToLower(tok));
  const auto has = [&tokens](std::string_view t) {
    return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
  };
  if (has("verbose")) add("verbose");
  for (std::string_view unit : {"threads", "cores", "sockets", "none"}) {
    if (has(unit)) add(unit);
  }
  for (const std::string& t : tokens) {
    if (t.starts_with("autobind=")) add("autobind=" + t.substr(9));
  }
  if (has("slurmdoffspec")) add("SlurmdOffSpec");
  return out.empty() ? "(null type)" : out;
}

std::string PortRange(const Conf& conf, std::string_view name, std::string_view fallback) {
  const std::string* v = conf.Get(name);
  return v != nullptr ? *v : std::string(fallback);
}

std::vector<ShowConfigController> Controllers(const ShowConfigInput& in, const Conf& conf) {
  if (!in.controllers.empty()) return in.controllers;
  std::vector<ShowConfigController> out;
  const std::string* v = conf.Get("SlurmctldHost");
  if (v == nullptr) return out;
  ShowConfigController c;
  const size_t open = v->find('(');
  c.host = v->substr(0, open);
  if (open != std::string::npos) {
    const size_t close = v->find(')', open);
    c.address =
        v->substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1);
  }
  out.push_back(std::move(c));
  return out;
}

struct Lines {
  std::vector<std::pair<std::string, std::string>> items;
  void Add(std::string_view name, std::string value) {
    items.emplace_back(std::string(name), std::move(value));
  }
};

}  // namespace

std::vector<std::pair<std::string, std::string>> ShowConfigEntries(const ShowConfigInput& in) {
  const Conf conf(in.values);
  Lines l;
  bool track_wckey = conf.Flag("TrackWCKey");

  const std::string storage_type = conf.Str("AccountingStorageType", "accounting_storage/none");
  const bool slurmdbd = storage_type == "accounting_storage/slurmdbd";
  const std::string priority_type = conf.Str("PriorityType", "priority/basic");
  const bool basic_priority = priority_type == "priority/basic";
  const std::string select_type = conf.Str("SelectType", "select/linear");

  // MaxJobCount is capped at the number of usable job ids (MaxJobId - FirstJobId + 1).
  const int64_t max_job_id =
      std::min(conf.NumValue("MaxJobId", kDefaultMaxJobId), kDefaultMaxJobId);
  const int64_t first_job_id = conf.NumValue("FirstJobId", 1);
  int64_t max_job_count = conf.NumValue("MaxJobCount", 10000);
  if (first_job_id <= max_job_id) {
    max_job_count = std::min(max_job_count, max_job_id - first_job_id + 1);
  }

  l.Add("AccountingStorageBackupHost", conf.Str("AccountingStorageBackupHost"));
  l.Add("AccountingStorageEnforce", AccountingEnforce(conf, &track_wckey));
  l.Add("AccountingStorageHost", conf.Str("AccountingStorageHost", "localhost"));
  l.Add("AccountingStorageExternalHost", conf.Str("AccountingStorageExternalHost"));
  l.Add("AccountingStorageParameters", conf.Str("AccountingStorageParameters"));
  l.Add("AccountingStoragePort", conf.Num("AccountingStoragePort", slurmdbd ? 6819 : 0));
  l.Add("AccountingStorageTRES", AccountingTres(conf));
  l.Add("AccountingStorageType", storage_type);
  l.Add("AccountingStorageUser", slurmdbd ? "N/A" : conf.Str("AccountingStorageUser", "root"));
  l.Add("AccountingStoreFlags", StoreFlags(conf));
  l.Add("AcctGatherEnergyType", conf.Str("AcctGatherEnergyType", "acct_gather_energy/none"));
  l.Add("AcctGatherFilesystemType",
        conf.Str("AcctGatherFilesystemType", "acct_gather_filesystem/none"));
  l.Add("AcctGatherInterconnectType",
        conf.Str("AcctGatherInterconnectType", "acct_gather_interconnect/none"));
  l.Add("AcctGatherNodeFreq", conf.Seconds("AcctGatherNodeFreq", 0));
  l.Add("AcctGatherProfileType", conf.Str("AcctGatherProfileType", "acct_gather_profile/none"));
  l.Add("AllowSpecResourcesUsage", YesNo(conf.Flag("AllowSpecResourcesUsage")));
  l.Add("AuthAltTypes", conf.Str("AuthAltTypes"));
  l.Add("AuthAltParameters", conf.Str("AuthAltParameters"));
  l.Add("AuthInfo", conf.Str("AuthInfo"));
  l.Add("AuthType", conf.Str("AuthType", "auth/munge"));
  l.Add("BatchStartTimeout", conf.Seconds("BatchStartTimeout", 10));
  l.Add("BcastExclude", conf.Str("BcastExclude", "/lib,/usr/lib,/lib64,/usr/lib64"));
  l.Add("BcastParameters", conf.Str("BcastParameters"));
  l.Add("BOOT_TIME", in.boot_time);
  l.Add("BurstBufferType", conf.Str("BurstBufferType"));
  l.Add("CliFilterPlugins", conf.Str("CliFilterPlugins"));
  l.Add("ClusterName",
        AsciiToLower(in.cluster_name.empty() ? conf.Str("ClusterName") : in.cluster_name));
  l.Add("CommunicationParameters", conf.Str("CommunicationParameters"));
  l.Add("CompleteWait", conf.Seconds("CompleteWait", 0));
  l.Add("CoreSpecPlugin", conf.Str("CoreSpecPlugin", "core_spec/none"));
  l.Add("CpuFreqDef", CpuFreqDef(conf));
  l.Add("CpuFreqGovernors", CpuFreqGovernors(conf));
  l.Add("CredType", conf.Str("CredType", "cred/munge"));
  l.Add("DebugFlags", conf.Str("DebugFlags"));
  const auto def_mem = MemoryLimit(conf, "DefMemPerNode", "DefMemPerCPU");
  l.Add(def_mem.first, def_mem.second);
  l.Add("DependencyParameters", conf.Str("DependencyParameters"));
  l.Add("DisableRootJobs", YesNo(conf.Flag("DisableRootJobs")));
  l.Add("EioTimeout", conf.Num("EioTimeout", 60));
  l.Add("EnforcePartLimits", EnforcePartLimits(conf));
  l.Add("Epilog", conf.Str("Epilog"));
  l.Add("EpilogMsgTime", conf.Num("EpilogMsgTime", 2000) + " usec");
  l.Add("EpilogSlurmctld", conf.Str("EpilogSlurmctld"));
  l.Add("ExtSensorsType", conf.Str("ExtSensorsType", "ext_sensors/none"));
  l.Add("ExtSensorsFreq", conf.Seconds("ExtSensorsFreq", 0));
  if (!basic_priority) l.Add("FairShareDampeningFactor", conf.Num("FairShareDampeningFactor", 1));
  l.Add("FederationParameters", conf.Str("FederationParameters"));
  l.Add("FirstJobId", conf.Num("FirstJobId", 1));
  l.Add("GetEnvTimeout", conf.Seconds("GetEnvTimeout", 2));
  l.Add("GresTypes", conf.Str("GresTypes"));
  l.Add("GpuFreqDef", conf.Str("GpuFreqDef", "high,memory=high"));
  l.Add("GroupUpdateForce", conf.Num("GroupUpdateForce", 1));
  l.Add("GroupUpdateTime", conf.Seconds("GroupUpdateTime", 600));
  if (in.hash_match) l.Add("HASH_VAL", "Match");
  l.Add("HealthCheckInterval", conf.Seconds("HealthCheckInterval", 0));
  {
    // health_check_node_state_str(): CYCLE first, then ANY or the states.
    const std::string* v = conf.Get("HealthCheckNodeState");
    std::string out;
    bool any = v == nullptr, idle = false, alloc = false, mixed = false, cycle = false;
    bool nondrained_idle = false, start_only = false;
    for (std::string_view tok : SplitCommas(OrEmpty(v))) {
      nondrained_idle = nondrained_idle || EqualsIgnoreCase(tok, "NONDRAINED_IDLE");
      start_only = start_only || EqualsIgnoreCase(tok, "START_ONLY");
      any = any || EqualsIgnoreCase(tok, "ANY");
      idle = idle || EqualsIgnoreCase(tok, "IDLE");
      alloc = alloc || EqualsIgnoreCase(tok, "ALLOC");
      mixed = mixed || EqualsIgnoreCase(tok, "MIXED");
      cycle = cycle || EqualsIgnoreCase(tok, "CYCLE");
    }
    if (!any && !idle && !alloc && !mixed && !nondrained_idle) any = true;
    if (idle && alloc && mixed) any = true;
    const auto add = [&out](std::string_view word) {
      if (!out.empty()) out += ",";
      out += word;
    };
    if (cycle) add("CYCLE");
    if (any) {
      add("ANY");
    } else {
      if (idle) add("IDLE");
      if (alloc) add("ALLOC");
      if (mixed) add("MIXED");
      if (nondrained_idle) add("NONDRAINED_IDLE");
    }
    if (start_only) add("START_ONLY");
    l.Add("HealthCheckNodeState", out);
  }
  l.Add("HealthCheckProgram", conf.Str("HealthCheckProgram"));
  l.Add("InactiveLimit", conf.Seconds("InactiveLimit", 0));
  l.Add("InteractiveStepOptions",
        conf.Str("InteractiveStepOptions", "--interactive --preserve-env --pty $SHELL"));
  l.Add("JobAcctGatherFrequency", conf.Str("JobAcctGatherFrequency", "30"));
  l.Add("JobAcctGatherType", conf.Str("JobAcctGatherType", "jobacct_gather/none"));
  l.Add("JobAcctGatherParams", conf.Str("JobAcctGatherParams"));
  const std::string job_comp_type = conf.Str("JobCompType", "jobcomp/none");
  l.Add("JobCompHost", conf.Str("JobCompHost", "localhost"));
  l.Add("JobCompLoc",
        conf.Str("JobCompLoc", job_comp_type == "jobcomp/mysql" ? "slurm_jobcomp_db"
                                                                : "/var/log/slurm_jobcomp.log"));
  l.Add("JobCompPort", conf.Num("JobCompPort", 0));
  l.Add("JobCompType", job_comp_type);
  l.Add("JobCompUser", conf.Str("JobCompUser", "root"));
  l.Add("JobContainerType", conf.Str("JobContainerType", "job_container/none"));
  l.Add("JobCredentialPrivateKey", conf.Str("JobCredentialPrivateKey"));
  l.Add("JobCredentialPublicCertificate", conf.Str("JobCredentialPublicCertificate"));
  l.Add("JobDefaults", JobDefaults(conf));
  l.Add("JobFileAppend", conf.Num("JobFileAppend", 0));
  l.Add("JobRequeue", std::to_string(std::min<int64_t>(conf.NumValue("JobRequeue", 1), 1)));
  l.Add("JobSubmitPlugins", conf.Str("JobSubmitPlugins"));
  l.Add("KillOnBadExit", conf.Num("KillOnBadExit", 0));
  l.Add("KillWait", conf.Seconds("KillWait", 30));
  l.Add("LaunchParameters", conf.Str("LaunchParameters"));
  l.Add("LaunchType", conf.Str("LaunchType", "launch/slurm"));
  l.Add("Licenses", conf.Str("Licenses"));
  l.Add("LogTimeFormat", LogTimeFormat(conf));
  l.Add("MailDomain", conf.Str("MailDomain"));
  l.Add("MailProg", conf.Str("MailProg", in.mail_prog));
  l.Add("MaxArraySize", conf.Num("MaxArraySize", 1001));
  l.Add("MaxDBDMsgs",
        conf.Get("MaxDBDMsgs") != nullptr
            ? conf.Num("MaxDBDMsgs", kDefaultMaxDbdMsgs)
            : std::to_string(std::max(kDefaultMaxDbdMsgs, in.node_count * 4 + max_job_count * 2)));
  l.Add("MaxJobCount", std::to_string(max_job_count));
  l.Add("MaxJobId", std::to_string(max_job_id));
  const auto max_mem = MemoryLimit(conf, "MaxMemPerNode", "MaxMemPerCPU");
  l.Add(max_mem.first, max_mem.second);
  l.Add("MaxNodeCount", conf.Num("MaxNodeCount", in.node_count));
  l.Add("MaxStepCount", conf.Num("MaxStepCount", 40000));
  l.Add("MaxTasksPerNode", conf.Num("MaxTasksPerNode", 512));
  l.Add("MCSPlugin", conf.Str("MCSPlugin", "mcs/none"));
  l.Add("MCSParameters", conf.Str("MCSParameters"));
  l.Add("MessageTimeout", conf.Seconds("MessageTimeout", 10));
  l.Add("MinJobAge",
        std::to_string(std::max<int64_t>(conf.NumValue("MinJobAge", 300), 2)) + " sec");
  {
    const std::string mpi = conf.Str("MpiDefault", "none");
    l.Add("MpiDefault", mpi == "openmpi" ? "none" : mpi);
  }
  l.Add("MpiParams", conf.Str("MpiParams"));
  if (in.multiple_slurmd) l.Add("MULTIPLE_SLURMD", "Yes");
  l.Add("NEXT_JOB_ID", std::to_string(in.next_job_id));
  l.Add("NodeFeaturesPlugins", conf.Str("NodeFeaturesPlugins"));
  l.Add("OverTimeLimit", Minutes(conf, "OverTimeLimit"));
  l.Add("PluginDir", conf.Str("PluginDir", in.plugin_dir));
  l.Add("PlugStackConfig", conf.Str("PlugStackConfig"));
  l.Add("PowerParameters", conf.Str("PowerParameters"));
  l.Add("PowerPlugin", conf.Str("PowerPlugin", ""));
  l.Add("PreemptMode", PreemptMode(conf));
  l.Add("PreemptType", conf.Str("PreemptType", "preempt/none"));
  l.Add("PreemptExemptTime", PreemptExemptTime(conf));
  l.Add("PrEpParameters", conf.Str("PrEpParameters"));
  l.Add("PrEpPlugins", conf.Str("PrEpPlugins", "prep/script"));
  l.Add("PriorityParameters", conf.Str("PriorityParameters"));
  l.Add("PrioritySiteFactorParameters", conf.Str("PrioritySiteFactorParameters"));
  l.Add("PrioritySiteFactorPlugin", conf.Str("PrioritySiteFactorPlugin"));
  if (basic_priority) {
    l.Add("PriorityType", priority_type);
  } else {
    l.Add("PriorityDecayHalfLife", PriorityTime(conf, "PriorityDecayHalfLife", 7 * 86400));
    l.Add("PriorityCalcPeriod", PriorityTime(conf, "PriorityCalcPeriod", 300));
    l.Add("PriorityFavorSmall", YesNo(conf.Flag("PriorityFavorSmall")));
    l.Add("PriorityFlags", PriorityFlags(conf));
    l.Add("PriorityMaxAge", PriorityTime(conf, "PriorityMaxAge", 7 * 86400));
    l.Add("PriorityUsageResetPeriod", ResetPeriod(conf));
    l.Add("PriorityType", priority_type);
    l.Add("PriorityWeightAge", conf.Num("PriorityWeightAge", 0));
    l.Add("PriorityWeightAssoc", conf.Num("PriorityWeightAssoc", 0));
    l.Add("PriorityWeightFairShare", conf.Num("PriorityWeightFairshare", 0));
    l.Add("PriorityWeightJobSize", conf.Num("PriorityWeightJobSize", 0));
    l.Add("PriorityWeightPartition", conf.Num("PriorityWeightPartition", 0));
    l.Add("PriorityWeightQOS", conf.Num("PriorityWeightQOS", 0));
    l.Add("PriorityWeightTRES", conf.Str("PriorityWeightTRES"));
  }
  l.Add("PrivateData", PrivateData(conf));
  l.Add("ProctrackType", conf.Str("ProctrackType", "proctrack/cgroup"));
  l.Add("Prolog", conf.Str("Prolog"));
  l.Add("PrologEpilogTimeout", conf.Num("PrologEpilogTimeout", 65534));
  l.Add("PrologSlurmctld", conf.Str("PrologSlurmctld"));
  l.Add("PrologFlags", PrologFlags(conf));
  l.Add("PropagatePrioProcess", conf.Num("PropagatePrioProcess", 0));
  const bool rlimits_except = conf.Get("PropagateResourceLimitsExcept") != nullptr;
  l.Add("PropagateResourceLimits",
        rlimits_except ? std::string(kNull) : conf.Str("PropagateResourceLimits", "ALL"));
  l.Add("PropagateResourceLimitsExcept", conf.Str("PropagateResourceLimitsExcept"));
  l.Add("RebootProgram", conf.Str("RebootProgram"));
  l.Add("ReconfigFlags", ReconfigFlags(conf));
  l.Add("RequeueExit", conf.Str("RequeueExit"));
  l.Add("RequeueExitHold", conf.Str("RequeueExitHold"));
  l.Add("ResumeFailProgram", conf.Str("ResumeFailProgram"));
  l.Add("ResumeProgram", conf.Str("ResumeProgram"));
  l.Add("ResumeRate", conf.Num("ResumeRate", 300) + " nodes/min");
  l.Add("ResumeTimeout", conf.Seconds("ResumeTimeout", 60));
  l.Add("ResvEpilog", conf.Str("ResvEpilog"));
  l.Add("ResvOverRun", Minutes(conf, "ResvOverRun"));
  l.Add("ResvProlog", conf.Str("ResvProlog"));
  l.Add("ReturnToService", conf.Num("ReturnToService", 0));
  l.Add("RoutePlugin", conf.Str("RoutePlugin", "route/default"));
  l.Add("SchedulerParameters", conf.Str("SchedulerParameters"));
  {
    const int64_t slice = conf.NumValue("SchedulerTimeSlice", 30);
    l.Add("SchedulerTimeSlice", std::to_string(slice < 5 ? 30 : slice) + " sec");
  }
  l.Add("SchedulerType", conf.Str("SchedulerType", "sched/backfill"));
  l.Add("ScronParameters", conf.Str("ScronParameters"));
  l.Add("SelectType", select_type);
  if (std::optional<std::string> p = SelectTypeParameters(conf, select_type)) {
    l.Add("SelectTypeParameters", *p);
  }
  l.Add("SlurmUser", conf.Str("SlurmUser", "root") + "(" + std::to_string(in.slurm_user_id) + ")");
  l.Add("SlurmctldAddr", conf.Str("SlurmctldAddr"));
  l.Add("SlurmctldDebug", DebugLevel(conf, "SlurmctldDebug", "info"));
  const std::vector<ShowConfigController> controllers = Controllers(in, conf);
  for (size_t i = 0; i < controllers.size(); ++i) {
    const ShowConfigController& c = controllers[i];
    l.Add("SlurmctldHost[" + std::to_string(i) + "]",
          c.address.empty() || c.address == c.host ? c.host : c.host + "(" + c.address + ")");
  }
  l.Add("SlurmctldLogFile", conf.Str("SlurmctldLogFile"));
  l.Add("SlurmctldPort", PortRange(conf, "SlurmctldPort", "6817"));
  l.Add("SlurmctldSyslogDebug", DebugLevel(conf, "SlurmctldSyslogDebug", kNull));
  l.Add("SlurmctldPrimaryOffProg", conf.Str("SlurmctldPrimaryOffProg"));
  l.Add("SlurmctldPrimaryOnProg", conf.Str("SlurmctldPrimaryOnProg"));
  l.Add("SlurmctldTimeout", conf.Seconds("SlurmctldTimeout", 120));
  l.Add("SlurmctldParameters", conf.Str("SlurmctldParameters"));
  l.Add("SlurmdDebug", DebugLevel(conf, "SlurmdDebug", "info"));
  l.Add("SlurmdLogFile", conf.Str("SlurmdLogFile"));
  l.Add("SlurmdParameters", conf.Str("SlurmdParameters"));
  l.Add("SlurmdPidFile", conf.Str("SlurmdPidFile", "/var/run/slurmd.pid"));
  l.Add("SlurmdPort", conf.Num("SlurmdPort", 6818));
  l.Add("SlurmdSpoolDir", conf.Str("SlurmdSpoolDir", "/var/spool/slurmd"));
  l.Add("SlurmdSyslogDebug", DebugLevel(conf, "SlurmdSyslogDebug", kNull));
  l.Add("SlurmdTimeout", conf.Seconds("SlurmdTimeout", 300));
  l.Add("SlurmdUser",
        conf.Str("SlurmdUser", "root") + "(" + std::to_string(in.slurmd_user_id) + ")");
  l.Add("SlurmSchedLogFile", conf.Str("SlurmSchedLogFile"));
  l.Add("SlurmSchedLogLevel", conf.Num("SlurmSchedLogLevel", 0));
  l.Add("SlurmctldPidFile", conf.Str("SlurmctldPidFile", "/var/run/slurmctld.pid"));
  l.Add("SlurmctldPlugstack", conf.Str("SlurmctldPlugstack"));
  l.Add("SLURM_CONF", in.slurm_conf);
  l.Add("SLURM_VERSION", in.slurm_version);
  l.Add("SrunEpilog", conf.Str("SrunEpilog"));
  l.Add("SrunPortRange", PortRange(conf, "SrunPortRange", "0-0"));
  l.Add("SrunProlog", conf.Str("SrunProlog"));
  l.Add("StateSaveLocation", conf.Str("StateSaveLocation", "/var/spool"));
  l.Add("SuspendExcNodes", conf.Str("SuspendExcNodes"));
  l.Add("SuspendExcParts", conf.Str("SuspendExcParts"));
  l.Add("SuspendProgram", conf.Str("SuspendProgram"));
  l.Add("SuspendRate", conf.Num("SuspendRate", 60) + " nodes/min");
  l.Add("SuspendTime", SuspendTime(conf));
  l.Add("SuspendTimeout", SuspendTimeout(conf));
  l.Add("SwitchParameters", conf.Str("SwitchParameters"));
  l.Add("SwitchType", conf.Str("SwitchType", "switch/none"));
  l.Add("TaskEpilog", conf.Str("TaskEpilog"));
  l.Add("TaskPlugin", conf.Str("TaskPlugin", "task/none"));
  l.Add("TaskPluginParam", TaskPluginParam(conf));
  l.Add("TaskProlog", conf.Str("TaskProlog"));
  l.Add("TCPTimeout", conf.Seconds("TCPTimeout", 2));
  l.Add("TmpFS", conf.Str("TmpFS", "/tmp"));
  l.Add("TopologyParam", conf.Str("TopologyParam"));
  l.Add("TopologyPlugin", conf.Str("TopologyPlugin", "topology/none"));
  l.Add("TrackWCKey", YesNo(track_wckey));
  l.Add("TreeWidth", conf.Num("TreeWidth", 50));
  l.Add("UsePam", YesNo(conf.Flag("UsePAM")));
  l.Add("UnkillableStepProgram", conf.Str("UnkillableStepProgram"));
  l.Add("UnkillableStepTimeout", conf.Seconds("UnkillableStepTimeout", 60));
  l.Add("VSizeFactor", conf.Num("VSizeFactor", 0) + " percent");
  l.Add("WaitTime", conf.Seconds("WaitTime", 0));
  l.Add("X11Parameters", conf.Str("X11Parameters"));
  return std::move(l.items);
}

std::string RenderShowConfig(const ShowConfigInput& in) {
  std::string out = "Configuration data as of " + in.data_time + "\n";
  for (const auto& [name, value] : ShowConfigEntries(in)) {
    out += name;
    if (name.size() < 23) out.append(23 - name.size(), ' ');
    out += " = ";
    out += value;
    out += "\n";
  }
  out += "\n";
  const std::vector<ShowConfigController> controllers = Controllers(in, Conf(in.values));
  for (size_t i = 0; i < controllers.size(); ++i) {
    std::string role = "primary";
    if (i > 0) role = controllers.size() == 2 ? "backup" : "backup" + std::to_string(i);
    out += "Slurmctld(" + role + ") at " + controllers[i].host + " is " +
           (controllers[i].up ? "UP" : "DOWN") + "\n";
  }
  return out;
}

std::vector<std::string_view> ShowConfigParameterNames() {
  return {
      "AccountingStorageBackupHost",
      "AccountingStorageEnforce",
      "AccountingStorageHost",
      "AccountingStorageExternalHost",
      "AccountingStorageParameters",
      "AccountingStoragePort",
      "AccountingStorageTRES",
      "AccountingStorageType",
      "AccountingStorageUser",
      "AccountingStoreFlags",
      "AcctGatherEnergyType",
      "AcctGatherFilesystemType",
      "AcctGatherInterconnectType",
      "AcctGatherNodeFreq",
      "AcctGatherProfileType",
      "AllowSpecResourcesUsage",
      "AuthAltTypes",
      "AuthAltParameters",
      "AuthInfo",
      "AuthType",
      "BatchStartTimeout",
      "BcastExclude",
      "BcastParameters",
      "BurstBufferType",
      "CliFilterPlugins",
      "ClusterName",
      "CommunicationParameters",
      "CompleteWait",
      "CoreSpecPlugin",
      "CpuFreqDef",
      "CpuFreqGovernors",
      "CredType",
      "DebugFlags",
      "DefMemPerCPU",
      "DefMemPerNode",
      "DependencyParameters",
      "DisableRootJobs",
      "EioTimeout",
      "EnforcePartLimits",
      "Epilog",
      "EpilogMsgTime",
      "EpilogSlurmctld",
      "ExtSensorsType",
      "ExtSensorsFreq",
      "FairShareDampeningFactor",
      "FederationParameters",
      "FirstJobId",
      "GetEnvTimeout",
      "GresTypes",
      "GpuFreqDef",
      "GroupUpdateForce",
      "GroupUpdateTime",
      "HealthCheckInterval",
      "HealthCheckNodeState",
      "HealthCheckProgram",
      "InactiveLimit",
      "InteractiveStepOptions",
      "JobAcctGatherFrequency",
      "JobAcctGatherType",
      "JobAcctGatherParams",
      "JobCompHost",
      "JobCompLoc",
      "JobCompPort",
      "JobCompType",
      "JobCompUser",
      "JobContainerType",
      "JobCredentialPrivateKey",
      "JobCredentialPublicCertificate",
      "JobFileAppend",
      "JobRequeue",
      "JobSubmitPlugins",
      "KillOnBadExit",
      "KillWait",
      "LaunchParameters",
      "LaunchType",
      "Licenses",
      "LogTimeFormat",
      "MailDomain",
      "MailProg",
      "MaxArraySize",
      "MaxDBDMsgs",
      "MaxJobCount",
      "MaxJobId",
      "MaxMemPerCPU",
      "MaxMemPerNode",
      "MaxNodeCount",
      "MaxStepCount",
      "MaxTasksPerNode",
      "MCSPlugin",
      "MCSParameters",
      "MessageTimeout",
      "MinJobAge",
      "MpiDefault",
      "MpiParams",
      "NodeFeaturesPlugins",
      "OverTimeLimit",
      "PluginDir",
      "PlugStackConfig",
      "PowerParameters",
      "PowerPlugin",
      "PreemptMode",
      "PreemptType",
      "PreemptExemptTime",
      "PrEpParameters",
      "PrEpPlugins",
      "PriorityParameters",
      "PrioritySiteFactorParameters",
      "PrioritySiteFactorPlugin",
      "PriorityDecayHalfLife",
      "PriorityCalcPeriod",
      "PriorityFavorSmall",
      "PriorityFlags",
      "PriorityMaxAge",
      "PriorityUsageResetPeriod",
      "PriorityType",
      "PriorityWeightAge",
      "PriorityWeightAssoc",
      "PriorityWeightFairShare",
      "PriorityWeightJobSize",
      "PriorityWeightPartition",
      "PriorityWeightQOS",
      "PriorityWeightTRES",
      "PrivateData",
      "ProctrackType",
      "Prolog",
      "PrologEpilogTimeout",
      "PrologSlurmctld",
      "PrologFlags",
      "PropagatePrioProcess",
      "PropagateResourceLimits",
      "PropagateResourceLimitsExcept",
      "RebootProgram",
      "ReconfigFlags",
      "RequeueExit",
      "RequeueExitHold",
      "ResumeFailProgram",
      "ResumeProgram",
      "ResumeRate",
      "ResumeTimeout",
      "ResvEpilog",
      "ResvOverRun",
      "ResvProlog",
      "ReturnToService",
      "RoutePlugin",
      "SchedulerParameters",
      "SchedulerTimeSlice",
      "SchedulerType",
      "ScronParameters",
      "SelectType",
      "SelectTypeParameters",
      "SlurmUser",
      "SlurmctldAddr",
      "SlurmctldDebug",
      "SlurmctldHost",
      "SlurmctldLogFile",
      "SlurmctldPort",
      "SlurmctldSyslogDebug",
      "SlurmctldPrimaryOffProg",
      "SlurmctldPrimaryOnProg",
      "SlurmctldTimeout",
      "SlurmctldParameters",
      "SlurmdDebug",
      "SlurmdLogFile",
      "SlurmdParameters",
      "SlurmdPidFile",
      "SlurmdPort",
      "SlurmdSpoolDir",
      "SlurmdSyslogDebug",
      "SlurmdTimeout",
      "SlurmdUser",
      "SlurmSchedLogFile",
      "SlurmSchedLogLevel",
      "SlurmctldPidFile",
      "SlurmctldPlugstack",
      "SrunEpilog",
      "SrunPortRange",
      "SrunProlog",
      "StateSaveLocation",
      "SuspendExcNodes",
      "SuspendExcParts",
      "SuspendProgram",
      "SuspendRate",
      "SuspendTime",
      "SuspendTimeout",
      "SwitchParameters",
      "SwitchType",
      "TaskEpilog",
      "TaskPlugin",
      "TaskPluginParam",
      "TaskProlog",
      "TCPTimeout",
      "TmpFS",
      "TopologyParam",
      "TopologyPlugin",
      "TrackWCKey",
      "TreeWidth",
      "UsePam",
      "UnkillableStepProgram",
      "UnkillableStepTimeout",
      "VSizeFactor",
      "WaitTime",
      "X11Parameters",
  };
}

}  // namespace gantry::spec
