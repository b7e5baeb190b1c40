// Node health in the core: what a node's agent needs to check its health (HealthSettingsFor)
// and what a run of its checks means for the node and its jobs (OnHealthReport). Pure: gantryd
// applies the effects, the tests call the same functions.
#ifndef GANTRY_CORE_HEALTH_H_
#define GANTRY_CORE_HEALTH_H_

#include <string>

#include "base/status.h"
#include "core/context.h"
#include "core/effects.h"
#include "gantry/v1/node.pb.h"

namespace gantry::core {

// What the agent of `node` needs: the cluster's HealthCheck* settings, TmpFS, the home
// storage, what the node declares (GPUs, memory), its state now and its place among the nodes.
v1::HealthSettings HealthSettingsFor(const state::ClusterState& state, const Config& config,
                                     const v1::Node& node);

// A run's effects. Failed: the node drains (NodeStateChanged DRAIN by_health, reason
// model::HealthDrainReason) unless an operator drained or failed it (that drain and its reason
// stay) or the same reason stands; each job it runs that may be requeued is requeued (its processes
// end with the epilog); the others keep running. Passed: a node its health check drained
// resumes (RESUME by_health); any other node is left as it is. NotFound for a node the state
// does not know. The caller records the report (Memory::health).
Result<Effects> OnHealthReport(const Context& ctx, const v1::HealthReport& report);

}  // namespace gantry::core

#endif  // GANTRY_CORE_HEALTH_H_
