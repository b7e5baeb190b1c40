// `gantry explain JOBID [--state-dir DIR]`: points the Slurm commands at the cluster (GANTRY_CONF
// from --state-dir, else the one already set, else the only cluster under $GANTRY_HOME) and
// replaces this process with `gantry-slurm explain JOBID` (src/slurm/explain.h), found like the
// daemons (FindBinary). Returns only on error: 2 for bad usage, 1 otherwise.
#ifndef GANTRY_CLI_EXPLAIN_COMMAND_H_
#define GANTRY_CLI_EXPLAIN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace gantry::cli {

int RunExplainCommand(const std::vector<std::string>& args, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_EXPLAIN_COMMAND_H_
