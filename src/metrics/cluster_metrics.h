// What a cluster's state says in metrics, Slurm 25.11's names (its metrics/openmetrics plugin)
// where Slurm has them, gantry_ where Gantry says more:
//   jobs:        slurm_jobs, slurm_jobs_<state> (pending, running, suspended, completed,
//                cancelled, failed, timeout, node_failed, outofmemory, preempted, bootfail,
//                deadline, completing, configuring, requeued, hold), slurm_jobs_{cpus,memory,
//                nodes}_alloc, gantry_jobs_pending_reason{reason}
//   nodes:       slurm_nodes, slurm_nodes_<state> (alloc, idle, mixed, down, drain, drained,
//                draining, fail, maint, noresp, completing, planned, reserved, future,
//                unknown), per node slurm_node_cpus{,_alloc,_idle,_effective},
//                slurm_node_memory{,_alloc,_free}_bytes, gantry_node_gpus{,_alloc}
//   partitions:  slurm_partitions, per partition slurm_partition_{jobs,jobs_pending,
//                jobs_running,jobs_cpus_alloc,jobs_memory_alloc,nodes,cpus,nodes_alloc,
//                nodes_idle,nodes_mixed,nodes_down,nodes_drain,nodes_cpus_alloc,
//                nodes_cpus_idle}, gantry_partition_gpus{,_alloc}
//   users/accounts: slurm_user_jobs_{pending,running,suspended}{username},
//                slurm_account_jobs_{pending,running,suspended}{account},
//                slurm_user_jobs_cpus_alloc, slurm_account_jobs_cpus_alloc
// Every figure is a gauge of the state now, as Slurm's are. Pure functions of the state (the
// caller holds whatever lock keeps it still); thread-compatible.
#ifndef GANTRY_METRICS_CLUSTER_METRICS_H_
#define GANTRY_METRICS_CLUSTER_METRICS_H_

#include "metrics/openmetrics.h"
#include "state/cluster_state.h"

namespace gantry::metrics {

void JobMetrics(const state::ClusterState& state, MetricsText* out);
void NodeMetrics(const state::ClusterState& state, MetricsText* out);
void PartitionMetrics(const state::ClusterState& state, MetricsText* out);
void UserAccountMetrics(const state::ClusterState& state, MetricsText* out);

}  // namespace gantry::metrics

#endif  // GANTRY_METRICS_CLUSTER_METRICS_H_
