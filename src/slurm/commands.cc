#include "slurm/commands.h"

#include <ostream>

namespace gantry::slurm {
namespace {

constexpr char kCommandList[] =
    "usage: gantry-slurm <command> [args]   (or run it as sbatch, squeue, scancel, sinfo, "
    "scontrol)\n"
    "commands: sbatch squeue scancel sinfo scontrol\n";

std::string BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

int RunSlurmCommand(std::string_view name, const std::vector<std::string>& args,
                    CommandContext& ctx) {
  if (name == "sbatch") return RunSbatch(args, ctx);
  if (name == "squeue") return RunSqueue(args, ctx);
  if (name == "scancel") return RunScancel(args, ctx);
  if (name == "sinfo") return RunSinfo(args, ctx);
  if (name == "scontrol") return RunScontrol(args, ctx);
  *ctx.err << "gantry-slurm: unknown command \"" << name << "\"\n" << kCommandList;
  return 2;
}

int SlurmMain(int argc, char** argv) {
  std::string argv0 = argc > 0 ? argv[0] : "gantry-slurm";
  std::string name = BaseName(argv0);
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (name == "gantry-slurm") {
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
