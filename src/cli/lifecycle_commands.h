// `gantry up|down|status|env`: run a local cluster's daemons and point the Slurm commands at it.
#ifndef GANTRY_CLI_LIFECYCLE_COMMANDS_H_
#define GANTRY_CLI_LIFECYCLE_COMMANDS_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gantry::cli {

// Whether `command` is one of up, down, status, env.
bool IsLifecycleCommand(const std::string& command);

// args excludes the command. Exit codes: 0 ok; 1 failed (a daemon did not start, no cluster);
// 2 usage error; `status`: 3 when gantryd or an agent is not running (as systemctl status).
int RunLifecycleCommand(const std::string& command, const std::vector<std::string>& args,
                        std::ostream& out, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_LIFECYCLE_COMMANDS_H_
