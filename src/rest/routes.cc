// The route table: every route gantry-restd serves, declared once (router.h).
#include "rest/routes.h"

#include <chrono>

#include "rest/router.h"

namespace gantry::rest {
namespace {

void Ping(Call& call, Reply& reply) {
  const auto start = std::chrono::steady_clock::now();
  Result<v1::PingReply> ping = call.controller->Ping();
  const auto latency = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  JsonOut& out = reply.out();
  out.Key("pings").BeginArray().BeginObject();
  out.Member("hostname", call.controller->controller_host().empty()
                             ? "localhost"
                             : call.controller->controller_host());
  out.Member("pinged", ping.ok() ? "UP" : "DOWN");
  out.MemberBool("responding", ping.ok());
  out.MemberInt("latency", latency);
  out.Member("mode", "primary");
  out.MemberBool("primary", true);
  out.EndObject().EndArray();
  if (!ping.ok()) reply.Fail(ping.status(), "Unable to ping the controller", "slurm_ping");
}

void Openapi(Call& /*call*/, Reply& reply) {
  reply.SetRaw({200, "application/json", OpenapiDocument(Routes()), {}, {}});
}

#define SLURM "/slurm/v0.0.42"
#define SLURMDB "/slurmdb/v0.0.42"
#define GANTRY "/gantry/v1"

}  // namespace

const std::vector<Route>& Routes() {
  static const auto* routes = new std::vector<Route>{
      {"GET", SLURM "/ping", "slurm_v0042_get_ping", "openapi_ping_array_resp",
       "ping the controller", Ping},
      {"GET", SLURM "/jobs", "slurm_v0042_get_jobs", "openapi_job_info_resp",
       "every job the controller holds", ListJobs},
      {"DELETE", SLURM "/jobs", "slurm_v0042_delete_jobs", "openapi_kill_jobs_resp",
       "signal or cancel the jobs a filter selects", SignalJobs},
      {"GET", SLURM "/jobs/state", "slurm_v0042_get_jobs_state", "openapi_job_info_resp",
       "jobs' states", ListJobStates},
      {"POST", SLURM "/job/submit", "slurm_v0042_post_job_submit", "openapi_job_submit_response",
       "submit a batch job", SubmitJob},
      {"POST", SLURM "/job/allocate", "slurm_v0042_post_job_allocate", "openapi_job_alloc_resp",
       "allocate resources without a script (salloc)", AllocateJob},
      {"GET", SLURM "/job/{job_id}", "slurm_v0042_get_job", "openapi_job_info_resp", "one job",
       GetJob},
      {"POST", SLURM "/job/{job_id}", "slurm_v0042_post_job", "openapi_job_post_response",
       "update a job (scontrol update, hold, release)", UpdateJob},
      {"DELETE", SLURM "/job/{job_id}", "slurm_v0042_delete_job", "openapi_kill_job_resp",
       "cancel or signal a job", SignalJob},
      {"GET", SLURM "/nodes", "slurm_v0042_get_nodes", "openapi_nodes_resp", "every node",
       ListNodes},
      {"POST", SLURM "/nodes", "slurm_v0042_post_nodes", "openapi_resp", "update nodes",
       UpdateNode},
      {"GET", SLURM "/node/{node_name}", "slurm_v0042_get_node", "openapi_nodes_resp", "one node",
       GetNode},
      {"POST", SLURM "/node/{node_name}", "slurm_v0042_post_node", "openapi_resp",
       "update a node (state, reason)", UpdateNode},
      {"GET", SLURM "/partitions", "slurm_v0042_get_partitions", "openapi_partition_resp",
       "every partition", ListPartitions},
      {"GET", SLURM "/partition/{partition_name}", "slurm_v0042_get_partition",
       "openapi_partition_resp", "one partition", GetPartition},
      {"GET", SLURM "/diag", "slurm_v0042_get_diag", "openapi_diag_resp",
       "the controller's statistics (sdiag)", Diag},
      {"GET", SLURM "/shares", "slurm_v0042_get_shares", "openapi_shares_resp",
       "fair-share data (sshare)", Shares},
      {"GET", SLURM "/licenses", "slurm_v0042_get_licenses", "openapi_licenses_resp",
       "licenses (none)", Licenses},
      {"GET", SLURM "/reservations", "slurm_v0042_get_reservations", "openapi_reservation_resp",
       "reservations (none)", Reservations},
      {"GET", SLURM "/reservation/{reservation_name}", "slurm_v0042_get_reservation",
       "openapi_reservation_resp", "one reservation", Reservations},
      {"GET", SLURM "/reconfigure", "slurm_v0042_get_reconfigure", "openapi_resp",
       "reconfigure the controller", Reconfigure},
      {"GET", SLURMDB "/jobs", "slurmdb_v0042_get_jobs", "openapi_slurmdbd_jobs_resp",
       "the job history (sacct)", DbListJobs},
      {"GET", SLURMDB "/job/{job_id}", "slurmdb_v0042_get_job", "openapi_slurmdbd_jobs_resp",
       "one job's record", DbGetJob},
      {"GET", SLURMDB "/accounts", "slurmdb_v0042_get_accounts", "openapi_accounts_resp",
       "accounts", DbAccounts},
      {"GET", SLURMDB "/account/{account_name}", "slurmdb_v0042_get_account",
       "openapi_accounts_resp", "one account", DbAccounts},
      {"POST", SLURMDB "/accounts", "slurmdb_v0042_post_accounts", "openapi_resp",
       "add accounts (sacctmgr add account)", DbAddAccounts},
      {"DELETE", SLURMDB "/account/{account_name}", "slurmdb_v0042_delete_account",
       "openapi_accounts_removed_resp", "delete an account", DbDeleteAccount},
      {"GET", SLURMDB "/associations", "slurmdb_v0042_get_associations", "openapi_assocs_resp",
       "associations", DbAssociations},
      {"GET", SLURMDB "/qos", "slurmdb_v0042_get_qos", "openapi_slurmdbd_qos_resp", "QOS", DbQos},
      {"GET", SLURMDB "/qos/{qos}", "slurmdb_v0042_get_single_qos", "openapi_slurmdbd_qos_resp",
       "one QOS", DbQos},
      {"GET", SLURMDB "/users", "slurmdb_v0042_get_users", "openapi_users_resp", "users", DbUsers},
      {"GET", SLURMDB "/user/{name}", "slurmdb_v0042_get_user", "openapi_users_resp", "one user",
       DbUsers},
      {"POST", SLURMDB "/users", "slurmdb_v0042_post_users", "openapi_resp",
       "add users (sacctmgr add user)", DbAddUsers},
      {"POST", SLURMDB "/users_association", "slurmdb_v0042_post_users_association",
       "openapi_users_add_cond_resp_str", "add users to accounts", DbAddUsersAssociation},
      {"DELETE", SLURMDB "/user/{name}", "slurmdb_v0042_delete_user", "openapi_resp",
       "delete a user", DbDeleteUser},
      {"GET", SLURMDB "/tres", "slurmdb_v0042_get_tres", "openapi_tres_resp", "TRES", DbTres},
      {"GET", SLURMDB "/diag", "slurmdb_v0042_get_diag", "openapi_slurmdbd_stats_resp",
       "accounting statistics", DbDiag},
      {"GET", SLURMDB "/ping", "slurmdb_v0042_get_ping", "openapi_slurmdbd_ping_resp",
       "ping the accounting store", DbPing},
      // Gantry's own (the dashboard's), beyond slurmrestd's API.
      {"GET", GANTRY "/job/{job_id}/explain", "gantry_v1_get_job_explain", "gantry_explain_resp",
       "why the job is where it is, in words (gantry explain)", ExplainJobRoute},
      {"GET", GANTRY "/job/{job_id}/output", "gantry_v1_get_job_output", "gantry_output_resp",
       "the tail of the job's output file (its user only)", JobOutput},
      {"POST", GANTRY "/job/{job_id}/requeue", "gantry_v1_post_job_requeue", "gantry_requeue_resp",
       "requeue the job (scontrol requeue; ?hold=true: requeuehold)", RequeueJob},
      {"GET", "/openapi.json", "openapi_get", "openapi_resp", "this API's OpenAPI document",
       Openapi, /*needs_controller=*/false},
      {"GET", "/openapi", "openapi_get_v3", "openapi_resp", "this API's OpenAPI document", Openapi,
       /*needs_controller=*/false},
  };
  return *routes;
}

}  // namespace gantry::rest
