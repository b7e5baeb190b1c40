#include "slurm/sbatch_options.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "slurm/command_util.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/duration.h"
#include "text/gres.h"
#include "text/memory.h"

namespace gantry::slurm {
namespace {

using A = ArgKind;
constexpr int U = kOptUnsupported;

constexpr ShortOption kSbatchOptionsShort[] = {
    {'a', A::kRequired}, {'b', A::kRequired}, {'c', A::kRequired}, {'d', A::kRequired},
    {'e', A::kRequired}, {'h', A::kNone},     {'i', A::kRequired}, {'k', A::kOptional},
    {'m', A::kRequired}, {'n', A::kRequired}, {'o', A::kRequired}, {'p', A::kRequired},
    {'q', A::kRequired}, {'s', A::kNone},     {'t', A::kRequired}, {'v', A::kNone},
    {'w', A::kRequired}, {'x', A::kRequired}, {'A', A::kRequired}, {'B', A::kRequired},
    {'C', A::kRequired}, {'D', A::kRequired}, {'F', A::kRequired}, {'G', A::kRequired},
    {'H', A::kNone},     {'J', A::kRequired}, {'L', A::kRequired}, {'M', A::kRequired},
    {'N', A::kRequired}, {'O', A::kNone},     {'Q', A::kNone},     {'S', A::kRequired},
    {'V', A::kNone},     {'W', A::kNone},
};

// sbatch 22.05's long options: for each first letter in Slurm's table order (which decides the
// order of getopt's "possibilities" list). Options not implemented yet get ids from U upwards.
constexpr LongOption kSbatchOptionsLong[] = {
    {"account", A::kRequired, 'A'},
    {"acctg-freq", A::kRequired, U + 1},
    {"array", A::kRequired, 'a'},
    {"batch", A::kRequired, U + 2},
    {"begin", A::kRequired, 'b'},
    {"bb", A::kRequired, U + 3},
    {"bbf", A::kRequired, U + 4},
    {"cluster-constraint", A::kRequired, U + 5},
    {"chdir", A::kRequired, 'D'},
    {"cluster", A::kRequired, U + 6},
    {"clusters", A::kRequired, 'M'},
    {"comment", A::kRequired, kOptComment},
    {"container", A::kRequired, U + 7},
    {"context", A::kRequired, U + 8},
    {"contiguous", A::kNone, U + 9},
    {"constraint", A::kRequired, 'C'},
    {"core-spec", A::kRequired, 'S'},
    {"cores-per-socket", A::kRequired, U + 10},
    {"cpu-freq", A::kRequired, U + 11},
    {"cpus-per-gpu", A::kRequired, kOptCpusPerGpu},
    {"cpus-per-task", A::kRequired, 'c'},
    {"deadline", A::kRequired, U + 13},
    {"delay-boot", A::kRequired, U + 14},
    {"dependency", A::kRequired, 'd'},
    {"distribution", A::kRequired, 'm'},
    {"error", A::kRequired, 'e'},
    {"exclude", A::kRequired, 'x'},
    {"exclusive", A::kOptional, kOptExclusive},
    {"export", A::kRequired, kOptExport},
    {"export-file", A::kRequired, kOptExportFile},
    {"extra-node-info", A::kRequired, 'B'},
    {"get-user-env", A::kOptional, kOptGetUserEnv},
    {"gid", A::kRequired, U + 17},
    {"gpu-bind", A::kRequired, U + 18},
    {"gpu-freq", A::kRequired, U + 19},
    {"gpus", A::kRequired, 'G'},
    {"gpus-per-node", A::kRequired, kOptGpusPerNode},
    {"gpus-per-socket", A::kRequired, U + 20},
    {"gpus-per-task", A::kRequired, kOptGpusPerTask},
    {"gres", A::kRequired, kOptGres},
    {"gres-flags", A::kRequired, U + 22},
    {"help", A::kNone, 'h'},
    {"hint", A::kRequired, U + 23},
    {"hold", A::kNone, 'H'},
    {"ignore-pbs", A::kNone, U + 24},
    {"input", A::kRequired, 'i'},
    {"job-name", A::kRequired, 'J'},
    {"kill-on-invalid-dep", A::kRequired, kOptKillOnInvalidDep},
    {"licenses", A::kRequired, 'L'},
    {"mail-type", A::kRequired, kOptMailType},
    {"mail-user", A::kRequired, kOptMailUser},
    {"mcs-label", A::kRequired, U + 25},
    {"mem", A::kRequired, kOptMem},
    {"mem-bind", A::kRequired, U + 26},
    {"mem-per-cpu", A::kRequired, kOptMemPerCpu},
    {"mem-per-gpu", A::kRequired, kOptMemPerGpu},
    {"mincpus", A::kRequired, U + 28},
    {"network", A::kRequired, U + 29},
    {"nice", A::kOptional, kOptNice},
    {"no-kill", A::kOptional, 'k'},
    {"no-requeue", A::kNone, kOptNoRequeue},
    {"nodefile", A::kRequired, 'F'},
    {"nodelist", A::kRequired, 'w'},
    {"nodes", A::kRequired, 'N'},
    {"ntasks", A::kRequired, 'n'},
    {"ntasks-per-core", A::kRequired, U + 30},
    {"ntasks-per-gpu", A::kRequired, U + 31},
    {"ntasks-per-node", A::kRequired, kOptNtasksPerNode},
    {"ntasks-per-socket", A::kRequired, U + 32},
    {"ntasks-per-tres", A::kRequired, U + 33},
    {"open-mode", A::kRequired, kOptOpenMode},
    {"output", A::kRequired, 'o'},
    {"overcommit", A::kNone, 'O'},
    {"oversubscribe", A::kNone, 's'},
    {"parsable", A::kNone, kOptParsable},
    {"partition", A::kRequired, 'p'},
    {"power", A::kRequired, U + 35},
    {"prefer", A::kRequired, U + 36},
    {"priority", A::kRequired, U + 37},
    {"profile", A::kRequired, U + 38},
    {"propagate", A::kOptional, U + 39},
    {"qos", A::kRequired, 'q'},
    {"quiet", A::kNone, 'Q'},
    {"reboot", A::kNone, U + 40},
    {"requeue", A::kNone, kOptRequeue},
    {"reservation", A::kRequired, U + 41},
    {"signal", A::kRequired, kOptSignal},
    {"sockets-per-node", A::kRequired, U + 43},
    {"spread-job", A::kNone, U + 44},
    {"switches", A::kRequired, U + 45},
    {"tasks-per-node", A::kRequired, kOptTasksPerNode},
    {"test-only", A::kNone, kOptTestOnly},
    {"thread-spec", A::kRequired, U + 47},
    {"threads-per-core", A::kRequired, U + 48},
    {"time", A::kRequired, 't'},
    {"time-min", A::kRequired, kOptTimeMin},
    {"tmp", A::kRequired, U + 49},
    {"uid", A::kRequired, U + 50},
    {"use-min-nodes", A::kNone, U + 51},
    {"usage", A::kNone, kOptUsage},
    {"verbose", A::kNone, 'v'},
    {"version", A::kNone, 'V'},
    {"wait", A::kNone, 'W'},
    {"wait-all-nodes", A::kRequired, U + 52},
    {"wckey", A::kRequired, U + 53},
    {"wrap", A::kRequired, kOptWrap},
};

constexpr SbatchEnvVar kEnv[] = {
    {"SBATCH_ACCOUNT", 'A'},
    {"SBATCH_ACCTG_FREQ", U + 1},
    {"SBATCH_ARRAY_INX", 'a'},
    {"SBATCH_BATCH", U + 2},
    {"SBATCH_CLUSTERS", 'M'},
    {"SLURM_CLUSTERS", 'M'},
    {"SBATCH_CONSTRAINT", 'C'},
    {"SBATCH_CONTAINER", U + 7},
    {"SBATCH_CORE_SPEC", 'S'},
    {"SBATCH_CPUS_PER_GPU", kOptCpusPerGpu},
    {"SBATCH_DEBUG", 'v'},
    {"SBATCH_DELAY_BOOT", U + 14},
    {"SBATCH_DISTRIBUTION", 'm'},
    {"SBATCH_ERROR", 'e'},
    {"SBATCH_EXCLUSIVE", kOptExclusive},
    {"SBATCH_EXPORT", kOptExport},
    {"SBATCH_GET_USER_ENV", kOptGetUserEnv},
    {"SBATCH_GPU_BIND", U + 18},
    {"SBATCH_GPU_FREQ", U + 19},
    {"SBATCH_GPUS", 'G'},
    {"SBATCH_GPUS_PER_NODE", kOptGpusPerNode},
    {"SBATCH_GPUS_PER_TASK", kOptGpusPerTask},
    {"SBATCH_GRES", kOptGres},
    {"SBATCH_GRES_FLAGS", U + 22},
    {"SBATCH_HINT", U + 23},
    {"SLURM_HINT", U + 23},
    {"SBATCH_IGNORE_PBS", U + 24},
    {"SBATCH_INPUT", 'i'},
    {"SBATCH_JOB_NAME", 'J'},
    {"SBATCH_MEM_BIND", U + 26},
    {"SBATCH_MEM_PER_CPU", kOptMemPerCpu},
    {"SBATCH_MEM_PER_GPU", kOptMemPerGpu},
    {"SBATCH_MEM_PER_NODE", kOptMem},
    {"SBATCH_NETWORK", U + 29},
    {"SBATCH_NO_KILL", 'k'},
    {"SBATCH_NO_REQUEUE", kOptNoRequeue},
    {"SBATCH_OPEN_MODE", kOptOpenMode},
    {"SBATCH_OUTPUT", 'o'},
    {"SBATCH_OVERCOMMIT", 'O'},
    {"SBATCH_PARTITION", 'p'},
    {"SBATCH_POWER", U + 35},
    {"SBATCH_PROFILE", U + 38},
    {"SBATCH_QOS", 'q'},
    {"SBATCH_REQ_SWITCH", U + 45},
    {"SBATCH_REQUEUE", kOptRequeue},
    {"SBATCH_RESERVATION", U + 41},
    {"SBATCH_SIGNAL", kOptSignal},
    {"SBATCH_SPREAD_JOB", U + 44},
    {"SBATCH_THREAD_SPEC", U + 47},
    {"SBATCH_THREADS_PER_CORE", U + 48},
    {"SBATCH_TIMELIMIT", 't'},
    {"SBATCH_USE_MIN_NODES", U + 51},
    {"SBATCH_WAIT", 'W'},
    {"SBATCH_WAIT_ALL_NODES", U + 52},
    {"SBATCH_WCKEY", U + 53},
};

OptionResult SbatchOptionsFail(std::string message, int exit_code = 255) {
  return OptionResult{false, std::move(message), exit_code};
}

// Slurm's parse_int for a positive count: "Invalid numeric value \"x\" for --ntasks." (exit 1).
std::optional<uint32_t> PositiveCount(const std::optional<std::string>& value) {
  std::optional<int64_t> n = ParseSigned(value.value_or(""));
  if (!n || *n <= 0 || *n > 0x7fffffff) return std::nullopt;
  return static_cast<uint32_t>(*n);
}

OptionResult NumericError(const std::optional<std::string>& value, std::string_view option) {
  return SbatchOptionsFail(
      "Invalid numeric value \"" + value.value_or("") + "\" for --" + std::string(option) + ".", 1);
}

constexpr std::string_view kMailTypes[] = {
    "NONE",          "BEGIN",          "END",         "FAIL",       "REQUEUE",
    "ALL",           "INVALID_DEPEND", "STAGE_OUT",   "TIME_LIMIT", "TIME_LIMIT_90",
    "TIME_LIMIT_80", "TIME_LIMIT_50",  "ARRAY_TASKS",
};

std::string GresTresForm(std::string_view gres) {
  std::string out;
  for (const std::string& item : SplitList(gres)) {
    if (!out.empty()) out += ",";
    out += item.rfind("gres:", 0) == 0 ? item : "gres:" + item;
  }
  return out;
}

}  // namespace

std::span<const ShortOption> SbatchShortOptions() { return kSbatchOptionsShort; }
std::span<const LongOption> SbatchLongOptions() { return kSbatchOptionsLong; }
std::span<const SbatchEnvVar> SbatchEnvVars() { return kEnv; }

std::string_view SbatchOptionName(int id) {
  for (const LongOption& o : kSbatchOptionsLong) {
    if (o.id == id) return o.name;
  }
  return "";
}

OptionResult ApplySbatchOption(SbatchOptions* o, int id, const std::optional<std::string>& value,
                               UnixTime now, const TimeZone& tz) {
  const std::string v = value.value_or("");
  switch (id) {
    case 'A':
      o->account = v;
      break;
    case 'b': {
      Result<UnixTime> t = text::ParseBeginTime(v, now, tz);
      if (!t.ok()) return SbatchOptionsFail("Invalid --begin specification");
      o->begin = *t;
      break;
    }
    case 'D':
      o->chdir = v;
      break;
    case kOptComment:
      o->comment = v;
      break;
    case 'C':
      o->constraint = v;
      break;
    case 'c': {
      std::optional<uint32_t> n = PositiveCount(value);
      if (!n) return NumericError(value, "cpus-per-task");
      o->cpus_per_task = *n;
      break;
    }
    case 'd':
      o->dependency = v;
      break;
    case 'a':
      o->array = v;
      break;
    case 'e':
      o->error = text::EqualsIgnoreCase(v, "none") ? "/dev/null" : v;
      break;
    case 'x':
      o->exclude = v;
      break;
    case kOptExclusive:
      if (value.has_value() && !v.empty() && !text::EqualsIgnoreCase(v, "exclusive")) {
        if (text::EqualsIgnoreCase(v, "user") || text::EqualsIgnoreCase(v, "mcs")) {
          return SbatchOptionsFail("--exclusive=" + v + " is not supported by Gantry yet", 1);
        }
        return SbatchOptionsFail("Invalid --exclusive specification");
      }
      o->exclusive = true;
      break;
    case kOptExport:
      o->export_env = v;
      break;
    case kOptExportFile:
      o->export_file = v;
      break;
    case kOptGetUserEnv: {
      // [timeout][S|L]: accepted and checked; jobs get the submitter's environment (--export).
      std::string_view rest = v;
      while (!rest.empty() && text::IsAsciiDigit(rest.front())) rest.remove_prefix(1);
      if (!(rest.empty() || rest == "S" || rest == "s" || rest == "L" || rest == "l")) {
        return SbatchOptionsFail("Invalid --get-user-env specification");
      }
      break;
    }
    case kOptOpenMode:  // sbatch looks at the first letter only
      if (!v.empty() && (v[0] == 'a' || v[0] == 'A')) {
        o->open_append = true;
      } else if (!v.empty() && (v[0] == 't' || v[0] == 'T')) {
        o->open_append = false;
      } else {
        return SbatchOptionsFail("Invalid --open-mode specification");
      }
      break;
    case kOptGres:
      o->gres = text::EqualsIgnoreCase(v, "none") ? std::string() : GresTresForm(v);
      break;
    case kOptGpusPerNode:
      o->gres = GresTresForm("gpu:" + v);
      break;
    case 'G':
    case kOptGpusPerTask: {
      // [type:]count, as --gpus and --gpus-per-task take it.
      auto parsed = text::ParseGres("gpu:" + v, text::GresSyntax::kJobRequest);
      const std::string count = v.substr(v.rfind(':') + 1);  // the count is not optional here
      if (!parsed.ok() || parsed->size() != 1 || (*parsed)[0].count <= 0 || count.empty() ||
          !text::IsAsciiDigit(count[0])) {
        return SbatchOptionsFail("Invalid generic resource (gres) specification", 1);
      }
      (id == 'G' ? o->gpus : o->gpus_per_task) = (*parsed)[0];
      break;
    }
    case kOptCpusPerGpu: {
      const std::optional<uint32_t> n = PositiveCount(value);
      if (!n) return NumericError(value, "cpus-per-gpu");
      o->cpus_per_gpu = static_cast<uint32_t>(*n);
      break;
    }
    case kOptMemPerGpu: {
      Result<int64_t> mib = text::ParseMemoryMiB(v);
      if (!mib.ok()) return SbatchOptionsFail("Invalid --mem-per-gpu specification");
      o->mem_per_gpu_mb = static_cast<uint64_t>(*mib);
      break;
    }
    case 'H':
      o->hold = true;
      break;
    case 'i':
      o->input = text::EqualsIgnoreCase(v, "none") ? "/dev/null" : v;
      break;
    case 'J':
      o->job_name = v;
      break;
    case kOptKillOnInvalidDep:
      if (text::EqualsIgnoreCase(v, "yes")) {
        o->kill_on_invalid_dep = 1;
      } else if (text::EqualsIgnoreCase(v, "no")) {
        o->kill_on_invalid_dep = 2;
      } else {
        return SbatchOptionsFail("Invalid --kill-on-invalid-dep specification");
      }
      break;
    case kOptMailType: {
      std::string canonical;
      for (const std::string& word : SplitList(v)) {
        const std::string upper = text::AsciiToUpper(word);
        if (std::find(std::begin(kMailTypes), std::end(kMailTypes), upper) ==
            std::end(kMailTypes)) {
          return SbatchOptionsFail("Invalid --mail-type specification");
        }
        canonical += (canonical.empty() ? "" : ",") + upper;
      }
      if (canonical.empty()) return SbatchOptionsFail("Invalid --mail-type specification");
      o->mail_type = canonical == "NONE" ? std::string() : canonical;
      break;
    }
    case kOptMailUser:
      o->mail_user = v;
      break;
    case kOptMem: {
      Result<int64_t> mib = text::ParseMemoryMiB(v);
      if (!mib.ok()) return SbatchOptionsFail("Invalid --mem specification");
      o->mem_mb = static_cast<uint64_t>(*mib);
      break;
    }
    case kOptMemPerCpu: {
      Result<int64_t> mib = text::ParseMemoryMiB(v);
      if (!mib.ok()) return SbatchOptionsFail("Invalid --mem-per-cpu specification");
      o->mem_per_cpu_mb = static_cast<uint64_t>(*mib);
      break;
    }
    case kOptNice: {
      int64_t nice = 100;
      if (value.has_value()) {
        std::optional<int64_t> n = ParseSigned(v);
        if (!n) return SbatchOptionsFail("Invalid --nice value: " + v);
        nice = *n;
      }
      if (std::llabs(nice) > 2147483645LL) {
        return SbatchOptionsFail("Invalid --nice value, out of range (+/- 2147483645)");
      }
      o->nice = static_cast<int32_t>(nice);
      break;
    }
    case kOptNoRequeue:
      o->requeue = 2;
      break;
    case kOptRequeue:
      o->requeue = 1;
      break;
    case 'w':
      o->nodelist = v;
      break;
    case 'N': {
      const size_t dash = v.find('-');
      const std::string min_text = v.substr(0, dash);
      std::optional<uint64_t> min = ParseUnsigned(min_text);
      if (!min || *min > 0x7fffffff)
        return SbatchOptionsFail("\"" + v + "\" is not a valid node count");
      uint64_t max = *min;
      if (dash != std::string::npos) {
        const std::string max_text = v.substr(dash + 1);
        if (max_text.empty()) {
          return SbatchOptionsFail("Maximum node count -1 is less than minimum node count " +
                                   std::to_string(*min));
        }
        std::optional<uint64_t> parsed = ParseUnsigned(max_text);
        if (!parsed || *parsed > 0x7fffffff)
          return SbatchOptionsFail("\"" + v + "\" is not a valid node count");
        max = *parsed;
        if (max < *min) {
          return SbatchOptionsFail("Maximum node count " + std::to_string(max) +
                                   " is less than minimum node count " + std::to_string(*min));
        }
      }
      o->min_nodes = static_cast<uint32_t>(*min);
      o->max_nodes = static_cast<uint32_t>(max);
      break;
    }
    case 'n': {
      std::optional<uint32_t> n = PositiveCount(value);
      if (!n) return NumericError(value, "ntasks");
      o->ntasks = *n;
      break;
    }
    case kOptNtasksPerNode:
    case kOptTasksPerNode: {
      std::optional<uint32_t> n = PositiveCount(value);
      if (!n) {
        return NumericError(value, id == kOptTasksPerNode ? "tasks-per-node" : "ntasks-per-node");
      }
      o->ntasks_per_node = *n;
      break;
    }
    case 'o':
      o->output = text::EqualsIgnoreCase(v, "none") ? "/dev/null" : v;
      break;
    case kOptParsable:
      o->parsable = true;
      break;
    case 'p':
      o->partitions = SplitList(v);
      break;
    case 'q':
      o->qos = v;
      break;
    case 'Q':
      o->quiet = true;
      break;
    case 'W':
      o->wait = true;
      break;
    case kOptTestOnly:
      o->test_only = true;
      break;
    case kOptSignal: {
      // [{R|B}:]SIG[@SECONDS]. R (a reservation's end) is accepted; Gantry has no reservations.
      std::string_view rest = v;
      bool batch_only = false;
      if (const size_t colon = rest.find(':'); colon != std::string_view::npos) {
        const std::string_view flags = rest.substr(0, colon);
        if (flags.empty() || flags.find_first_not_of("RBrb") != std::string_view::npos) {
          return SbatchOptionsFail("Invalid --signal specification");
        }
        batch_only = flags.find_first_of("Bb") != std::string_view::npos;
        rest.remove_prefix(colon + 1);
      }
      uint32_t seconds = 60;
      if (const size_t at = rest.find('@'); at != std::string_view::npos) {
        const std::optional<uint64_t> secs = ParseUnsigned(rest.substr(at + 1));
        if (!secs || *secs > 0xFFFF) return SbatchOptionsFail("Invalid --signal specification");
        seconds = static_cast<uint32_t>(*secs);
        rest = rest.substr(0, at);
      }
      const std::optional<int> sig = ParseSignal(rest);
      if (!sig) return SbatchOptionsFail("Invalid --signal specification");
      o->warn_signal = *sig;
      o->warn_seconds = seconds;
      o->warn_batch_only = batch_only;
      break;
    }
    case 't':
    case kOptTimeMin: {
      Result<int64_t> minutes = text::ParseDurationMinutes(v);
      if (!minutes.ok()) {
        return SbatchOptionsFail(id == 't' ? "Invalid --time specification"
                                           : "Invalid --time-min specification");
      }
      uint32_t m = *minutes == text::kInfiniteDuration || *minutes > 0xFFFFFFFELL
                       ? 0xFFFFFFFFu
                       : static_cast<uint32_t>(*minutes);
      if (m == 0) m = 0xFFFFFFFFu;  // sbatch treats 0 minutes as no limit
      if (id == 't') {
        o->time_limit_min = m;
      } else {
        o->time_min_min = m;
      }
      break;
    }
    case kOptWrap:
      o->wrap = v;
      break;
    case 'v':
    case 'h':
    case 'V':
    case kOptUsage:
      break;
    default:
      return SbatchOptionsFail(
          "--" + std::string(SbatchOptionName(id)) + " is not supported by Gantry yet", 1);
  }
  return OptionResult{};
}

OptionResult VerifySbatchOptions(const SbatchOptions& options) {
  const int memory_options = options.mem_mb.has_value() + options.mem_per_cpu_mb.has_value() +
                             options.mem_per_gpu_mb.has_value();
  if (memory_options > 1) {
    return SbatchOptionsFail("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", 1);
  }
  if (options.gpus_per_task && !options.ntasks && !options.gpus) {
    return SbatchOptionsFail(
        "Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks "
        "is not allowed.",
        1);
  }
  return OptionResult{};
}

void ResolveGpuOptions(SbatchOptions* o) {
  const uint32_t nodes = std::max<uint32_t>(o->min_nodes.value_or(1), 1);
  const uint32_t tasks_per_node =
      o->ntasks_per_node.value_or(o->ntasks ? (*o->ntasks + nodes - 1) / nodes : 1);
  std::optional<text::GresSpec> per_node;
  if (o->gres) {
    auto parsed = text::ParseGres(*o->gres, text::GresSyntax::kJobRequest);
    if (parsed.ok()) {
      for (const text::GresSpec& g : *parsed) {
        if (g.name == "gpu") per_node = g;
      }
    }
  } else if (o->gpus_per_task) {
    per_node = *o->gpus_per_task;
    // Saturating: an absurd count stays absurd (and is refused by the controller) instead of
    // wrapping to a small one or none (found by fuzz/sbatch_script_fuzz.cc).
    if (__builtin_mul_overflow(per_node->count, int64_t{std::max<uint32_t>(tasks_per_node, 1)},
                               &per_node->count)) {
      per_node->count = INT64_MAX;
    }
  } else if (o->gpus) {
    per_node = *o->gpus;
    per_node->count = per_node->count / nodes + (per_node->count % nodes != 0 ? 1 : 0);
  }
  if (!per_node || per_node->count <= 0) return;
  if (!o->gres) o->gres = GresTresForm(text::FormatGres({*per_node}));
  const auto gpus = static_cast<uint64_t>(per_node->count);
  if (o->cpus_per_gpu && !o->cpus_per_task) {
    const uint64_t cpus = *o->cpus_per_gpu * gpus;
    const uint32_t tasks = std::max<uint32_t>(tasks_per_node, 1);
    o->cpus_per_task = static_cast<uint32_t>(std::min<uint64_t>((cpus + tasks - 1) / tasks, 65535));
  }
  if (o->mem_per_gpu_mb) o->mem_mb = *o->mem_per_gpu_mb * gpus;
}

const char kSbatchUsage[] =
    "Usage: sbatch [-N nnodes] [-n ntasks]\n"
    "              [-c ncpus] [-p partition] [--hold] [--parsable] [-t minutes]\n"
    "              [-D path] [--input file] [--output file] [--error file]\n"
    "              [--time-min=minutes] [--chdir=directory] [-J jobname]\n"
    "              [--mem=MB] [--mem-per-cpu=MB] [-C list] [--account=name]\n"
    "              [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "              [--requeue] [--no-requeue] [--ntasks-per-node=n]\n"
    "              [--nodelist=hosts] [--exclude=hosts] [--qos=qos] [--gres=list]\n"
    "              [--begin=time] [--exclusive] [--export[=names]] [--wrap=command]\n"
    "              executable [args...]\n";

const char kSbatchHelp[] =
    "Usage: sbatch [OPTIONS(0)...] script(0) [args(0)...]\n"
    "\n"
    "Parallel run options:\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
    "      --comment=name          arbitrary comment\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
    "  -D, --chdir=directory       set working directory for batch script\n"
    "  -e, --error=err             file for batch script's standard error\n"
    "      --export[=names]        specify environment variables to export\n"
    "  -H, --hold                  submit job in held state\n"
    "  -i, --input=in              file for batch script's standard input\n"
    "  -J, --job-name=jobname      name of job\n"
    "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
    "      --mail-user=user        who to send email notification for job state\n"
    "                              changes\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "      --nice[=value]          decrease scheduling priority by value\n"
    "      --no-requeue            if set, do not permit the job to be requeued\n"
    "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            file for batch script's standard output\n"
    "  -p, --partition=partition   partition requested\n"
    "      --parsable              outputs only the jobid and cluster name (if present),\n"
    "                              separated by semicolon, only on successful submission.\n"
    "  -q, --qos=qos               quality of service\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "      --requeue               if set, permit the job to be requeued\n"
    "  -t, --time=minutes          time limit\n"
    "      --time-min=minutes      minimum time limit (if distinct)\n"
    "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
    "      --wrap[=command string] wrap command string in a sh script and submit\n"
    "\n"
    "Constraint options:\n"
    "  -C, --constraint=list       specify a list of constraints\n"
    "  -w, --nodelist=hosts...     request a specific list of hosts\n"
    "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
    "      --mem=MB                minimum amount of real memory\n"
    "      --mem-per-cpu=MB        maximum amount of real memory per allocated\n"
    "                              cpu required by the job.\n"
    "                              --mem >= --mem-per-cpu if --mem is specified.\n"
    "\n"
    "Consumable resources related options:\n"
    "      --exclusive             allocate nodes in exclusive mode\n"
    "      --gres=list             required generic resources\n"
    "      --gpus-per-node=n       number of GPUs required per allocated node\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n"
    "\n"
    "Other options:\n"
    "  -V, --version               output version information and exit\n";

}  // namespace gantry::slurm
