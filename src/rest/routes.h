// The handlers of gantry-restd's routes, one per route of the table in routes.cc.
#ifndef GANTRY_REST_ROUTES_H_
#define GANTRY_REST_ROUTES_H_

#include "rest/api.h"

namespace gantry::rest {

// The {job_id} path parameter as a job id; a 400 naming #/job_id recorded otherwise.
std::optional<uint32_t> JobIdOf(const Call& call, Reply& reply);

// slurm_jobs.cc
void ListJobs(Call& call, Reply& reply);
void ListJobStates(Call& call, Reply& reply);
void GetJob(Call& call, Reply& reply);
void SubmitJob(Call& call, Reply& reply);
void AllocateJob(Call& call, Reply& reply);
void SignalJob(Call& call, Reply& reply);
void SignalJobs(Call& call, Reply& reply);
void UpdateJob(Call& call, Reply& reply);

// slurm_nodes.cc
void ListNodes(Call& call, Reply& reply);
void GetNode(Call& call, Reply& reply);
void UpdateNode(Call& call, Reply& reply);
void ListPartitions(Call& call, Reply& reply);
void GetPartition(Call& call, Reply& reply);

// slurm_misc.cc
void Diag(Call& call, Reply& reply);
void Shares(Call& call, Reply& reply);
void Licenses(Call& call, Reply& reply);
void Reservations(Call& call, Reply& reply);
void Reconfigure(Call& call, Reply& reply);

// gantry_routes.cc: beyond slurmrestd (/gantry/v1/)
void ExplainJobRoute(Call& call, Reply& reply);
void JobOutput(Call& call, Reply& reply);
void RequeueJob(Call& call, Reply& reply);

// slurmdb_routes.cc
void DbListJobs(Call& call, Reply& reply);
void DbGetJob(Call& call, Reply& reply);
void DbAccounts(Call& call, Reply& reply);
void DbAssociations(Call& call, Reply& reply);
void DbQos(Call& call, Reply& reply);
void DbUsers(Call& call, Reply& reply);
void DbTres(Call& call, Reply& reply);
void DbDiag(Call& call, Reply& reply);
void DbPing(Call& call, Reply& reply);
void DbDeleteUser(Call& call, Reply& reply);
void DbDeleteAccount(Call& call, Reply& reply);
void DbAddUsers(Call& call, Reply& reply);
void DbAddUsersAssociation(Call& call, Reply& reply);
void DbAddAccounts(Call& call, Reply& reply);

}  // namespace gantry::rest

#endif  // GANTRY_REST_ROUTES_H_
