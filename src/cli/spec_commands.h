// `gantry spec validate|render|diff`: the cluster-spec commands.
#ifndef GANTRY_CLI_SPEC_COMMANDS_H_
#define GANTRY_CLI_SPEC_COMMANDS_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gantry::cli {

// args excludes "spec". Exit codes: 0 ok, 1 invalid spec or refused change, 2 usage error.
int RunSpecCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_SPEC_COMMANDS_H_
