// Rules for the slurm.conf settings a spec carries: `config` maps at cluster, partition and
// node_sets level (or the legacy `scheduling`/`accounting` blocks). Each key must exist in
// slurm.conf, belong to that level, not be one the managed service refuses, and hold a valid
// value; then the cross-key rules Slurm enforces at start-up (PreemptType/PreemptMode
// combinations and the like) are checked. Pure; thread-safe.
#ifndef GANTRY_SPEC_CONFIG_RULES_H_
#define GANTRY_SPEC_CONFIG_RULES_H_

#include "spec/cluster_spec.h"
#include "spec/diagnostics.h"

namespace gantry::spec {

void ValidateConfigMaps(const ClusterSpec& spec, Diagnostics* d);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_CONFIG_RULES_H_
