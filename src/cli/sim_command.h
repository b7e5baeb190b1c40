// `gantry sim`: what a cluster would do with a workload, computed by gantryd's own core on a
// simulated clock (src/sim). Usage in kUsage (sim_command.cc); exit 0, 2 for bad usage, 1 when
// an input cannot be read or does not hold together (the message names the file, the field and
// the rule).
#ifndef GANTRY_CLI_SIM_COMMAND_H_
#define GANTRY_CLI_SIM_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace gantry::cli {

int RunSimCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_SIM_COMMAND_H_
