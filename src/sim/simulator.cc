#include "sim/simulator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "core/submit.h"
#include "model/job_state.h"
#include "state/accounting.h"
#include "state/cluster_state.h"
#include "text/dependency.h"
#include "text/hostlist.h"

namespace gantry::sim {
namespace {

constexpr int64_t kPurgeEverySec = 60;

// The input's configuration, the controller started at the workload's start.
core::Config ConfigOf(const SimulationInput& in) {
  core::Config config = in.config;
  config.boot_time = EpochOf(in.workload);
  return config;
}

class Run final : public EngineObserver {
 public:
  explicit Run(const SimulationInput& in)
      : in_(in),
        epoch_(EpochOf(in.workload)),
        engine_(
            ConfigOf(in), in.agent_times, [this](const v1::Job& job) { return RunTimeOf(job); },
            [this](const v1::Job& job, const std::string& node, UnixTime now) {
              return EpilogOf(job, node, now);
            }) {}

  Result<SimulationResult> Go() {
    GANTRY_RETURN_IF_ERROR(SetUp());
    int64_t t = 0;
    int64_t last_purge = 0;
    const bool replay = !in_.workload.passes.empty();
    for (;;) {
      std::optional<int64_t> next;
      auto consider = [&next](int64_t at) { next = next ? std::min(*next, at) : at; };
      if (!submits_.empty()) consider(submits_.begin()->first.first);
      if (const std::optional<UnixTime> report = engine_.NextReport()) {
        consider(*report - epoch_);
      }
      if (replay) {
        if (next_pass_ < in_.workload.passes.size()) {
          consider(in_.workload.passes[next_pass_].time());
        }
      } else if (const std::optional<UnixTime> due = engine_.NextDue(epoch_ + t)) {
        consider(*due - epoch_);  // the core's timers (core/timers.h)
      }
      if (!next) break;
      t = std::max(t, *next);
      if (replay) {
        GANTRY_RETURN_IF_ERROR(ReplaySecond(t));
      } else {
        // As gantryd passes after each submission (its kick), each one is followed by a pass.
        do {
          SubmitNext(t);
          GANTRY_RETURN_IF_ERROR(engine_.Cycle(epoch_ + t));
          ++result_.cycles;
        } while (!submits_.empty() && submits_.begin()->first.first <= t);
      }
      if (t - last_purge >= kPurgeEverySec) {
        state::PurgeFinishedJobs(engine_.mutable_state(),
                                 epoch_ + t - int64_t{in_.min_job_age_sec});
        last_purge = t;
      }
      Record(t);
    }
    for (size_t i = 0; i < in_.workload.jobs.size(); ++i) {
      if (!submitted_[i]) {
        JobOutcome never = OutcomeBase(i);
        never.state = "NOT_SUBMITTED";
        AddOutcome(i, never);
      }
    }
    for (JobOutcome& job : result_.jobs) {
      if (job.state.empty()) job.state = job.start < 0 ? "PENDING" : "RUNNING";
    }
    // Workload order; an array's tasks in the order they were made.
    std::vector<size_t> order(result_.jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
      return workload_index_[a] < workload_index_[b];
    });
    std::vector<JobOutcome> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(result_.jobs[i]));
    result_.jobs = std::move(sorted);
    result_.account_targets = AccountTargets(engine_.state().accounting);
    return std::move(result_);
  }

 private:
  // ---- EngineObserver --------------------------------------------------------------------

  void Applied(std::optional<core::Stage>, const v1::Event& e,
               const state::ClusterState& /*state*/) override {
    const int64_t t = e.time() - epoch_;
    if (e.has_job_array_split()) {
      const v1::JobArraySplit& split = e.job_array_split();
      const auto task = array_tasks_.find({split.job_id(), split.task_id()});
      if (task != array_tasks_.end()) outcome_of_job_[split.new_job_id()] = task->second;
    } else if (e.has_job_started()) {
      const v1::JobStarted& s = e.job_started();
      if (JobOutcome* o = OutcomeOf(s.job_id())) {
        o->start = t;
        o->end = -1;
        o->nodes = static_cast<uint32_t>(s.nodes_size());
        o->cpus = s.num_cpus();
        o->node_list = text::CompressHostlist({s.nodes().begin(), s.nodes().end()});
      }
      --pending_;
      ++running_;
      busy_cpus_ += s.num_cpus();
      cpus_of_[s.job_id()] = s.num_cpus();
    } else if (e.has_job_suspended()) {
      if (JobOutcome* o = OutcomeOf(e.job_suspended().job_id());
          o != nullptr && e.job_suspended().preemptor() != 0) {
        ++o->preemptions;
      }
      if (suspended_.insert(e.job_suspended().job_id()).second) {
        busy_cpus_ -= cpus_of_[e.job_suspended().job_id()];
      }
    } else if (e.has_job_resumed()) {
      const uint32_t id = e.job_resumed().job_id();
      if (suspended_.erase(id) > 0) busy_cpus_ += cpus_of_[id];
    } else if (e.has_job_requeued()) {
      const v1::JobRequeued& r = e.job_requeued();
      if (JobOutcome* o = OutcomeOf(r.job_id()); o != nullptr && r.preempted()) ++o->preemptions;
      LeaveRunning(r.job_id());
      ++pending_;
    } else if (e.has_job_ended()) {
      const v1::JobEnded& end = e.job_ended();
      if (!LeaveRunning(end.job_id())) --pending_;
      JobOutcome* o = OutcomeOf(end.job_id());
      if (o == nullptr) return;
      o->end = t;
      o->state =
          std::string(model::JobBaseStateName(static_cast<model::JobBaseState>(end.state())));
      if (end.state() == static_cast<uint32_t>(model::JobBaseState::kPreempted)) ++o->preemptions;
      result_.end = std::max(result_.end, t);
      const size_t w = workload_index_[o - result_.jobs.data()];
      if (--unfinished_tasks_[w] == 0) {
        for (size_t dependent : dependents_[w]) {
          const WorkloadJob& d = in_.workload.jobs[dependent];
          submits_.emplace(std::pair(t + d.after_delay_s, next_order_++), dependent);
        }
      }
    }
  }

  void Log(UnixTime, const std::string&) override {}

  // ---- set-up and submissions ------------------------------------------------------------

  Status SetUp() {
    engine_.set_observer(this);
    state::ClusterState* s = engine_.mutable_state();
    core::ConfigureState(in_.config, s);
    v1::Event config;
    config.set_time(epoch_);
    *config.mutable_config_loaded() = in_.cluster;
    GANTRY_RETURN_IF_ERROR(engine_.Apply(config));
    for (const v1::Node& node : s->nodes) {
      v1::Event registered;
      registered.set_time(epoch_);
      v1::NodeRegistered& r = *registered.mutable_node_registered();
      r.set_node(node.name());
      r.set_address("sim:" + node.name());
      r.set_hostname(node.name());
      r.set_boot_time(epoch_);
      GANTRY_RETURN_IF_ERROR(engine_.Apply(registered));
      result_.total_cpus += node.cpus();
    }
    for (const v1::AccountingChange& change : {state::DefaultAccounting(), Accounting()}) {
      v1::Event accounting;
      accounting.set_time(epoch_);
      *accounting.mutable_accounting_changed()->mutable_change() = change;
      GANTRY_RETURN_IF_ERROR(engine_.Apply(accounting));
    }
    if (Status ok = state::CheckAccounting(s->accounting); !ok.ok()) {
      return InvalidArgument("the accounting does not hold together: " + ok.message());
    }
    const std::vector<WorkloadJob>& jobs = in_.workload.jobs;
    dependents_.resize(jobs.size());
    submitted_.assign(jobs.size(), false);
    unfinished_tasks_.assign(jobs.size(), 1);
    std::map<uint64_t, size_t> by_id;
    for (size_t i = 0; i < jobs.size(); ++i) {
      by_id.emplace(jobs[i].id, i);
      real_ids_.emplace(static_cast<uint32_t>(jobs[i].id), std::pair(i, std::optional<uint32_t>()));
      // (The last task keeps its array's id: that id still names the whole array.)
      for (const auto& [task, id] : jobs[i].task_job_ids) real_ids_.emplace(id, std::pair(i, task));
    }
    std::set<std::string> users;
    for (const WorkloadJob& job : jobs) users.insert(job.user);
    uint32_t uid = 10000;
    for (const std::string& user : users) uids_[user] = uid++;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const auto after = jobs[i].after ? by_id.find(*jobs[i].after) : by_id.end();
      if (after != by_id.end()) {
        dependents_[after->second].push_back(i);
      } else {
        // A replay orders a second's submissions as they came (Job.submit_order).
        submits_.emplace(
            std::pair(jobs[i].submit_s,
                      jobs[i].submit_order != 0 ? jobs[i].submit_order : next_order_++),
            i);
      }
    }
    return Status::Ok();
  }

  // Every (user, account) pair of the workload under root, unless the input names its own.
  v1::AccountingChange Accounting() const {
    if (in_.accounting) return *in_.accounting;
    v1::AccountingChange change;
    std::set<std::string> accounts;
    std::set<std::pair<std::string, std::string>> pairs;
    std::map<std::string, std::string> default_account;
    for (const WorkloadJob& job : in_.workload.jobs) {
      const std::string account = job.account.empty() ? "root" : job.account;
      if (account != "root") accounts.insert(account);
      pairs.emplace(job.user, account);
      default_account.emplace(job.user, account);
    }
    uint32_t id = 100;  // above DefaultAccounting's
    for (const std::string& name : accounts) {
      v1::Account* a = change.add_accounts();
      a->set_name(name);
      a->set_parent("root");
      v1::Association* assoc = change.add_associations();
      assoc->set_id(id++);
      assoc->set_account(name);
      assoc->set_shares(1);
      assoc->add_qos("normal");
    }
    for (const auto& [user, account] : default_account) {
      if (user == "root") continue;
      v1::AccountingUser* u = change.add_users();
      u->set_name(user);
      u->set_default_account(account);
    }
    for (const auto& [user, account] : pairs) {
      if (user == "root") continue;
      v1::Association* assoc = change.add_associations();
      assoc->set_id(id++);
      assoc->set_account(account);
      assoc->set_user(user);
      assoc->set_shares(1);
      assoc->add_qos("normal");
    }
    return change;
  }

  // Submits the next workload job due by `t`, if any.
  void SubmitNext(int64_t t) {
    if (submits_.empty() || submits_.begin()->first.first > t) return;
    const size_t index = submits_.begin()->second;
    submits_.erase(submits_.begin());
    Submit(index, t);
  }

  // A replayed history's second `t`: its submissions and its recorded cycles in the order the
  // real controller met them, each cycle after the reports it had seen (v1::PassMark).
  Status ReplaySecond(int64_t t) {
    const UnixTime now = epoch_ + t;
    const std::vector<v1::PassMark>& passes = in_.workload.passes;
    for (;;) {
      const bool submit = !submits_.empty() && submits_.begin()->first.first <= t;
      const bool pass = next_pass_ < passes.size() && passes[next_pass_].time() <= t;
      if (!submit && !pass) break;
      // A submission the cycle had seen comes before it (its order is at most the cycle's).
      if (submit && (!pass || submits_.begin()->first.second <= passes[next_pass_].seen())) {
        const uint64_t order = submits_.begin()->first.second;
        GANTRY_RETURN_IF_ERROR(engine_.DeliverThrough(now, order == 0 ? 0 : order - 1));
        SubmitNext(t);
        continue;
      }
      const v1::PassMark& mark = passes[next_pass_++];
      GANTRY_RETURN_IF_ERROR(engine_.DeliverThrough(now, mark.seen()));
      GANTRY_RETURN_IF_ERROR(engine_.ReplayCycle(now, mark));
      ++result_.cycles;
    }
    return engine_.Deliver(now);
  }

  void Submit(size_t index, int64_t t) {
    const WorkloadJob& w = in_.workload.jobs[index];
    submitted_[index] = true;
    v1::JobRequest r;
    if (w.request) {  // a cluster's own history: the request as it was accepted
      r = *w.request;
      if (r.begin_time() > 0) r.set_begin_time(epoch_ + r.begin_time());
      if (!r.dependency().empty()) r.set_dependency(ReplayDependency(r.dependency()));
    } else {
      r.set_name("trace-" + std::to_string(w.id));
      if (!w.partition.empty()) r.add_partitions(w.partition);
      r.set_min_nodes(w.nodes);
      r.set_num_tasks(std::max(w.cpus, w.nodes));
      r.set_time_limit_min(static_cast<uint32_t>(std::max<int64_t>(1, (w.time_limit_s + 59) / 60)));
      r.set_account(w.account);
      r.set_qos(w.qos);
      r.set_array(w.array);
      r.set_exclusive(w.exclusive);
      r.set_work_dir("/");
    }
    state::Caller caller;
    caller.uid = w.request ? w.uid : uids_.at(w.user);
    caller.is_operator = caller.uid == 0;
    caller.gid = caller.uid;
    caller.user_name = w.user;
    caller.group_name = w.user;
    caller.group_names = {w.user};
    const core::Context ctx{engine_.state(), engine_.config(), memory_unused_, epoch_ + t,
                            (epoch_ + t) * 1000};
    Result<v1::Event> submitted = core::SubmitEvent(ctx, r, caller, in_.admit);
    JobOutcome base = OutcomeBase(index);
    base.submit = t;
    if (!submitted.ok()) {
      base.state = "REFUSED";
      base.refusal = submitted.status().message();
      AddOutcome(index, base);
      --unfinished_tasks_[index];  // never ends: its dependents are never submitted
      return;
    }
    const v1::Job& job = submitted->job_submitted().job();
    workload_of_job_[job.job_id()] = index;
    sim_ids_[index] = job.job_id();
    if (job.partition().size() > 0) base.partition = job.partition();
    if (job.array_pending_tasks_size() > 0) {
      unfinished_tasks_[index] = static_cast<uint32_t>(job.array_pending_tasks_size());
      for (uint32_t task : job.array_pending_tasks()) {
        base.job_id = std::to_string(job.job_id()) + "_" + std::to_string(task);
        const auto run = w.task_run_s.find(task);
        base.run = run != w.task_run_s.end() ? run->second : w.run_s;
        array_tasks_[{job.job_id(), task}] = AddOutcome(index, base);
      }
      pending_ += static_cast<uint32_t>(job.array_pending_tasks_size());
    } else {
      base.job_id = std::to_string(job.job_id());
      outcome_of_job_[job.job_id()] = AddOutcome(index, base);
      ++pending_;
    }
    // Cannot fail: admission checked the job against this state.
    (void)engine_.Apply(*submitted);
  }

  // What the workload says of job `index`.
  JobOutcome OutcomeBase(size_t index) const {
    const WorkloadJob& w = in_.workload.jobs[index];
    JobOutcome base;
    base.trace_id = w.id;
    base.user = w.user;
    base.account = w.account;
    base.partition = w.partition;
    base.run = w.run_s;
    return base;
  }

  size_t AddOutcome(size_t workload_index, const JobOutcome& outcome) {
    result_.jobs.push_back(outcome);
    workload_index_.push_back(workload_index);
    return result_.jobs.size() - 1;
  }

  // ---- what the engine asks and tells ----------------------------------------------------

  std::optional<Engine::Timed> RunTimeOf(const v1::Job& job) const {
    const uint32_t id = job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
    const auto it = workload_of_job_.find(id);
    if (it == workload_of_job_.end()) return std::nullopt;
    const WorkloadJob& w = in_.workload.jobs[it->second];
    // A run that a preemption ended in the history was ended from outside: none of its own end
    // (the replay's own requeues are its preemptions).
    uint32_t preempted = w.preempted_runs;
    if (job.has_array_task_id()) {
      const auto runs = w.task_preempted_runs.find(job.array_task_id());
      preempted = runs == w.task_preempted_runs.end() ? 0 : runs->second;
    }
    if (static_cast<uint32_t>(job.earlier_runs_size()) < preempted) return std::nullopt;
    if (job.has_array_task_id()) {
      const auto task = w.task_run_s.find(job.array_task_id());
      if (task != w.task_run_s.end()) {
        const auto order = w.task_end_order.find(job.array_task_id());
        return Engine::Timed{task->second, order == w.task_end_order.end() ? 0 : order->second};
      }
    }
    return Engine::Timed{w.run_s, w.end_order};
  }

  // A replayed history's epilog on `node` for the job (or array task) told to end at `now`:
  // until the node's first release of it at or after `now`.
  std::optional<Engine::Timed> EpilogOf(const v1::Job& job, const std::string& node,
                                        UnixTime now) const {
    const uint32_t id = job.array_job_id() != 0 ? job.array_job_id() : job.job_id();
    const auto it = workload_of_job_.find(id);
    if (it == workload_of_job_.end()) return std::nullopt;
    const WorkloadJob& w = in_.workload.jobs[it->second];
    const WorkloadJob::Releases* releases = &w.releases;
    if (job.has_array_task_id()) {
      const auto task = w.task_releases.find(job.array_task_id());
      if (task != w.task_releases.end()) releases = &task->second;
    }
    const auto on_node = releases->find(node);
    if (on_node == releases->end()) return std::nullopt;
    const int64_t t = now - epoch_;
    for (const WorkloadJob::Release& release : on_node->second) {
      if (release.at_s >= t) return Engine::Timed{release.at_s - t, release.order};
    }
    return std::nullopt;
  }

  // A replayed request's dependency, its job ids turned into the replay's: a job by its new id,
  // an array task by its array's new id and its task id (its own id comes only as it starts).
  // Ids the history does not hold stay as they are.
  std::string ReplayDependency(const std::string& text) const {
    Result<text::Dependency> dependency = text::ParseDependency(text);
    if (!dependency.ok()) return text;
    std::string out;
    for (text::DependencyTerm term : dependency->terms) {
      if (const auto real = real_ids_.find(term.job_id);
          term.job_id != 0 && real != real_ids_.end()) {
        const auto [index, task] = real->second;
        if (const auto sim = sim_ids_.find(index); sim != sim_ids_.end()) {
          term.job_id = sim->second;
          if (task) term.array_task = std::to_string(*task);
        }
      }
      out += (out.empty() ? "" : dependency->any ? "?" : ",") + text::FormatDependencyTerm(term);
    }
    return out;
  }

  JobOutcome* OutcomeOf(uint32_t job_id) {
    const auto it = outcome_of_job_.find(job_id);
    return it == outcome_of_job_.end() ? nullptr : &result_.jobs[it->second];
  }

  // A running (or suspended) job stops running; false when it was not.
  bool LeaveRunning(uint32_t id) {
    const auto cpus = cpus_of_.find(id);
    if (cpus == cpus_of_.end()) return false;
    if (suspended_.erase(id) == 0) busy_cpus_ -= cpus->second;
    cpus_of_.erase(cpus);
    --running_;
    return true;
  }

  void Record(int64_t t) {
    const Sample now{t, pending_, running_, busy_cpus_};
    std::vector<Sample>& line = result_.timeline;
    if (!line.empty() && line.back().pending == now.pending && line.back().running == now.running &&
        line.back().busy_cpus == now.busy_cpus) {
      return;
    }
    if (!line.empty() && line.back().t == t) {
      line.back() = now;
    } else {
      line.push_back(now);
    }
  }

  static std::vector<std::pair<std::string, double>> AccountTargets(const state::AccountingDb& db) {
    std::map<std::string, uint32_t> shares;  // account -> its own association's shares
    for (const auto& [id, a] : db.associations) {
      if (a.user().empty() && a.partition().empty()) shares[a.account()] = a.shares();
    }
    std::map<std::string, uint64_t> siblings;  // parent -> its children's shares
    for (const auto& [name, account] : db.accounts) {
      if (name != "root") siblings[account.parent()] += shares[name];
    }
    std::vector<std::pair<std::string, double>> out;
    for (const auto& [name, account] : db.accounts) {
      if (name == "root") continue;
      const uint64_t total = siblings[account.parent()];
      out.emplace_back(name, total == 0 ? 0.0 : static_cast<double>(shares[name]) / total);
    }
    return out;
  }

  const SimulationInput& in_;
  const int64_t epoch_;  // the simulated clock at the workload's second 0
  Engine engine_;
  core::Memory memory_unused_;  // admission reads no memory
  SimulationResult result_;
  std::vector<size_t> workload_index_;  // outcome -> its workload job
  // Submissions to make, by (time, order made) -> workload index.
  std::map<std::pair<int64_t, uint64_t>, size_t> submits_;
  uint64_t next_order_ = 0;
  size_t next_pass_ = 0;  // a replay's next recorded cycle (Workload::passes)
  std::vector<std::vector<size_t>> dependents_;  // workload index -> jobs submitted after it
  std::vector<uint32_t> unfinished_tasks_;       // workload index -> its records still to end
  std::vector<bool> submitted_;                  // workload index -> submitted yet
  std::map<std::string, uint32_t> uids_;
  std::map<uint32_t, size_t> workload_of_job_;  // job (an array's id) -> workload index
  std::map<size_t, uint32_t> sim_ids_;          // workload index -> its job (array) id here
  // A history's job ids -> (workload index, array task): what a replayed dependency names.
  std::map<uint32_t, std::pair<size_t, std::optional<uint32_t>>> real_ids_;
  std::map<uint32_t, size_t> outcome_of_job_;                    // job -> outcome
  std::map<std::pair<uint32_t, uint32_t>, size_t> array_tasks_;  // (array, task) -> outcome
  std::map<uint32_t, uint32_t> cpus_of_;  // running or suspended job -> its CPUs
  std::set<uint32_t> suspended_;
  uint32_t pending_ = 0;
  uint32_t running_ = 0;
  uint64_t busy_cpus_ = 0;
};

}  // namespace

Result<SimulationResult> Simulate(const SimulationInput& input) { return Run(input).Go(); }

}  // namespace gantry::sim
