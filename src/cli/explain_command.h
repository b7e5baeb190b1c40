// The gantry commands that are Slurm-command-side work: `gantry explain JOBID` and `gantry nodes
// health [-v] [NODES]`, each with an optional --state-dir DIR. Points the Slurm commands at the
// cluster (GANTRY_CONF from --state-dir, else the one already set, else the only cluster under
// $GANTRY_HOME) and replaces this process with `gantry-slurm SUBCOMMAND ARGS...`
// (src/slurm/explain.h, src/slurm/nodes_health.cc), found like the daemons (FindBinary).
// Returns only on error: 2 for bad usage, 1 otherwise.
#ifndef GANTRY_CLI_EXPLAIN_COMMAND_H_
#define GANTRY_CLI_EXPLAIN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace gantry::cli {

// `what` names the command in messages ("gantry explain"); `subcommand` is gantry-slurm's.
int RunSlurmSideCommand(const std::string& what, const std::string& subcommand,
                        const std::vector<std::string>& args, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_EXPLAIN_COMMAND_H_
