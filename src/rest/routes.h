// The handlers of gantry-restd's routes, one per route of the table in routes.cc.
#ifndef GANTRY_REST_ROUTES_H_
#define GANTRY_REST_ROUTES_H_

#include "rest/api.h"

namespace gantry::rest {

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

}  // namespace gantry::rest

#endif  // GANTRY_REST_ROUTES_H_
