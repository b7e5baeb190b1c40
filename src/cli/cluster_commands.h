// `gantry cluster create|get|list|update|delete`: a local cluster's state dir (see
// src/cluster/state_dir.h) from its spec.
#ifndef GANTRY_CLI_CLUSTER_COMMANDS_H_
#define GANTRY_CLI_CLUSTER_COMMANDS_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gantry::cli {

// args excludes "cluster"; `in` answers delete's confirmation. Exit codes: 0 ok, 1 failed
// (invalid spec, refused change, cluster exists/missing, declined delete), 2 usage error.
int RunClusterCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                      std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_CLUSTER_COMMANDS_H_
