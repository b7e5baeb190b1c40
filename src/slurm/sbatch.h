// sbatch's submission request, built from the merged options, the script and the caller's
// process (pure, for tests); RunSbatch (commands.h) drives it.
//
// What sbatch sends besides the options:
//  * request.name: -J, else the script's base name, "wrap" for --wrap, "sbatch" for stdin;
//  * request.command: the script's absolute path ("" for stdin and --wrap: Command=(null));
//  * request.submit_dir: the cwd; request.work_dir: -D made absolute, else the cwd;
//  * request.submit_host (short host name), request.alloc_sid (getsid);
//  * request.export_env and payload.export_spec: --export as given, "ALL" when unset;
//  * payload.environment: with ALL the whole environment; with NONE only SLURM_* variables; with
//    a list the SLURM_* variables plus the named ones (NAME takes the caller's value, NAME=value
//    sets it; ALL in the list keeps everything). sbatch first adds SLURM_PRIO_PROCESS,
//    SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST, SLURM_UMASK (unless set) and, when --export was given,
//    SLURM_EXPORT_ENV, as Slurm does;
//    --export-file's definitions are added after that, whatever --export says;
//  * request.open_append: --open-mode=append;
//  * payload.script and payload.argv (the script's arguments).
#ifndef GANTRY_SLURM_SBATCH_H_
#define GANTRY_SLURM_SBATCH_H_

#include <string>
#include <vector>

#include "gantry/v1/controller.pb.h"
#include "slurm/command_context.h"
#include "slurm/sbatch_options.h"

namespace gantry::slurm {

struct BatchScript {
  std::string text;
  std::string path;               // as given; empty for stdin and --wrap
  std::vector<std::string> args;  // after the path
  bool wrap = false;
};

v1::SubmitJobRequest BuildSubmitRequest(const SbatchOptions& options, const BatchScript& script,
                                        const CommandContext& ctx);

// The environment the job gets (see above), "K=V" each, in the caller's order.
std::vector<std::string> BatchEnvironment(const std::vector<std::string>& environment,
                                          const std::string& export_spec);

// The definitions in an --export-file's content: NAME=value entries separated by NUL bytes, or
// by newlines when the content has no NUL; entries without '=' or a name are skipped.
std::vector<std::string> ParseExportFile(std::string_view content);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SBATCH_H_
