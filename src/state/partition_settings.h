// The slurm.conf partition keys, one table for the two ways a partition gets them: a cluster
// spec's partition `config` (ConfigFromSpec) and `scontrol update PartitionName=NAME KEY=VALUE`
// (Slurm 22.05's scontrol_parse_part_options keys). Each key sets a field of v1::Partition;
// keys Gantry has no field for are kept in `extra` and shown by `scontrol show partition`.
//
// Pure functions; thread-compatible.
#ifndef GANTRY_STATE_PARTITION_SETTINGS_H_
#define GANTRY_STATE_PARTITION_SETTINGS_H_

#include <string>
#include <string_view>

#include "base/status.h"
#include "gantry/v1/node.pb.h"

namespace gantry::state {

struct ClusterState;

// Sets what `key` (any catalog spelling: spec/slurm_keys.h) names in `partition` from `value`,
// which the caller has checked (spec validation, CheckPartitionSetting). Not Nodes and Default:
// ApplyPartitionSetting handles those, which concern other partitions and the nodes too.
void SetPartitionKey(std::string_view key, const std::string& value, v1::Partition* partition);

// For scontrol update: the canonical spelling of `key` when an operator may change it, its value
// checked with the catalog's rule. Errors (InvalidArgument):
//   "Update of this parameter is not supported: Foo=1"
//   "Invalid input: MaxTime=soon: \"soon\" is not a Slurm time (...)"
Result<std::string> CheckPartitionSetting(std::string_view key, std::string_view value);

// Applies one checked setting (canonical key) to `state`'s partition number `p`: Nodes (a
// hostlist of known nodes; the nodes' partition lists follow), Default=YES (this partition
// becomes the default, the others not) or NO, and the rest through SetPartitionKey. Errors:
// InvalidArgument for a Nodes list that does not parse or names an unknown node.
Status ApplyPartitionSetting(ClusterState* state, int p, const std::string& key,
                             const std::string& value);

// Recomputes which partitions each node is in from the partitions' node lists.
void RefreshPartitionMembers(ClusterState* state);

}  // namespace gantry::state

#endif  // GANTRY_STATE_PARTITION_SETTINGS_H_
