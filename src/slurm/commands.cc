#include "slurm/commands.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>

#include "slurm/client_config.h"
#include "slurm/controller_client.h"

namespace gantry::slurm {
namespace {

constexpr char kRemoteBinary[] = "gantry-slurm-remote";

constexpr char kCommandList[] =
    "usage: gantry-slurm <command> [args]   (or run it as sbatch, squeue, scancel, sinfo, "
    "scontrol, sacct, sacctmgr, sreport, sprio, sshare, sdiag, srun, salloc)\n"
    "commands: sbatch squeue scancel sinfo scontrol sacct sacctmgr sreport sprio sshare sdiag srun "
    "salloc "
    "explain nodes-health\n";

std::string CommandsBaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// True when the controller in effect can only be reached over gRPC (TCP, or no command socket).
// Unreadable config or no endpoint: false, the command itself reports that.
bool ControllerNeedsRemote() {
  const char* env = std::getenv("GANTRY_CONF");
  Result<ClientConfig> config =
      LoadClientConfig(env != nullptr && *env != '\0' ? env : kDefaultGantryConf);
  if (!config.ok()) return false;
  Result<Endpoint> endpoint = ResolveEndpoint(*config);
  return endpoint.ok() && !endpoint->frames;
}

// Replaces this process with gantry-slurm-remote from the same folder, same arguments (argv[0]
// keeps the command's name). Returns only when that fails, after saying why.
void HandOffToRemote(char** argv) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return;
  std::string path(self, static_cast<size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + kRemoteBinary;
  execv(path.c_str(), argv);
  std::fprintf(stderr, "%s: error: cannot run %s: %s\n", argv[0], path.c_str(),
               std::strerror(errno));
}

}  // namespace

int RunSlurmCommand(std::string_view name, const std::vector<std::string>& args,
                    CommandContext& ctx) {
  if (name == "sbatch") return RunSbatch(args, ctx);
  if (name == "squeue") return RunSqueue(args, ctx);
  if (name == "scancel") return RunScancel(args, ctx);
  if (name == "sinfo") return RunSinfo(args, ctx);
  if (name == "scontrol") return RunScontrol(args, ctx);
  if (name == "sacct") return RunSacct(args, ctx);
  if (name == "sacctmgr") return RunSacctmgr(args, ctx);
  if (name == "sreport") return RunSreport(args, ctx);
  if (name == "sprio") return RunSprio(args, ctx);
  if (name == "sshare") return RunSshare(args, ctx);
  if (name == "sdiag") return RunSdiag(args, ctx);
  if (name == "srun") return RunSrun(args, ctx);
  if (name == "salloc") return RunSalloc(args, ctx);
  if (name == "explain") return RunExplain(args, ctx);
  if (name == "nodes-health") return RunNodesHealth(args, ctx);
  *ctx.err << "gantry-slurm: unknown command \"" << name << "\"\n" << kCommandList;
  return 2;
}

int SlurmMain(int argc, char** argv) {
  if (argc > 0 && !HasRemoteConnector() && ControllerNeedsRemote()) HandOffToRemote(argv);
  std::string argv0 = argc > 0 ? argv[0] : "gantry-slurm";
  std::string name = CommandsBaseName(argv0);
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (name == "gantry-slurm" || name == kRemoteBinary) {
    if (args.empty()) {
      CommandContext ctx = SystemContext(argv0);
      *ctx.err << kCommandList;
      return 2;
    }
    name = args[0];
    argv0 = args[0];
    args.erase(args.begin());
  }
  CommandContext ctx = SystemContext(argv0);
  return RunSlurmCommand(name, args, ctx);
}

}  // namespace gantry::slurm
