#include "sim/scenario.h"

#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/cycle.h"
#include "model/job_state.h"
#include "sched/preempt.h"
#include "sched/priority.h"
#include "sched/scheduler.h"
#include "sim/engine.h"
#include "state/accounting.h"
#include "state/cluster_state.h"
#include "state/testing.h"
#include "text/array_spec.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/hostlist.h"

namespace gantry::sim {
namespace {

using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders
using sched::PreemptOptions;
using sched::PriorityConfig;
using sched::SchedulerOptions;

// One line's words: the leading ones, then key=value options (a bare word is key="").
struct Line {
  int number = 0;
  std::vector<std::string> words;
  std::map<std::string, std::string> options;
};

Status LineError(const Line& line, const std::string& what) {
  return InvalidArgument("line " + std::to_string(line.number) + ": " + what);
}

Result<uint64_t> Number(const Line& line, const std::string& key, uint64_t fallback) {
  const auto it = line.options.find(key);
  if (it == line.options.end()) return fallback;
  uint64_t n = 0;
  const std::string& v = it->second;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size()) {
    return LineError(line, key + "=" + v + ": not a whole number");
  }
  return n;
}

std::string Option(const Line& line, const std::string& key, const std::string& fallback = "") {
  const auto it = line.options.find(key);
  return it == line.options.end() ? fallback : it->second;
}

// A scenario's clock starts on the hour (2026-12-02T12:00:00Z), so backfill plans, which lie on
// bf_resolution's grid of absolute times, print as round offsets.
constexpr int64_t kStart = 1'796'212'800;

std::string Offset(int64_t t) { return "+" + std::to_string(t - kStart) + "s"; }

// "preempted by job N" (a JobEnded's end cause): N.
std::string PreemptorOf(const std::string& cause) {
  const size_t space = cause.rfind(' ');
  return space == std::string::npos ? "?" : cause.substr(space + 1);
}

class Scenario : public EngineObserver {
 public:
  Scenario() { state::ApplyAccountingChange(state::DefaultAccounting(), &s_.accounting); }

  Result<std::string> Run(std::string_view text) {
    int number = 0;
    for (std::string_view raw : text::Split(text, '\n')) {
      ++number;
      const size_t hash = raw.find('#');
      if (hash != std::string_view::npos) raw = raw.substr(0, hash);
      Line line;
      line.number = number;
      for (std::string_view word : text::Split(raw, ' ')) {
        if (word.empty()) continue;
        const size_t eq = word.find('=');
        if (eq != std::string_view::npos) {
          line.options[std::string(word.substr(0, eq))] = std::string(word.substr(eq + 1));
        } else if (!line.options.empty() || (line.words.size() >= 2 && line.words[0] == "submit")) {
          line.options[std::string(word)] = "";
        } else {
          line.words.emplace_back(word);
        }
      }
      if (line.words.empty()) continue;
      GANTRY_RETURN_IF_ERROR(Command(line));
    }
    return out_;
  }

 private:
  Status Command(const Line& line) {
    const std::string& verb = line.words[0];
    if (verb == "node") return AddNodes(line);
    if (verb == "partition") return AddPartition(line);
    if (verb == "scheduler") return SetScheduler(line);
    if (verb == "priority") return SetPriority(line);
    if (verb == "account" || verb == "user") return AddAssociation(line);
    if (verb != "submit" && verb != "advance" && verb != "end" && verb != "cycle") {
      return LineError(line, "unknown command '" + verb +
                                 "' (node, partition, scheduler, priority, account, user, "
                                 "submit, advance, end, cycle)");
    }
    GANTRY_RETURN_IF_ERROR(SetUp(line));
    if (verb == "submit") return Submit(line);
    if (verb == "advance") {
      if (line.words.size() != 2) return LineError(line, "advance takes a number of seconds");
      Line n = line;
      n.options["seconds"] = line.words[1];
      GANTRY_ASSIGN_OR_RETURN(uint64_t seconds, Number(n, "seconds", 0));
      now_ += static_cast<int64_t>(seconds);
      return Status::Ok();
    }
    if (verb == "end") return End(line);
    return Cycle();
  }

  Status AddNodes(const Line& line) {
    if (set_up_) return LineError(line, "nodes come before the first job or event");
    if (line.words.size() != 2) return LineError(line, "node takes one hostlist");
    Result<std::vector<std::string>> names = text::ExpandHostlist(line.words[1]);
    if (!names.ok()) return LineError(line, names.status().message());
    GANTRY_ASSIGN_OR_RETURN(uint64_t cpus, Number(line, "cpus", 64));
    GANTRY_ASSIGN_OR_RETURN(uint64_t mem, Number(line, "mem", 256000));
    for (const std::string& name : *names) {
      nodes_.push_back(MakeNode(name, static_cast<uint32_t>(cpus), mem, Option(line, "gres"),
                                Option(line, "features")));
    }
    return Status::Ok();
  }

  Status AddPartition(const Line& line) {
    if (set_up_) return LineError(line, "partitions come before the first job or event");
    if (line.words.size() != 2) return LineError(line, "partition takes one name");
    Result<std::vector<std::string>> names = text::ExpandHostlist(Option(line, "nodes"));
    if (!names.ok() || names->empty()) return LineError(line, "nodes=HOSTLIST is required");
    v1::Partition p = MakePartition(line.words[1], *names, line.options.contains("default"));
    GANTRY_ASSIGN_OR_RETURN(uint64_t tier, Number(line, "tier", 1));
    GANTRY_ASSIGN_OR_RETURN(uint64_t max_time, Number(line, "maxtime", state::kUnlimited));
    p.set_priority_tier(static_cast<uint32_t>(tier));
    p.set_max_time_min(static_cast<uint32_t>(max_time));
    p.set_oversubscribe(text::AsciiToUpper(Option(line, "oversubscribe", "NO")));
    GANTRY_ASSIGN_OR_RETURN(uint64_t job_factor, Number(line, "jobfactor", 1));
    p.set_priority_job_factor(static_cast<uint32_t>(job_factor));
    p.set_tres_billing_weights(Option(line, "billing"));
    p.set_preempt_mode(text::AsciiToUpper(Option(line, "preemptmode")));
    GANTRY_ASSIGN_OR_RETURN(uint64_t grace, Number(line, "gracetime", 0));
    p.set_grace_time_sec(static_cast<uint32_t>(grace));
    partitions_.push_back(std::move(p));
    return Status::Ok();
  }

  Status SetScheduler(const Line& line) {
    Result<SchedulerOptions> o =
        SchedulerOptions::FromConfig(Option(line, "type"), Option(line, "params"));
    if (!o.ok()) return LineError(line, o.status().message());
    options_ = *o;
    options_.whole_nodes = Option(line, "select") == "select/linear";
    Result<PreemptOptions> preempt =
        PreemptOptions::FromConfig(Option(line, "PreemptType"), Option(line, "PreemptMode"),
                                   Option(line, "PreemptExemptTime"));
    if (!preempt.ok()) return LineError(line, preempt.status().message());
    options_.preempt = *preempt;
    GANTRY_ASSIGN_OR_RETURN(uint64_t seconds, Number(line, "SchedulerTimeSlice", 30));
    options_.time_slice_sec = static_cast<int64_t>(seconds);
    return Status::Ok();
  }

  // priority KEY=VALUE...: slurm.conf's priority keys (PriorityType, PriorityWeight*,
  // PriorityFlags, PriorityDecayHalfLife...).
  Status SetPriority(const Line& line) {
    if (line.words.size() != 1) return LineError(line, "priority takes KEY=VALUE options only");
    Result<PriorityConfig> c =
        PriorityConfig::FromKeys([&line](std::string_view key) -> std::optional<std::string> {
          const auto it = line.options.find(std::string(key));
          if (it == line.options.end()) return std::nullopt;
          return it->second;
        });
    if (!c.ok()) return LineError(line, c.status().message());
    priority_ = *c;
    s_.billing_max_tres = priority_.max_tres;
    if (const std::string half_life = Option(line, "PriorityDecayHalfLife"); !half_life.empty()) {
      Result<int64_t> seconds = text::ParseDurationSeconds(half_life);
      if (!seconds.ok()) return LineError(line, "PriorityDecayHalfLife=" + half_life);
      s_.accounting.usage_half_life_sec = *seconds;
    }
    return Status::Ok();
  }

  // account NAME [parent=root] [shares=1] [priority=N]; user NAME account=A [shares=1]
  // [priority=N]: sacctmgr's associations.
  Status AddAssociation(const Line& line) {
    if (line.words.size() != 2) return LineError(line, line.words[0] + " takes one name");
    const bool user = line.words[0] == "user";
    const std::string account = user ? Option(line, "account") : line.words[1];
    if (account.empty()) return LineError(line, "user needs account=NAME");
    GANTRY_ASSIGN_OR_RETURN(uint64_t shares, Number(line, "shares", 1));
    v1::AccountingChange change;
    if (!user) {
      v1::Account* a = change.add_accounts();
      a->set_name(account);
      a->set_parent(Option(line, "parent", "root"));
    }
    if (user && !s_.accounting.users.contains(line.words[1])) {
      v1::AccountingUser* u = change.add_users();
      u->set_name(line.words[1]);
      u->set_default_account(account);
    }
    v1::Association* a = change.add_associations();
    a->set_id(static_cast<uint32_t>(s_.accounting.associations.size() + 1));
    a->set_account(account);
    if (user) a->set_user(line.words[1]);
    a->set_shares(static_cast<uint32_t>(shares));
    a->add_qos("normal");
    if (line.options.contains("priority")) {
      GANTRY_ASSIGN_OR_RETURN(uint64_t priority, Number(line, "priority", 0));
      a->set_priority(static_cast<uint32_t>(priority));
    }
    state::AccountingDb db = s_.accounting;
    state::ApplyAccountingChange(change, &db);
    if (Status ok = state::CheckAccounting(db); !ok.ok()) return LineError(line, ok.message());
    s_.accounting = std::move(db);
    return Status::Ok();
  }

  Status SetUp(const Line& line) {
    if (set_up_) return Status::Ok();
    if (nodes_.empty() || partitions_.empty()) {
      return LineError(line, "a scenario needs node and partition lines first");
    }
    core::Config* config = engine_.mutable_config();
    config->scheduler = options_;
    config->priority = priority_;
    GANTRY_RETURN_IF_ERROR(engine_.Apply(ConfigEvent(nodes_, partitions_, now_)));
    for (const v1::Node& n : nodes_) {
      GANTRY_RETURN_IF_ERROR(engine_.Apply(RegisterEvent(n.name(), now_)));
    }
    engine_.set_observer(this);
    set_up_ = true;
    return Status::Ok();
  }

  Status Submit(const Line& line) {
    if (line.words.size() != 2) return LineError(line, "submit takes a job id");
    Line id = line;
    id.options["id"] = line.words[1];
    GANTRY_ASSIGN_OR_RETURN(uint64_t job_id, Number(id, "id", 0));
    GANTRY_ASSIGN_OR_RETURN(uint64_t nodes, Number(line, "nodes", 1));
    GANTRY_ASSIGN_OR_RETURN(uint64_t tasks, Number(line, "tasks", 0));
    GANTRY_ASSIGN_OR_RETURN(uint64_t cpt, Number(line, "cpus_per_task", 0));
    GANTRY_ASSIGN_OR_RETURN(uint64_t mem_per_cpu, Number(line, "mem_per_cpu", 0));
    GANTRY_ASSIGN_OR_RETURN(uint64_t mem, Number(line, "mem", 0));
    GANTRY_ASSIGN_OR_RETURN(uint64_t time, Number(line, "time", 60));
    GANTRY_ASSIGN_OR_RETURN(uint64_t priority, Number(line, "priority", state::kBasePriority));
    GANTRY_ASSIGN_OR_RETURN(uint64_t nice, Number(line, "nice", 0));
    // user=UID or user=NAME (then a uid of its own).
    const std::string user_option = Option(line, "user");
    const bool named = !user_option.empty() && !text::IsAsciiDigit(user_option[0]);
    uint64_t user = 1001;
    if (named) {
      user = 2000 + uids_.try_emplace(user_option, uids_.size()).first->second;
    } else {
      GANTRY_ASSIGN_OR_RETURN(user, Number(line, "user", 1001));
    }
    const std::string partition =
        Option(line, "partition", partitions_.empty() ? "" : partitions_.front().name());
    v1::Job job =
        PendingJob(static_cast<uint32_t>(job_id), partition, static_cast<uint32_t>(nodes), now_);
    v1::JobRequest& r = *job.mutable_request();
    r.set_num_tasks(static_cast<uint32_t>(tasks));
    r.set_cpus_per_task(static_cast<uint32_t>(cpt));
    r.set_mem_per_cpu_mb(mem_per_cpu);
    r.set_mem_per_node_mb(mem);
    r.set_gres(Option(line, "gres"));
    r.set_exclusive(line.options.contains("exclusive"));
    r.set_dependency(Option(line, "dependency"));
    r.set_req_nodes(Option(line, "nodelist"));
    job.set_user_id(static_cast<uint32_t>(user));
    if (named) job.set_user_name(user_option);
    r.set_account(Option(line, "account", "root"));
    r.set_qos("normal");
    r.set_nice(static_cast<int32_t>(nice));
    job.set_time_limit_min(static_cast<uint32_t>(time));
    job.set_priority(static_cast<uint32_t>(priority));
    job.set_requeue(Option(line, "requeue", "yes") != "no");
    if (line.options.contains("kill_on_invalid_dep")) r.set_kill_on_invalid_dep(1);
    if (const std::string array = Option(line, "array"); !array.empty()) {
      Result<text::ArraySpec> spec = text::ParseArraySpec(array, 1001);
      if (!spec.ok()) return LineError(line, "array=" + array + ": " + spec.status().message());
      job.set_array_job_id(job.job_id());
      for (uint32_t task : spec->tasks) job.add_array_pending_tasks(task);
      job.set_array_task_throttle(spec->throttle);
    }
    Status applied = engine_.Apply(SubmitEvent(job, now_));
    return applied.ok() ? applied : LineError(line, applied.message());
  }

  Status End(const Line& line) {
    if (line.words.size() != 2) return LineError(line, "end takes a job id");
    Line id = line;
    id.options["id"] = line.words[1];
    GANTRY_ASSIGN_OR_RETURN(uint64_t job_id, Number(id, "id", 0));
    const v1::Job* job = s_.FindJob(static_cast<uint32_t>(job_id));
    if (job == nullptr) return LineError(line, "no job " + line.words[1]);
    // The batch script's exit: 0, or 1 for FAILED.
    const std::string state_name = Option(line, "state", "COMPLETED");
    if (state_name != "COMPLETED" && state_name != "FAILED") {
      return LineError(line, "state=" + state_name + ": a batch script ends COMPLETED or FAILED");
    }
    return engine_.EndBatch(job->job_id(), state_name == "FAILED" ? 1 << 8 : 0, now_);
  }

  // EngineObserver: a line for each event the cycle's decisions made.
  void Applied(std::optional<core::Stage> stage, const v1::Event& e,
               const state::ClusterState&) override {
    if (!stage) return;  // agents' reports and the scenario's own events
    const bool scheduled = *stage == core::Stage::kSchedule;
    if (e.has_job_suspended()) {
      out_ += std::string(scheduled ? "  preempt " : "  turn over ") +
              std::to_string(e.job_suspended().job_id()) + " for " +
              std::to_string(e.job_suspended().preemptor()) + (scheduled ? " suspend\n" : "\n");
    } else if (e.has_job_resumed()) {
      out_ += "  resume " + std::to_string(e.job_resumed().job_id()) + "\n";
    } else if (e.has_job_requeued()) {
      const v1::JobRequeued& r = e.job_requeued();
      out_ += "  " + std::string(r.preempted() ? "preempt " : "requeue ") +
              std::to_string(r.job_id()) +
              (r.preempted() ? " for " + std::to_string(r.preemptor()) + " requeue" : "") + "\n";
    } else if (e.has_job_ended()) {
      const v1::JobEnded& end = e.job_ended();
      const auto state = static_cast<model::JobBaseState>(end.state());
      if (state == model::JobBaseState::kPreempted) {
        out_ += "  preempt " + std::to_string(end.job_id()) + " for " +
                PreemptorOf(end.end_cause()) + " cancel\n";
      } else {
        out_ += "  end " + std::to_string(end.job_id()) + " " +
                std::string(model::JobBaseStateName(state)) +
                (end.reason().empty() ? "" : " " + end.reason()) + "\n";
      }
    } else if (e.has_job_array_split()) {
      const v1::JobArraySplit& split = e.job_array_split();
      out_ += "  split " + std::to_string(split.job_id()) + "_" + std::to_string(split.task_id()) +
              " as " + std::to_string(split.new_job_id()) + "\n";
    } else if (e.has_job_started()) {
      const v1::JobStarted& start = e.job_started();
      std::string nodes;
      for (const std::string& n : start.nodes()) nodes += (nodes.empty() ? "" : ",") + n;
      out_ += "  start " + std::to_string(start.job_id()) + " on " + nodes +
              " cpus=" + std::to_string(start.num_cpus()) +
              " mem=" + std::to_string(start.alloc_mem_mb()) + "\n";
    }
  }
  void Log(UnixTime, const std::string&) override {}

  Status Cycle() {
    out_ += "cycle at " + Offset(now_) + "\n";
    GANTRY_RETURN_IF_ERROR(engine_.Cycle(now_));
    for (const auto& [id, job] : s_.jobs) {
      if (state::JobStateOf(job).base == model::JobBaseState::kSuspended) {
        out_ += "  suspended " + std::to_string(id) + "\n";
      }
    }
    for (const state::PendingKey& key : s_.pending) {
      const v1::Job* job = s_.FindJob(key.job_id);
      if (job == nullptr || !state::IsPendingJob(*job)) continue;
      out_ += "  wait " + std::to_string(key.job_id) + " prio=" + std::to_string(key.priority) +
              " " + job->reason();
      if (job->expected_start_time() != 0)
        out_ += " expected " + Offset(job->expected_start_time());
      out_ += "\n";
    }
    return Status::Ok();
  }

  // Agents answer at once; a batch script runs until `end` (or its time limit).
  Engine engine_{core::Config(), AgentTimes(),
                 [](const v1::Job&) -> std::optional<Engine::Timed> { return std::nullopt; }};
  state::ClusterState& s_ = *engine_.mutable_state();
  std::vector<v1::Node> nodes_;
  std::vector<v1::Partition> partitions_;
  SchedulerOptions options_;
  PriorityConfig priority_;
  std::map<std::string, uint32_t> uids_;  // user=NAME: the order names came in
  bool set_up_ = false;
  int64_t now_ = kStart;
  std::string out_;
};

}  // namespace

Result<std::string> RunScenario(std::string_view text) { return Scenario().Run(text); }

}  // namespace gantry::sim
