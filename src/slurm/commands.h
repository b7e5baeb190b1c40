// The Slurm-compatible commands of Gantry: sbatch, squeue, scancel, sinfo, scontrol and sacct, each
// a function from its arguments (without the program name) and a CommandContext to the process exit
// code, writing to ctx.out / ctx.err exactly what Slurm 22.05 writes for the same input (texts and
// exit codes pinned by tests/golden/cmd-*.txt and the reference outputs).
//
// gantry-slurm is one multi-call binary: RunSlurmCommand dispatches on the command name
// (basename of argv[0], or the first argument when invoked as gantry-slurm).
#ifndef GANTRY_SLURM_COMMANDS_H_
#define GANTRY_SLURM_COMMANDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "slurm/command_context.h"

namespace gantry::slurm {

int RunSbatch(const std::vector<std::string>& args, CommandContext& ctx);
int RunSqueue(const std::vector<std::string>& args, CommandContext& ctx);
int RunScancel(const std::vector<std::string>& args, CommandContext& ctx);
int RunSinfo(const std::vector<std::string>& args, CommandContext& ctx);
int RunScontrol(const std::vector<std::string>& args, CommandContext& ctx);
int RunSacct(const std::vector<std::string>& args, CommandContext& ctx);
// sacctmgr: accounts, users, associations, QOS (sacctmgr.cc).
int RunSacctmgr(const std::vector<std::string>& args, CommandContext& ctx);
// sreport: usage reports (sreport.cc).
int RunSreport(const std::vector<std::string>& args, CommandContext& ctx);
// sprio: pending jobs' priority factors (sprio.cc).
int RunSprio(const std::vector<std::string>& args, CommandContext& ctx);
// sshare: the fair-share tree (sshare.cc).
int RunSshare(const std::vector<std::string>& args, CommandContext& ctx);
// sdiag: the controller's statistics (sdiag.cc).
int RunSdiag(const std::vector<std::string>& args, CommandContext& ctx);
// srun: a job step's tasks through the agents, in a job's allocation or one of its own (srun.cc).
int RunSrun(const std::vector<std::string>& args, CommandContext& ctx);
// salloc: an interactive allocation running a command (salloc.cc).
int RunSalloc(const std::vector<std::string>& args, CommandContext& ctx);
// `gantry explain JOBID` (slurm/explain.h); `gantry` runs it as `gantry-slurm explain`.
int RunExplain(const std::vector<std::string>& args, CommandContext& ctx);
// `gantry nodes health [-v] [NODES]`: each node's last health checks (nodes_health.cc);
// `gantry` runs it as `gantry-slurm nodes-health`.
int RunNodesHealth(const std::vector<std::string>& args, CommandContext& ctx);

// `name` is "sbatch", "squeue", "scancel", "sinfo", "scontrol" or "sacct"; anything else prints the
// list of commands and returns 2.
int RunSlurmCommand(std::string_view name, const std::vector<std::string>& args,
                    CommandContext& ctx);

// main() of gantry-slurm: picks the command from argv[0]'s basename, or from argv[1] when
// argv[0] is gantry-slurm (or gantry-slurm-remote) itself, and runs it in the real process
// context. When the controller needs the gRPC transport and this process has none registered
// (SetRemoteConnector), it first execs gantry-slurm-remote beside this binary with the same
// arguments.
int SlurmMain(int argc, char** argv);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_COMMANDS_H_
