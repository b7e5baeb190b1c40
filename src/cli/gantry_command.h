// The `gantry` command: cluster specs (`gantry spec ...`), local clusters (`gantry cluster ...`)
// and their daemons (`gantry up|down|status|env`).
#ifndef GANTRY_CLI_GANTRY_COMMAND_H_
#define GANTRY_CLI_GANTRY_COMMAND_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace gantry::cli {

// Runs `gantry ARGS...` (args exclude the program name), writing to out/err. Returns the
// process exit code: 0 success, 1 a failed check (invalid spec, refused change) or action,
// 2 usage error, 3 `gantry status` when not everything runs. Questions (cluster delete's
// confirmation) are answered from std::cin, or from `in`.
int RunGantry(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunGantry(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_GANTRY_COMMAND_H_
