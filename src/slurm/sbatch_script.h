// Batch scripts as sbatch 22.05 reads them.
//
// CheckBatchScript refuses what sbatch refuses, with its texts (each line printed after
// "sbatch: error: "): an empty script ("Batch script is empty!"), one of only white space
// ("Batch script contains only whitespace!"), one not starting with "#!" (three lines) and one
// with DOS line breaks (two lines).
//
// ScanDirectives collects the arguments of the "#SBATCH" lines (and "#SLURM", with a warning) that
// come before the first line that is neither blank nor a comment. The magic word must start the
// line; what follows is split like sbatch's _get_argument: white space separates arguments,
// single and double quotes group (and are removed), a backslash escapes the next character, an
// unescaped '#' ends the line; an empty quoted argument ("") ends the line too, as in Slurm. An
// unmatched quote is fatal: "<file>: line <n>: Unmatched `<q>` in [<rest of line>]".
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SBATCH_SCRIPT_H_
#define GANTRY_SLURM_SBATCH_SCRIPT_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::slurm {

// Empty when the script is acceptable, else the error lines.
std::vector<std::string> CheckBatchScript(std::string_view script);

struct Directives {
  std::vector<std::string> args;      // as getopt will see them
  std::vector<std::string> warnings;  // lines printed after "sbatch: error: " (Slurm's level)
};

// `file` names the script in the unmatched-quote error: the path as given on the command line
// ("(null)" for stdin, as Slurm prints it).
Result<Directives> ScanDirectives(std::string_view script, std::string_view file);

// The script sbatch --wrap builds.
std::string WrapScript(std::string_view command);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SBATCH_SCRIPT_H_
