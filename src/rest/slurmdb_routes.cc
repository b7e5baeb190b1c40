// The /slurmdb/v0.0.42/ routes: the job history (sacct), and the accounting database
// (sacctmgr): accounts, associations, QOS, users, TRES. Gantry keeps accounting in gantryd, so
// these are calls to gantryd too.
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "model/job_state.h"
#include "rest/job_json.h"
#include "rest/routes.h"
#include "slurm/sacctmgr_edit.h"
#include "slurm/slurm_errors.h"
#include "slurm_view/job_view.h"
#include "sys/system_time.h"
#include "text/ascii.h"

namespace gantry::rest {
namespace {

// A comma-separated query argument as a set to match against ("" matches everything).
class QueryList {
 public:
  QueryList(const HttpRequest& request, const std::string& name) {
    if (std::optional<std::string> v = request.Query(name); v && !v->empty()) {
      for (std::string_view one : text::Split(*v, ',')) items_.emplace_back(one);
    }
  }
  bool Matches(std::string_view value) const {
    return items_.empty() ||
           std::any_of(items_.begin(), items_.end(), [value](const std::string& item) {
             return text::EqualsIgnoreCase(item, value);
           });
  }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<std::string> items_;
};

std::optional<int64_t> QueryTime(const HttpRequest& request, const std::string& name,
                                 Reply& reply) {
  const std::optional<std::string> v = request.Query(name);
  if (!v || v->empty()) return std::nullopt;
  char* end = nullptr;
  const int64_t t = std::strtoll(v->c_str(), &end, 10);
  if (*end != '\0' || t < 0) {
    reply.Fail(422,
               {name + ": \"" + *v + "\" is not Unix seconds", -1, "Invalid query", "#/" + name});
    return std::nullopt;
  }
  return t;
}

void TresList(JsonOut& out, std::string_view name, const std::string& tres) {
  out.Key(name).BeginArray();
  for (std::string_view item : text::Split(tres, ',')) {
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) continue;
    std::string_view key = item.substr(0, eq);
    std::string type(key);
    std::string sub;
    if (const size_t slash = key.find('/'); slash != std::string_view::npos) {
      type = std::string(key.substr(0, slash));
      sub = std::string(key.substr(slash + 1));
    }
    std::string count(item.substr(eq + 1));
    int64_t multiplier = 1;
    if (!count.empty() && (count.back() == 'M' || count.back() == 'G' || count.back() == 'T')) {
      multiplier = count.back() == 'G' ? 1024 : count.back() == 'T' ? 1024 * 1024 : 1;
      count.pop_back();
    }
    out.BeginObject()
        .Member("type", type)
        .Member("name", sub)
        .MemberInt("count", std::strtoll(count.c_str(), nullptr, 10) * multiplier)
        .EndObject();
  }
  out.EndArray();
}

void WriteDbJob(const v1::Job& job, const std::string& cluster, JsonOut& out) {
  const v1::JobRequest& r = job.request();
  const model::JobState state = slurm::StateOf(job);
  const bool ended = model::IsFinished(state.base);
  const bool started = job.start_time() != 0 && !model::IsPending(state.base);
  const int64_t now = sys::SystemClock::Get().Now();
  out.BeginObject();
  out.Member("account", r.account());
  out.Key("comment")
      .BeginObject()
      .Member("administrator", "")
      .Member("job", r.comment())
      .Member("system", "")
      .EndObject();
  out.MemberInt("allocation_nodes", started ? job.nodes_size() : 0);
  out.Key("array").BeginObject();
  out.MemberInt("job_id", job.array_job_id());
  out.Key("limits").BeginObject().Key("max").BeginObject().Key("running").BeginObject();
  out.MemberInt("tasks", job.array_task_throttle()).EndObject().EndObject().EndObject();
  out.MemberNoVal("task_id", job.has_array_task_id() ? job.array_task_id() : 0,
                  job.has_array_task_id());
  out.Member("task",
             job.array_job_id() != 0 && !job.has_array_task_id() ? slurm::ArrayTaskText(job) : "");
  out.EndObject();
  out.Key("association")
      .BeginObject()
      .Member("account", r.account())
      .Member("cluster", cluster)
      .Member("partition", "")
      .Member("user", slurm::UserLabel(job))
      .MemberInt("id", 0)
      .EndObject();
  out.Member("block", "").Member("cluster", cluster).Member("constraints", r.features());
  out.Member("container", "");
  out.Key("derived_exit_code");
  WriteExitCode(job.derived_exit_status(), ended, out);
  const int64_t end = ended ? job.end_time() : 0;
  const int64_t elapsed = slurm::TimeUsed(job, now);
  out.Key("time").BeginObject();
  out.MemberInt("elapsed", elapsed);
  out.MemberInt("eligible", job.eligible_time());
  out.MemberInt("end", end);
  out.Key("planned").NoValUnset();
  out.MemberInt("start", started ? job.start_time() : 0);
  out.MemberInt("submission", job.submit_time());
  out.MemberInt("suspended", 0);
  const v1::JobUsage& usage = job.batch_usage();
  out.Key("system")
      .BeginObject()
      .MemberInt("seconds", usage.system_cpu_usec() / 1000000)
      .MemberInt("microseconds", usage.system_cpu_usec() % 1000000)
      .EndObject();
  out.Key("limit");
  if (job.time_limit_min() == slurm::kInfiniteMinutes) {
    out.NoValInfinite();
  } else {
    out.NoValNumber(job.time_limit_min());
  }
  const int64_t total = usage.system_cpu_usec() + usage.user_cpu_usec();
  out.Key("total")
      .BeginObject()
      .MemberInt("seconds", total / 1000000)
      .MemberInt("microseconds", total % 1000000)
      .EndObject();
  out.Key("user")
      .BeginObject()
      .MemberInt("seconds", usage.user_cpu_usec() / 1000000)
      .MemberInt("microseconds", usage.user_cpu_usec() % 1000000)
      .EndObject();
  out.EndObject();
  out.Key("exit_code");
  WriteExitCode(job.exit_status(), ended, out);
  out.Member("extra", "").Member("failed_node", "");
  out.Key("flags").BeginArray().EndArray();
  out.Member("group", slurm::GroupLabel(job));
  out.Key("het").BeginObject().MemberInt("job_id", 0).Key("job_offset").NoValUnset().EndObject();
  out.MemberInt("job_id", job.job_id());
  out.Member("name", r.name());
  out.Member("licenses", "");
  out.Key("mcs").BeginObject().Member("label", "").EndObject();
  out.Member("nodes", started ? slurm::NodeList(job) : "None assigned");
  out.Member("partition", job.partition());
  out.MemberBool("hold", job.priority() == 0 && model::IsPending(state.base));
  out.MemberNoVal("priority", job.priority());
  out.Member("qos", r.qos()).Member("qosreq", r.qos());
  out.Key("required")
      .BeginObject()
      .MemberInt("CPUs", slurm::CpuCount(job))
      .MemberNoVal("memory_per_cpu", r.mem_per_cpu_mb(), r.mem_per_cpu_mb() != 0)
      .MemberNoVal("memory_per_node", r.mem_per_node_mb(), r.mem_per_node_mb() != 0)
      .EndObject();
  out.Member("kill_request_user", "");
  out.MemberInt("restart_cnt", job.restarts());
  out.Key("reservation").BeginObject().MemberInt("id", 0).Member("name", "").EndObject();
  out.Member("script", "");
  out.Member("stdin_expanded", slurm::StdinPath(job));
  out.Member("stdout_expanded", slurm::StdoutPath(job));
  out.Member("stderr_expanded", slurm::StderrPath(job));
  out.Member("stdout", r.std_out()).Member("stderr", r.std_err()).Member("stdin", r.std_in());
  out.Key("state").BeginObject();
  out.MemberCsvArray("current", model::JobStateComplete(state));
  out.Member("reason", job.reason().empty() ? "None" : job.reason());
  out.EndObject();
  out.Key("steps").BeginArray();
  for (const v1::JobStep& step : job.steps()) {
    const bool step_ended = step.end_time() != 0;
    out.BeginObject();
    out.Key("time").BeginObject();
    out.MemberInt("elapsed", (step_ended ? step.end_time() : now) - step.start_time());
    out.MemberNoVal("end", step.end_time(), step_ended);
    out.MemberNoVal("start", step.start_time());
    out.MemberInt("suspended", 0);
    const int64_t step_user = step.usage().user_cpu_usec();
    const int64_t step_sys = step.usage().system_cpu_usec();
    out.Key("system")
        .BeginObject()
        .MemberInt("seconds", step_sys / 1000000)
        .MemberInt("microseconds", step_sys % 1000000)
        .EndObject();
    out.Key("total")
        .BeginObject()
        .MemberInt("seconds", (step_user + step_sys) / 1000000)
        .MemberInt("microseconds", (step_user + step_sys) % 1000000)
        .EndObject();
    out.Key("user")
        .BeginObject()
        .MemberInt("seconds", step_user / 1000000)
        .MemberInt("microseconds", step_user % 1000000)
        .EndObject();
    out.EndObject();
    out.Key("exit_code");
    WriteExitCode(step.exit_status(), step_ended, out);
    std::string nodes;
    for (const std::string& n : step.nodes()) nodes += (nodes.empty() ? "" : ",") + n;
    if (nodes.empty()) nodes = step.node();
    out.Key("nodes")
        .BeginObject()
        .MemberInt("count", std::max(1, step.nodes_size()))
        .Member("range", nodes);
    out.MemberCsvArray("list", nodes).EndObject();
    out.Key("tasks").BeginObject().MemberInt("count", step.num_tasks()).EndObject();
    out.Member("pid", "");
    out.Member("kill_request_user", "");
    out.Key("state")
        .BeginArray()
        .String(model::JobBaseStateName(static_cast<model::JobBaseState>(step.state())))
        .EndArray();
    out.Key("step")
        .BeginObject()
        .Member("id", std::to_string(job.job_id()) + "." + std::to_string(step.step_id()))
        .Member("name", step.name())
        .EndObject();
    out.Key("task").BeginObject().Member("distribution", step.distribution()).EndObject();
    out.EndObject();
  }
  out.EndArray();
  out.Member("submit_line", "");
  const std::string tres = slurm::Tres(job);
  out.Key("tres").BeginObject();
  TresList(out, "allocated", started ? tres : "");
  TresList(out, "requested", tres);
  out.EndObject();
  out.Member("used_gres", "");
  out.Member("user", slurm::UserLabel(job));
  out.Key("wckey")
      .BeginObject()
      .Member("wckey", "")
      .Key("flags")
      .BeginArray()
      .EndArray()
      .EndObject();
  out.Member("working_directory", r.work_dir());
  out.EndObject();
}

// sacct's query: the jobs the filters select, written as slurmdb job records.
void DbJobs(Call& call, Reply& reply, std::optional<uint32_t> only) {
  v1::GetJobsRequest request;
  request.set_history(true);
  const int64_t now = sys::SystemClock::Get().Now();
  const std::optional<int64_t> start = QueryTime(call.request, "start_time", reply);
  const std::optional<int64_t> end = QueryTime(call.request, "end_time", reply);
  JsonOut& out = reply.out();
  if (reply.failed()) {
    out.Key("jobs").BeginArray().EndArray();
    return;
  }
  request.set_window_start(start.value_or(0));
  request.set_window_end(end.value_or(now));
  if (only) request.add_job_ids(*only);
  const QueryList users(call.request, "users");
  const QueryList accounts(call.request, "account");
  const QueryList partitions(call.request, "partition");
  const QueryList states(call.request, "state");
  const QueryList names(call.request, "job_name");
  const QueryList qos(call.request, "qos");
  size_t written = 0;
  std::string& text = out.Key("jobs").RawValue();
  JsonOut jobs;
  jobs.BeginArray();
  slurm::JobsReplyVisitor visitor;
  visitor.job = [&](const v1::Job& job) {
    if (only && job.job_id() != *only) return Status::Ok();
    if (!users.Matches(slurm::UserLabel(job)) || !accounts.Matches(job.request().account()) ||
        !partitions.Matches(job.partition()) || !names.Matches(job.request().name()) ||
        !qos.Matches(job.request().qos()) ||
        !states.Matches(model::JobBaseStateName(slurm::StateOf(job).base))) {
      return Status::Ok();
    }
    ++written;
    WriteDbJob(job, call.config.cluster_name, jobs);
    return Status::Ok();
  };
  Result<slurm::JobsReplyHead> head = call.controller->ListJobs(request, visitor);
  jobs.EndArray();
  if (!head.ok()) {
    text += "[]";
    return reply.Fail(head.status(), "Unable to query the job history", "slurmdb_jobs_get");
  }
  text += jobs.text();
  if (only && written == 0) {
    reply.Fail(NotFound(slurm::kInvalidJobId), "Unable to query JobId=" + std::to_string(*only),
               "slurmdb_jobs_get");
  }
}

std::optional<v1::AccountingDb> Accounting(Call& call, Reply& reply) {
  Result<v1::AccountingDb> db = call.controller->GetAccounting();
  if (!db.ok()) {
    reply.Fail(db.status(), "Unable to read the accounting database", "slurmdb_get");
    return std::nullopt;
  }
  return *db;
}

void AssocShort(const v1::Association& a, const std::string& cluster, JsonOut& out) {
  out.BeginObject()
      .Member("account", a.account())
      .Member("cluster", cluster)
      .Member("partition", a.partition())
      .Member("user", a.user())
      .MemberInt("id", a.id())
      .EndObject();
}

void Optional(JsonOut& out, std::string_view name, bool has, uint32_t value) {
  out.Key(name);
  if (has) {
    out.NoValNumber(value);
  } else {
    out.NoValInfinite();
  }
}

void WriteAssociation(const v1::Association& a, const v1::AccountingDb& db,
                      const std::string& cluster, JsonOut& out) {
  std::string parent;
  bool is_default = false;
  if (a.user().empty()) {
    for (const v1::Account& account : db.accounts()) {
      if (account.name() == a.account()) parent = account.parent();
    }
  } else {
    parent = a.account();
    for (const v1::AccountingUser& u : db.users()) {
      if (u.name() == a.user()) is_default = u.default_account() == a.account();
    }
  }
  out.BeginObject();
  out.Key("accounting").BeginArray().EndArray();
  out.Member("account", a.account());
  out.Member("cluster", cluster);
  out.Member("comment", "");
  out.Key("default").BeginObject().Member("qos", a.default_qos()).EndObject();
  out.Key("flags").BeginArray().EndArray();
  out.Key("max").BeginObject();
  out.Key("jobs").BeginObject();
  out.Key("per").BeginObject();
  Optional(out, "count", a.has_grp_jobs(), a.grp_jobs());
  Optional(out, "submitted", a.has_grp_submit_jobs(), a.grp_submit_jobs());
  Optional(out, "wall_clock", a.has_max_wall_min(), a.max_wall_min());
  out.EndObject();
  Optional(out, "active", a.has_max_jobs(), a.max_jobs());
  Optional(out, "total", a.has_max_submit_jobs(), a.max_submit_jobs());
  out.EndObject();
  out.Key("tres").BeginObject();
  TresList(out, "total", a.grp_tres());
  out.Key("group").BeginObject();
  TresList(out, "minutes", a.grp_tres_mins());
  TresList(out, "active", a.grp_tres_run_mins());
  out.EndObject();
  out.EndObject();
  out.EndObject();
  out.MemberInt("id", a.id());
  out.MemberBool("is_default", is_default);
  out.Member("lineage", "");
  out.Key("min").BeginObject().Key("priority_threshold").NoValUnset().EndObject();
  out.Member("parent_account", parent);
  out.Member("partition", a.partition());
  out.MemberNoVal("priority", a.priority(), a.has_priority());
  out.Key("qos").BeginArray();
  for (const std::string& q : a.qos()) out.String(q);
  out.EndArray();
  out.MemberInt("shares_raw", a.shares());
  out.Member("user", a.user());
  out.EndObject();
}

}  // namespace

void DbListJobs(Call& call, Reply& reply) { DbJobs(call, reply, std::nullopt); }

void DbGetJob(Call& call, Reply& reply) {
  const std::string& text = call.Param("job_id");
  const std::optional<uint32_t> id = ParseJobId(text);
  if (!id) {
    reply.out().Key("jobs").BeginArray().EndArray();
    return reply.Fail(400, {"job_id \"" + text + "\" is not a job id", slurm::kEslurmInvalidJobId,
                            slurm::kInvalidJobId, "#/job_id"});
  }
  DbJobs(call, reply, *id);
}

void DbAccounts(Call& call, Reply& reply) {
  const std::optional<v1::AccountingDb> db = Accounting(call, reply);
  const std::string only = call.params.contains("account_name") ? call.Param("account_name") : "";
  JsonOut& out = reply.out();
  out.Key("accounts").BeginArray();
  bool found = false;
  if (db) {
    for (const v1::Account& account : db->accounts()) {
      if (!only.empty() && account.name() != only) continue;
      found = true;
      out.BeginObject();
      out.Key("associations").BeginArray();
      for (const v1::Association& a : db->associations()) {
        if (a.account() == account.name() && a.user().empty()) {
          AssocShort(a, call.config.cluster_name, out);
        }
      }
      out.EndArray();
      out.Key("coordinators").BeginArray().EndArray();
      out.Member("description", account.description());
      out.Member("name", account.name());
      out.Member("organization", account.organization());
      out.Key("flags").BeginArray().EndArray();
      out.EndObject();
    }
  }
  out.EndArray();
  if (db && !only.empty() && !found) {
    reply.Fail(NotFound("Nothing found"), "No account named " + only, "slurmdb_accounts_get");
  }
}

void DbAssociations(Call& call, Reply& reply) {
  const std::optional<v1::AccountingDb> db = Accounting(call, reply);
  const QueryList accounts(call.request, "account");
  const QueryList users(call.request, "user");
  const QueryList partitions(call.request, "partition");
  JsonOut& out = reply.out();
  out.Key("associations").BeginArray();
  if (db) {
    for (const v1::Association& a : db->associations()) {
      if (!accounts.Matches(a.account()) || !users.Matches(a.user()) ||
          !partitions.Matches(a.partition())) {
        continue;
      }
      WriteAssociation(a, *db, call.config.cluster_name, out);
    }
  }
  out.EndArray();
}

void DbQos(Call& call, Reply& reply) {
  const std::optional<v1::AccountingDb> db = Accounting(call, reply);
  const std::string only = call.params.contains("qos") ? call.Param("qos") : "";
  const QueryList names(call.request, "name");
  JsonOut& out = reply.out();
  out.Key("qos").BeginArray();
  bool found = false;
  if (db) {
    for (const v1::Qos& q : db->qos()) {
      if ((!only.empty() && q.name() != only) || !names.Matches(q.name())) continue;
      found = true;
      out.BeginObject();
      out.Member("description", q.description());
      out.Key("flags").BeginArray().EndArray();
      out.MemberInt("id", q.id());
      out.Key("limits").BeginObject();
      out.MemberInt("grace_time", q.grace_time_sec());
      out.Key("max").BeginObject();
      out.Key("wall_clock").BeginObject().Key("per").BeginObject();
      Optional(out, "job", q.has_max_wall_min(), q.max_wall_min());
      out.EndObject().EndObject();
      out.Key("jobs").BeginObject().Key("active_jobs").BeginObject().Key("per").BeginObject();
      Optional(out, "user", q.has_max_jobs_per_user(), q.max_jobs_per_user());
      out.EndObject().EndObject().EndObject();
      out.EndObject();
      out.Key("factor").NoValUnset();
      out.EndObject();
      out.Member("name", q.name());
      out.Key("preempt").BeginObject();
      out.Key("list").BeginArray();
      for (const std::string& p : q.preempt()) out.String(p);
      out.EndArray();
      out.Key("mode").BeginArray();
      if (!q.preempt_mode().empty()) {  // empty: the cluster's mode
        const std::string mode = text::AsciiToUpper(q.preempt_mode());
        out.String(mode == "OFF" ? "DISABLED" : mode);
      }
      out.EndArray();
      out.MemberNoVal("exempt_time", q.preempt_exempt_time_sec(), q.preempt_exempt_time_sec() != 0);
      out.EndObject();
      out.MemberNoVal("priority", q.priority());
      out.Key("usage_factor");
      if (q.has_usage_factor()) {
        out.NoValDouble(q.usage_factor());
      } else {
        out.NoValDouble(1.0);
      }
      out.Key("usage_threshold").NoValUnset();
      out.EndObject();
    }
  }
  out.EndArray();
  if (db && !only.empty() && !found) {
    reply.Fail(NotFound("Nothing found"), "No QOS named " + only, "slurmdb_qos_get");
  }
}

void DbUsers(Call& call, Reply& reply) {
  const std::optional<v1::AccountingDb> db = Accounting(call, reply);
  const std::string only = call.params.contains("name") ? call.Param("name") : "";
  static constexpr const char* kLevels[] = {"None", "Operator", "Administrator"};
  JsonOut& out = reply.out();
  out.Key("users").BeginArray();
  bool found = false;
  if (db) {
    for (const v1::AccountingUser& u : db->users()) {
      if (!only.empty() && u.name() != only) continue;
      found = true;
      out.BeginObject();
      out.Key("administrator_level")
          .BeginArray()
          .String(kLevels[std::min<uint32_t>(u.admin_level(), 2)])
          .EndArray();
      out.Key("associations").BeginArray();
      for (const v1::Association& a : db->associations()) {
        if (a.user() == u.name()) AssocShort(a, call.config.cluster_name, out);
      }
      out.EndArray();
      out.Key("coordinators").BeginArray().EndArray();
      out.Key("default")
          .BeginObject()
          .Member("account", u.default_account())
          .Member("wckey", "")
          .EndObject();
      out.Key("flags").BeginArray().String("NONE").EndArray();
      out.Member("name", u.name());
      out.Member("old_name", "");
      out.Key("wckeys").BeginArray().EndArray();
      out.EndObject();
    }
  }
  out.EndArray();
  if (db && !only.empty() && !found) {
    reply.Fail(NotFound("Nothing found"), "No user named " + only, "slurmdb_users_get");
  }
}

// The TRES every Gantry cluster counts (sacct's AllocTRES names).
void DbTres(Call& /*call*/, Reply& reply) {
  JsonOut& out = reply.out();
  out.Key("TRES").BeginArray();
  int id = 1;
  for (const auto& [type, name] :
       std::vector<std::pair<const char*, const char*>>{{"cpu", ""},
                                                        {"mem", ""},
                                                        {"energy", ""},
                                                        {"node", ""},
                                                        {"billing", ""},
                                                        {"fs", "disk"},
                                                        {"vmem", ""},
                                                        {"pages", ""},
                                                        {"gres", "gpu"}}) {
    out.BeginObject()
        .Member("type", type)
        .Member("name", name)
        .MemberInt("id", id == 9 ? 1001 : id)
        .MemberInt("count", 0)
        .EndObject();
    ++id;
  }
  out.EndArray();
}

// slurmdbd's statistics: Gantry has no separate accounting daemon, so no rollups or RPCs of
// its own to report (the controller's are at /slurm/v0.0.42/diag).
void DbDiag(Call& call, Reply& reply) {
  Result<v1::GetStatsReply> stats = call.controller->GetStats({});
  JsonOut& out = reply.out();
  out.Key("statistics").BeginObject();
  out.MemberInt("time_start", stats.ok() ? stats->since() : 0);
  out.Key("RPCs").BeginArray().EndArray();
  out.Key("users").BeginArray().EndArray();
  out.EndObject();
  if (!stats.ok()) reply.Fail(stats.status(), "Unable to query statistics", "slurmdb_diag");
}

void DbPing(Call& call, Reply& reply) {
  const auto start = std::chrono::steady_clock::now();
  Result<v1::PingReply> ping = call.controller->Ping();
  JsonOut& out = reply.out();
  out.Key("pings").BeginArray().BeginObject();
  out.Member("hostname", "localhost");
  out.MemberBool("responding", ping.ok());
  out.MemberInt("latency", std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::steady_clock::now() - start)
                               .count());
  out.MemberBool("primary", true);
  out.EndObject().EndArray();
  if (!ping.ok()) reply.Fail(ping.status(), "Unable to reach the accounting store", "slurmdb_ping");
}

}  // namespace gantry::rest

namespace gantry::rest {
namespace {

// Runs the sacctmgr command `words` (after the verb and entity) against the database and commits
// its change: the REST writes mean exactly what the same sacctmgr line means.
bool Edit(Call& call, Reply& reply, slurm::EditVerb verb, slurm::Entity entity,
          const std::vector<std::string>& words, const std::string& source) {
  Result<v1::AccountingDb> db = call.controller->GetAccounting();
  if (!db.ok()) {
    reply.Fail(db.status(), "Unable to read the accounting database", source);
    return false;
  }
  const slurm::Edit edit = slurm::WorkOutEdit(verb, entity, words, *db, call.config.cluster_name);
  if (edit.nothing) {
    reply.Fail(404, {"Nothing to change", -1, "Nothing found", source});
    return false;
  }
  if (edit.exit_code != 0) {
    std::string why = edit.err.empty() ? edit.out : edit.err;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    while (!why.empty() && why.front() == ' ') why.erase(0, 1);
    reply.Fail(400, {why, -1, edit.problem.empty() ? "Invalid request" : edit.problem, source});
    return false;
  }
  v1::UpdateAccountingRequest request;
  *request.mutable_change() = edit.change;
  request.set_expected_version(db->version());
  Result<v1::UpdateAccountingReply> done = call.controller->UpdateAccounting(request);
  if (!done.ok()) {
    reply.Fail(done.status(), "The accounting database refused the change", source);
    return false;
  }
  return true;
}

std::vector<std::string> StringList(const nlohmann::json& value) {
  std::vector<std::string> out;
  if (value.is_string()) out.push_back(value.get<std::string>());
  if (value.is_array()) {
    for (const auto& item : value) {
      if (item.is_string()) out.push_back(item.get<std::string>());
    }
  }
  return out;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::optional<nlohmann::json> ObjectBody(const Call& call, Reply& reply) {
  nlohmann::json body = nlohmann::json::parse(call.request.body, nullptr, false);
  if (!body.is_object()) {
    reply.Fail(400, {"the body is not a JSON object", 9202, "Failure parsing request body", "#"});
    return std::nullopt;
  }
  return body;
}

}  // namespace

// DELETE /user/{name}: sacctmgr delete user NAME.
void DbDeleteUser(Call& call, Reply& reply) {
  Edit(call, reply, slurm::EditVerb::kDelete, slurm::Entity::kUser, {call.Param("name")},
       "slurmdb_user_delete");
}

// DELETE /account/{name}: sacctmgr delete account NAME.
void DbDeleteAccount(Call& call, Reply& reply) {
  const bool done = Edit(call, reply, slurm::EditVerb::kDelete, slurm::Entity::kAccount,
                         {call.Param("account_name")}, "slurmdb_account_delete");
  reply.out().Key("removed_accounts").BeginArray();
  if (done) reply.out().String(call.Param("account_name"));
  reply.out().EndArray();
}

// POST /users (users: [{name, default: {account}, associations: [{account, partition}],
// administrator_level}]): sacctmgr add user NAME Account=... DefaultAccount=... AdminLevel=...
void DbAddUsers(Call& call, Reply& reply) {
  const std::optional<nlohmann::json> body = ObjectBody(call, reply);
  if (!body) return;
  const auto users = body->find("users");
  if (users == body->end() || !users->is_array()) {
    return reply.Fail(400,
                      {"users: expected an array of users", 9202, "Invalid request", "#/users"});
  }
  for (size_t i = 0; i < users->size(); ++i) {
    const nlohmann::json& user = (*users)[i];
    const std::string where = "#/users/" + std::to_string(i);
    if (!user.is_object() || !user.contains("name") || !user["name"].is_string()) {
      return reply.Fail(400, {"name: required", 9202, "Invalid request", where + "/name"});
    }
    std::vector<std::string> accounts;
    if (user.contains("associations")) {
      for (const auto& a : user["associations"]) {
        if (a.is_object() && a.contains("account")) accounts.push_back(a.value("account", ""));
      }
    }
    std::vector<std::string> words = {user["name"].get<std::string>()};
    const std::string default_account =
        user.contains("default") ? user["default"].value("account", "") : "";
    if (!accounts.empty()) words.push_back("Account=" + Joined(accounts));
    if (!default_account.empty()) words.push_back("DefaultAccount=" + default_account);
    if (user.contains("administrator_level")) {
      const std::vector<std::string> level = StringList(user["administrator_level"]);
      if (!level.empty() && level[0] != "Not Set") words.push_back("AdminLevel=" + level[0]);
    }
    if (!Edit(call, reply, slurm::EditVerb::kAdd, slurm::Entity::kUser, words, where)) return;
  }
}

// POST /users_association: sacctmgr add user USERS Account=ACCOUNTS [Partition=...].
void DbAddUsersAssociation(Call& call, Reply& reply) {
  const std::optional<nlohmann::json> body = ObjectBody(call, reply);
  std::vector<std::string> users;
  if (body) {
    const nlohmann::json condition = body->value("association_condition", nlohmann::json::object());
    users = StringList(condition.value("users", nlohmann::json::array()));
    const std::vector<std::string> accounts =
        StringList(condition.value("accounts", nlohmann::json::array()));
    const std::vector<std::string> partitions =
        StringList(condition.value("partitions", nlohmann::json::array()));
    if (users.empty()) {
      reply.Fail(400, {"association_condition/users: required", 9202, "Invalid request",
                       "#/association_condition/users"});
    } else {
      std::vector<std::string> words = {Joined(users)};
      if (!accounts.empty()) words.push_back("Account=" + Joined(accounts));
      if (!partitions.empty()) words.push_back("Partition=" + Joined(partitions));
      const nlohmann::json user = body->value("user", nlohmann::json::object());
      if (const std::string d = user.value("defaultaccount", ""); !d.empty()) {
        words.push_back("DefaultAccount=" + d);
      }
      if (!Edit(call, reply, slurm::EditVerb::kAdd, slurm::Entity::kUser, words,
                "#/association_condition")) {
        users.clear();
      }
    }
  }
  reply.out().Member("added_users", Joined(users));
}

// POST /accounts (accounts: [{name, description, organization}]): sacctmgr add account NAME
// Description= Organization= (under root).
void DbAddAccounts(Call& call, Reply& reply) {
  const std::optional<nlohmann::json> body = ObjectBody(call, reply);
  if (!body) return;
  const auto accounts = body->find("accounts");
  if (accounts == body->end() || !accounts->is_array()) {
    return reply.Fail(
        400, {"accounts: expected an array of accounts", 9202, "Invalid request", "#/accounts"});
  }
  for (size_t i = 0; i < accounts->size(); ++i) {
    const nlohmann::json& account = (*accounts)[i];
    const std::string where = "#/accounts/" + std::to_string(i);
    if (!account.is_object() || !account.contains("name") || !account["name"].is_string()) {
      return reply.Fail(400, {"name: required", 9202, "Invalid request", where + "/name"});
    }
    std::vector<std::string> words = {account["name"].get<std::string>()};
    if (const std::string d = account.value("description", ""); !d.empty()) {
      words.push_back("Description=" + d);
    }
    if (const std::string o = account.value("organization", ""); !o.empty()) {
      words.push_back("Organization=" + o);
    }
    if (!Edit(call, reply, slurm::EditVerb::kAdd, slurm::Entity::kAccount, words, where)) return;
  }
}

}  // namespace gantry::rest
