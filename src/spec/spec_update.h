// Which changes to a running cluster's spec are allowed. As in the managed service, node pools,
// partitions, the login pool and the prolog/epilog scripts can change; the Slurm parameters
// (cluster `config`, the legacy `scheduling`/`accounting` blocks, `node_sets`) are fixed at
// creation unless the policy allows config changes (the service's newer behaviour); identity and
// storage (display_name, network, home_directory_storage, runtime_spec) never change.
// Pure; thread-safe.
#ifndef GANTRY_SPEC_SPEC_UPDATE_H_
#define GANTRY_SPEC_SPEC_UPDATE_H_

#include <string>
#include <vector>

#include "spec/cluster_spec.h"

namespace gantry::spec {

struct UpdatePolicy {
  bool allow_config_changes = false;
};

struct SpecChange {
  enum class Kind { kAdded, kRemoved, kChanged };
  Kind kind = Kind::kChanged;
  // Snake_case path; list items with an id are named by it: node_pools[a4].zone.
  std::string path;
  std::string old_value;  // compact JSON; empty when added
  std::string new_value;  // compact JSON; empty when removed
  bool allowed = true;
  std::string note;  // why refused, or what an allowed change does ("nodes are recreated")

  // One line: "~ path: old -> new", "+ path: new", "- path: old", then "  (refused: ...)".
  std::string ToString() const;
};

// Every difference between two specs, leaf by leaf, in document order.
std::vector<SpecChange> DiffSpecs(const ClusterSpec& before, const ClusterSpec& after,
                                  const UpdatePolicy& policy = {});

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_SPEC_UPDATE_H_
