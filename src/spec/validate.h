// Whole-spec validation: every rule that relates fields to each other or to the catalogs, with
// every problem reported at once, each under its JSON path, naming the value and the rule:
//   orchestrator_spec.slurm_spec.partitions[1].node_pool_ids[0]: unknown node pool "a5"
//   (known: login, a4, cpu)
// Pure; thread-safe.
#ifndef GANTRY_SPEC_VALIDATE_H_
#define GANTRY_SPEC_VALIDATE_H_

#include <optional>
#include <string_view>

#include "spec/cluster_spec.h"
#include "spec/diagnostics.h"

namespace gantry::spec {

Diagnostics ValidateClusterSpec(const ClusterSpec& spec);

// Parse + validate in one call. Holds the spec when it parsed, and the diagnostics of both
// stages; a validation problem at a path the parser already reported (a field of the wrong
// type then looks missing) is left out.
struct CheckedSpec {
  std::optional<ClusterSpec> spec;
  Diagnostics diagnostics;
  bool ok() const { return spec && diagnostics.empty(); }
};
CheckedSpec CheckSpecText(std::string_view json_text);

// RFC 1034 label, lower case: starts with a letter, then letters, digits or '-', not ending
// with '-', at most 63 characters.
bool IsValidId(std::string_view id);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_VALIDATE_H_
