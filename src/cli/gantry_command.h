// The `gantry` command: cluster specs now; cluster lifecycle in later issues.
#ifndef GANTRY_CLI_GANTRY_COMMAND_H_
#define GANTRY_CLI_GANTRY_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gantry::cli {

// Runs `gantry ARGS...` (args exclude the program name), writing to out/err. Returns the
// process exit code: 0 success, 1 a failed check (invalid spec, refused change), 2 usage error.
int RunGantry(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_GANTRY_COMMAND_H_
