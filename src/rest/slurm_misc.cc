// The /slurm/v0.0.42/ routes about the controller itself: diag, shares, licenses,
// reservations, reconfigure.
#include <algorithm>

#include "model/rpc_type.h"
#include "rest/routes.h"
#include "sys/system_time.h"
#include "text/ascii.h"

namespace gantry::rest {
namespace {

int64_t Mean(uint64_t sum, uint64_t count) {
  return count == 0 ? 0 : static_cast<int64_t>(sum / count);
}

void WriteStats(const v1::GetStatsReply& s, JsonOut& out) {
  out.Key("statistics").BeginObject();
  out.MemberInt("parts_packed", 1);
  out.Key("req_time").NoValNumber(s.time());
  out.Key("req_time_start").NoValNumber(s.since());
  out.MemberInt("server_thread_count", s.server_thread_count());
  out.MemberInt("agent_queue_size", s.agent_queue_size());
  out.MemberInt("agent_count", s.agent_count());
  out.MemberInt("agent_thread_count", s.agent_thread_count());
  out.MemberInt("dbd_agent_queue_size", 0);
  out.MemberInt("gettimeofday_latency", s.gettimeofday_latency_usec());
  out.MemberInt("schedule_cycle_max", s.schedule_cycle_max());
  out.MemberInt("schedule_cycle_last", s.schedule_cycle_last());
  out.MemberInt("schedule_cycle_sum", static_cast<int64_t>(s.schedule_cycle_sum()));
  out.MemberInt("schedule_cycle_total", s.schedule_cycle_counter());
  out.MemberInt("schedule_cycle_mean", Mean(s.schedule_cycle_sum(), s.schedule_cycle_counter()));
  out.MemberInt("schedule_cycle_mean_depth",
                Mean(s.schedule_cycle_depth(), s.schedule_cycle_counter()));
  const int64_t minutes = std::max<int64_t>(1, (s.time() - s.since()) / 60);
  out.MemberInt("schedule_cycle_per_minute", s.schedule_cycle_counter() / minutes);
  out.MemberInt("schedule_cycle_depth", static_cast<int64_t>(s.schedule_cycle_depth()));
  out.Key("schedule_exit")
      .BeginObject()
      .MemberInt("end_job_queue", s.schedule_cycle_counter())
      .MemberInt("default_queue_depth", 0)
      .MemberInt("max_job_start", 0)
      .MemberInt("max_rpc_cnt", 0)
      .MemberInt("max_sched_time", 0)
      .MemberInt("licenses", 0)
      .EndObject();
  out.MemberInt("schedule_queue_length", s.schedule_queue_len());
  out.MemberInt("jobs_submitted", s.jobs_submitted());
  out.MemberInt("jobs_started", s.jobs_started());
  out.MemberInt("jobs_completed", s.jobs_completed());
  out.MemberInt("jobs_canceled", s.jobs_canceled());
  out.MemberInt("jobs_failed", s.jobs_failed());
  out.MemberInt("jobs_pending", s.jobs_pending());
  out.MemberInt("jobs_running", s.jobs_running());
  out.Key("job_states_ts").NoValNumber(s.job_states_time());
  out.MemberInt("bf_backfilled_jobs", s.bf_backfilled_jobs());
  out.MemberInt("bf_last_backfilled_jobs", s.bf_last_backfilled_jobs());
  out.MemberInt("bf_backfilled_het_jobs", 0);
  out.MemberInt("bf_cycle_counter", s.bf_cycle_counter());
  out.MemberInt("bf_cycle_mean", Mean(s.bf_cycle_sum(), s.bf_cycle_counter()));
  out.MemberInt("bf_depth_mean", Mean(s.bf_depth_sum(), s.bf_cycle_counter()));
  out.MemberInt("bf_depth_mean_try", Mean(s.bf_depth_try_sum(), s.bf_cycle_counter()));
  out.MemberInt("bf_cycle_sum", static_cast<int64_t>(s.bf_cycle_sum()));
  out.MemberInt("bf_cycle_last", s.bf_cycle_last());
  out.MemberInt("bf_cycle_max", s.bf_cycle_max());
  out.Key("bf_exit")
      .BeginObject()
      .MemberInt("end_job_queue", s.bf_cycle_counter())
      .MemberInt("bf_max_job_start", 0)
      .MemberInt("bf_max_job_test", 0)
      .MemberInt("bf_max_time", 0)
      .MemberInt("bf_node_space_size", 0)
      .MemberInt("state_changed", 0)
      .EndObject();
  out.MemberInt("bf_last_depth", s.bf_last_depth());
  out.MemberInt("bf_last_depth_try", s.bf_last_depth_try());
  out.MemberInt("bf_depth_sum", static_cast<int64_t>(s.bf_depth_sum()));
  out.MemberInt("bf_depth_try_sum", static_cast<int64_t>(s.bf_depth_try_sum()));
  out.MemberInt("bf_queue_len", s.bf_queue_len());
  out.MemberInt("bf_queue_len_mean", Mean(s.bf_queue_len_sum(), s.bf_cycle_counter()));
  out.MemberInt("bf_queue_len_sum", static_cast<int64_t>(s.bf_queue_len_sum()));
  out.MemberInt("bf_table_size", s.bf_table_size());
  out.MemberInt("bf_table_size_sum", static_cast<int64_t>(s.bf_table_size_sum()));
  out.MemberInt("bf_table_size_mean", Mean(s.bf_table_size_sum(), s.bf_cycle_counter()));
  out.Key("bf_when_last_cycle").NoValNumber(s.bf_when_last_cycle());
  out.MemberBool("bf_active", false);
  out.Key("rpcs_by_message_type").BeginArray();
  for (const v1::RpcStat& rpc : s.rpc_types()) {
    out.BeginObject()
        .MemberInt("type_id", rpc.id())
        .Member("message_type", model::RpcTypeName(rpc.id()))
        .MemberInt("count", rpc.count())
        .MemberInt("queued", 0)
        .MemberInt("dropped", 0)
        .MemberInt("cycle_last", 0)
        .MemberInt("cycle_max", 0)
        .MemberInt("total_time", static_cast<int64_t>(rpc.total_usec()))
        .Key("average_time")
        .NoValNumber(Mean(rpc.total_usec(), rpc.count()))
        .EndObject();
  }
  out.EndArray();
  out.Key("rpcs_by_user").BeginArray();
  for (const v1::RpcStat& rpc : s.rpc_users()) {
    out.BeginObject()
        .MemberInt("user_id", rpc.id())
        .Member("user", std::to_string(rpc.id()))
        .MemberInt("count", rpc.count())
        .MemberInt("total_time", static_cast<int64_t>(rpc.total_usec()))
        .Key("average_time")
        .NoValNumber(Mean(rpc.total_usec(), rpc.count()))
        .EndObject();
  }
  out.EndArray();
  out.Key("pending_rpcs").BeginArray();
  for (const v1::RpcStat& rpc : s.pending_rpcs()) {
    out.BeginObject()
        .MemberInt("type_id", rpc.id())
        .Member("message_type", model::RpcTypeName(rpc.id()))
        .MemberInt("count", rpc.count())
        .EndObject();
  }
  out.EndArray();
  out.Key("pending_rpcs_by_hostlist").BeginArray().EndArray();
  out.EndObject();
}

}  // namespace

void Diag(Call& call, Reply& reply) {
  Result<v1::GetStatsReply> stats = call.controller->GetStats({});
  if (!stats.ok()) {
    WriteStats({}, reply.out());
    return reply.Fail(stats.status(), "Unable to query the controller's statistics",
                      "slurm_get_statistics");
  }
  WriteStats(*stats, reply.out());
}

void Shares(Call& call, Reply& reply) {
  v1::GetPrioritiesRequest request;
  request.set_shares(true);
  Result<v1::GetPrioritiesReply> priorities = call.controller->GetPriorities(request);
  const std::optional<std::string> accounts = call.request.Query("accounts");
  const std::optional<std::string> users = call.request.Query("users");
  const auto listed = [](const std::optional<std::string>& filter, const std::string& name) {
    if (!filter) return true;
    const std::vector<std::string_view> names = text::Split(*filter, ',');
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  JsonOut& out = reply.out();
  out.Key("shares").BeginObject().Key("shares").BeginArray();
  uint64_t total = 0;
  if (priorities.ok()) {
    for (const v1::ShareInfo& s : priorities->shares()) {
      if (s.depth() == 1) total += s.raw_shares();
      if (!listed(accounts, s.account()) ||
          (users && !s.user().empty() && !listed(users, s.user()))) {
        continue;
      }
      out.BeginObject();
      out.MemberInt("id", s.association_id());
      out.Member("cluster", call.config.cluster_name);
      out.Member("name", s.user().empty() ? s.account() : s.user());
      out.Member("parent", s.user().empty() ? s.parent() : s.account());
      out.Member("partition", s.partition());
      out.Key("shares_normalized").NoValDouble(s.norm_shares());
      out.Key("shares").NoValNumber(s.raw_shares());
      out.Key("tres")
          .BeginObject()
          .Key("run_seconds")
          .BeginArray()
          .EndArray()
          .Key("group_minutes")
          .BeginArray()
          .EndArray()
          .Key("usage")
          .BeginArray()
          .EndArray()
          .EndObject();
      out.Key("effective_usage").NoValDouble(s.effective_usage());
      out.Key("usage_normalized").NoValDouble(s.norm_usage());
      out.MemberInt("usage", static_cast<int64_t>(s.raw_usage()));
      out.Key("fairshare")
          .BeginObject()
          .Key("factor")
          .NoValDouble(s.fair_share())
          .Key("level")
          .NoValDouble(s.level_fs())
          .EndObject();
      out.Key("type").BeginArray().String(s.user().empty() ? "ASSOCIATION" : "USER").EndArray();
      out.EndObject();
    }
  }
  out.EndArray().MemberInt("total_shares", static_cast<int64_t>(total)).EndObject();
  if (!priorities.ok()) {
    reply.Fail(priorities.status(), "Unable to query fair-share data",
               "slurm_associations_get_shares");
  }
}

// Gantry has no licenses and no reservations yet: the lists are empty, as on a Slurm cluster
// that defines none.
void Licenses(Call& call, Reply& reply) {
  (void)call;
  reply.out().Key("licenses").BeginArray().EndArray();
  reply.out().Key("last_update").NoValNumber(sys::SystemClock::Get().Now());
}

void Reservations(Call& call, Reply& reply) {
  reply.out().Key("reservations").BeginArray().EndArray();
  reply.out().Key("last_update").NoValNumber(sys::SystemClock::Get().Now());
  if (call.params.contains("reservation_name")) {
    reply.Fail(NotFound("Requested reservation is invalid"),
               "Unable to query reservation " + call.Param("reservation_name"),
               "slurm_load_reservations");
  }
}

// GET /reconfigure: Gantry reads its settings from the cluster spec, changed with
// `gantry cluster update`; the controller itself has nothing to reread.
void Reconfigure(Call& call, Reply& reply) {
  Result<v1::PingReply> ping = call.controller->Ping();
  if (!ping.ok()) {
    return reply.Fail(ping.status(), "Unable to reach the controller", "slurm_reconfigure");
  }
  if (ping->caller_uid() != 0 && ping->caller_uid() != call.config.own_uid) {
    return reply.Fail(PermissionDenied("Access/permission denied"), "Unable to reconfigure",
                      "slurm_reconfigure");
  }
  reply.Warn(
      "Gantry applies configuration changes through `gantry cluster update`; "
      "nothing was reread",
      "slurm_reconfigure");
}

}  // namespace gantry::rest
