#include "cli/sim_command.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "core/context.h"
#include "sim/history_store.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/swf.h"
#include "sim/trace_file.h"
#include "sim/workload.h"
#include "spec/effective_config.h"
#include "spec/slurm_keys.h"
#include "spec/validate.h"
#include "state/admission.h"
#include "state/cluster_state.h"
#include "store/sqlite_store.h"
#include "sys/files.h"

namespace gantry::cli {
namespace {

constexpr char kSimUsage[] =
    "usage: gantry sim --spec CLUSTER.json --trace TRACE [options]\n"
    "       gantry sim --from-state-dir DIR [options]\n"
    "\n"
    "Replays TRACE through gantryd's scheduler on a simulated clock and reports when each job\n"
    "would start and end on the cluster CLUSTER.json describes.\n"
    "\n"
    "  --trace FILE            a Standard Workload Format trace (.swf, .swf.gz) or a JSON\n"
    "                          workload (.json: {\"jobs\": [{\"submit\": 0, \"run\": 60, ...}]})\n"
    "  --from-state-dir DIR    replay a local cluster's own history (its spec, accounting and\n"
    "                          every job that ended, with its real run time); the cluster\n"
    "                          must be down (gantry down)\n"
    "  --set KEY=VALUE         a slurm.conf setting for this run (cluster-wide; repeatable)\n"
    "  --compare KEY=VALUE     also run with this setting (repeatable) and print both side by "
    "side\n"
    "  --out DIR               write DIR/jobs.csv and DIR/summary.json (with --compare, also\n"
    "                          DIR/compare/)\n"
    "  --report DIR            write DIR/index.html: plots of the queue, utilization and waits\n"
    "  --swf-cpus-per-node N   processors of the trace per node (default 1); SWF jobs get\n"
    "                          whole nodes unless --swf-shared-nodes\n"
    "  --prolog-sec N, --epilog-sec N\n"
    "                          how long each node's prolog and epilog take (default 0)\n";

struct Options {
  std::string spec_path;
  std::string trace_path;
  std::string state_dir;
  std::vector<std::pair<std::string, std::string>> set;
  std::vector<std::pair<std::string, std::string>> compare;
  std::string out_dir;
  std::string report_dir;
  sim::SwfConversion swf;
  sim::AgentTimes agent_times;
};

// KEY=VALUE with a cluster-wide slurm.conf key (canonical spelling) and a value it accepts.
Result<std::pair<std::string, std::string>> Setting(const std::string& flag,
                                                    const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument(flag + " " + text + ": expected KEY=VALUE");
  }
  const std::string key = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  const spec::SlurmKey* known = spec::FindSlurmKey(key, spec::kClusterScope);
  if (known == nullptr) {
    std::string hint;
    for (const std::string& s : spec::SuggestKeys(key, 3, spec::kClusterScope)) {
      hint += (hint.empty() ? " (did you mean " : " or ") + ("\"" + s + "\"");
    }
    return InvalidArgument(flag + " " + text + ": \"" + key +
                           "\" is not a cluster-wide slurm.conf setting" +
                           (hint.empty() ? "" : hint + "?)"));
  }
  if (Status ok = spec::ValidateSlurmValue(*known, value); !ok.ok()) {
    return InvalidArgument(flag + " " + text + ": " + ok.message());
  }
  return std::pair(std::string(known->name), value);
}

Result<uint32_t> Count(const std::string& flag, const std::string& text, uint32_t min) {
  uint32_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size() || n < min) {
    return InvalidArgument(flag + " " + text + ": not a whole number of at least " +
                           std::to_string(min));
  }
  return n;
}

Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--swf-shared-nodes") {
      o.swf.whole_nodes = false;
      continue;
    }
    if (i + 1 >= args.size()) return InvalidArgument(flag + ": needs a value");
    const std::string& value = args[++i];
    if (flag == "--spec") {
      o.spec_path = value;
    } else if (flag == "--trace") {
      o.trace_path = value;
    } else if (flag == "--from-state-dir") {
      o.state_dir = value;
    } else if (flag == "--set" || flag == "--compare") {
      GANTRY_ASSIGN_OR_RETURN(auto setting, Setting(flag, value));
      (flag == "--set" ? o.set : o.compare).push_back(std::move(setting));
    } else if (flag == "--out") {
      o.out_dir = value;
    } else if (flag == "--report") {
      o.report_dir = value;
    } else if (flag == "--swf-cpus-per-node") {
      GANTRY_ASSIGN_OR_RETURN(o.swf.cpus_per_node, Count(flag, value, 1));
    } else if (flag == "--prolog-sec") {
      GANTRY_ASSIGN_OR_RETURN(const uint32_t n, Count(flag, value, 0));
      o.agent_times.prolog_sec = n;
    } else if (flag == "--epilog-sec") {
      GANTRY_ASSIGN_OR_RETURN(const uint32_t n, Count(flag, value, 0));
      o.agent_times.epilog_sec = n;
    } else {
      return InvalidArgument("unknown option " + flag);
    }
  }
  if (!o.state_dir.empty()) {
    if (!o.trace_path.empty()) return InvalidArgument("--trace and --from-state-dir: one only");
    if (o.spec_path.empty()) o.spec_path = o.state_dir + "/spec.json";
    o.trace_path = o.state_dir;
  }
  if (o.spec_path.empty()) return InvalidArgument("--spec is required");
  if (o.trace_path.empty()) return InvalidArgument("--trace (or --from-state-dir) is required");
  return o;
}

// The history of the cluster in `dir` (its SQLite store).
Result<sim::History> LoadHistory(const std::string& dir) {
  const std::string path = dir + "/state.db";
  if (!std::filesystem::exists(path)) {
    return NotFound(path +
                    ": no store here (a cluster that keeps its state in PostgreSQL is "
                    "not replayed from its state dir yet)");
  }
  store::SqliteStoreOptions options;
  options.busy_timeout_ms = 200;
  Result<std::unique_ptr<store::Store>> store = store::OpenSqliteStore(path, options);
  if (!store.ok()) {
    return Unavailable(store.status().message() +
                       " (while the cluster runs its controller holds the store: gantry down "
                       "first)");
  }
  return sim::ReadHistory(**store);
}

Result<sim::Workload> LoadWorkload(const Options& o) {
  GANTRY_ASSIGN_OR_RETURN(const std::string text, sim::ReadTraceText(o.trace_path));
  if (o.trace_path.ends_with(".json")) return sim::ParseWorkloadJson(text, o.trace_path);
  GANTRY_ASSIGN_OR_RETURN(const sim::SwfTrace trace, sim::ParseSwf(text, o.trace_path));
  return sim::WorkloadFromSwf(trace, o.swf);
}

// The simulation's input for the spec with `settings` set.
Result<sim::SimulationInput> InputFor(const spec::EffectiveConfig& base,
                                      const std::vector<std::pair<std::string, std::string>>& set,
                                      const Options& o, const sim::Workload& workload) {
  spec::EffectiveConfig effective = base;
  for (const auto& [key, value] : set) spec::SetKey(&effective.settings, key, value);
  sim::SimulationInput in;
  GANTRY_ASSIGN_OR_RETURN(in.config, core::ConfigFromSpec(effective));
  in.cluster = state::ConfigFromSpec(effective);
  in.admit = state::AdmitOptionsFromConfig(effective);
  // The whole workload is the point: a queue longer than MaxJobCount is what it is.
  in.admit.max_job_count = UINT32_MAX;
  GANTRY_ASSIGN_OR_RETURN(in.min_job_age_sec, spec::UintSetting(effective, "MinJobAge", 300));
  in.agent_times = o.agent_times;
  in.workload = workload;
  return in;
}

Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return Unavailable(path.parent_path().string() + ": " + ec.message());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return Unavailable(path.string() + ": cannot write");
  return Status::Ok();
}

Status WriteOutputs(const std::filesystem::path& dir, const sim::SimulationResult& result) {
  GANTRY_RETURN_IF_ERROR(WriteFile(dir / "jobs.csv", sim::JobsCsv(result)));
  return WriteFile(dir / "summary.json", sim::SummaryJson(sim::Summarize(result)));
}

std::string Describe(const std::vector<std::pair<std::string, std::string>>& settings) {
  std::string out;
  for (const auto& [key, value] : settings) out += (out.empty() ? "" : " ") + key + "=" + value;
  return out.empty() ? "as specified" : out;
}

// One run, timed; prints its summary and its speed.
Result<sim::SimulationResult> RunOnce(const sim::SimulationInput& in, const std::string& name,
                                      std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  GANTRY_ASSIGN_OR_RETURN(sim::SimulationResult result, sim::Simulate(in));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[256];
  std::snprintf(line, sizeof line,
                "%s: simulated %.1f days in %.2f s (%.0f times real time), %llu passes\n",
                name.c_str(), static_cast<double>(result.end) / 86400, wall,
                wall > 0 ? static_cast<double>(result.end) / wall : 0.0,
                static_cast<unsigned long long>(result.cycles));
  out << line << sim::SummaryText(sim::Summarize(result));
  return result;
}

Status Run(const Options& o, std::ostream& out) {
  GANTRY_ASSIGN_OR_RETURN(const std::string spec_text, sys::ReadText(o.spec_path));
  spec::CheckedSpec checked = spec::CheckSpecText(spec_text);
  if (!checked.ok()) {
    return InvalidArgument(o.spec_path + " is not a valid cluster spec:\n" +
                           checked.diagnostics.ToStatus().message());
  }
  GANTRY_ASSIGN_OR_RETURN(const spec::EffectiveConfig effective,
                          spec::BuildEffectiveConfig(*checked.spec));
  std::optional<v1::AccountingChange> accounting;
  sim::Workload workload;
  if (!o.state_dir.empty()) {
    GANTRY_ASSIGN_OR_RETURN(sim::History history, LoadHistory(o.state_dir));
    // Unchanged, the replay runs its cycles where the cluster ran them (its pass log); a
    // what-if (--set, --compare) runs the simulator's own on both sides, like with like.
    const bool as_it_ran = o.set.empty() && o.compare.empty();
    workload = sim::WorkloadFromHistory(history.ended,
                                        as_it_ran ? history.passes : std::vector<v1::PassMark>());
    accounting = std::move(history.accounting);
  } else {
    GANTRY_ASSIGN_OR_RETURN(workload, LoadWorkload(o));
  }
  out << o.trace_path << ": " << workload.jobs.size() << " jobs";
  if (workload.never_ran > 0) out << " (" << workload.never_ran << " that never ran left out)";
  if (!workload.passes.empty()) {
    out << "; its " << workload.passes.size() << " recorded scheduling cycles replayed as they ran";
    const auto gave_way = std::count_if(workload.passes.begin(), workload.passes.end(),
                                        [](const v1::PassMark& m) { return m.gave_way(); });
    if (gave_way > 0) {
      out << " (" << gave_way
          << " of them gave way to requests midway: the replay, which sees those requests only "
             "after the cycle, may decide otherwise there)";
    }
  }
  out << "\n";
  GANTRY_ASSIGN_OR_RETURN(sim::SimulationInput in, InputFor(effective, o.set, o, workload));
  in.accounting = accounting;
  const std::string name = Describe(o.set);
  GANTRY_ASSIGN_OR_RETURN(const sim::SimulationResult result, RunOnce(in, name, out));
  if (!o.out_dir.empty()) GANTRY_RETURN_IF_ERROR(WriteOutputs(o.out_dir, result));
  if (!o.report_dir.empty()) {
    GANTRY_RETURN_IF_ERROR(WriteFile(std::filesystem::path(o.report_dir) / "index.html",
                                     sim::HtmlReport(o.trace_path + ", " + name, result)));
  }
  if (o.compare.empty()) return Status::Ok();
  std::vector<std::pair<std::string, std::string>> other = o.set;
  for (const auto& [key, value] : o.compare) {
    std::erase_if(other, [&key](const auto& kv) { return kv.first == key; });
    other.emplace_back(key, value);
  }
  GANTRY_ASSIGN_OR_RETURN(sim::SimulationInput in_b, InputFor(effective, other, o, workload));
  in_b.accounting = accounting;
  const std::string name_b = Describe(o.compare);
  GANTRY_ASSIGN_OR_RETURN(const sim::SimulationResult b, RunOnce(in_b, name_b, out));
  out << "\n" << sim::CompareText(name, result, name_b, b);
  if (!o.out_dir.empty()) {
    GANTRY_RETURN_IF_ERROR(WriteOutputs(std::filesystem::path(o.out_dir) / "compare", b));
  }
  if (!o.report_dir.empty()) {
    GANTRY_RETURN_IF_ERROR(WriteFile(std::filesystem::path(o.report_dir) / "compare.html",
                                     sim::HtmlReport(o.trace_path + ", " + name_b, b)));
  }
  return Status::Ok();
}

}  // namespace

int RunSimCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    out << kSimUsage;
    return 0;
  }
  Result<Options> options = ParseOptions(args);
  if (!options.ok()) {
    err << "gantry sim: " << options.status().message() << "\n" << kSimUsage;
    return 2;
  }
  if (Status ran = Run(*options, out); !ran.ok()) {
    err << "gantry sim: " << ran.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace gantry::cli
