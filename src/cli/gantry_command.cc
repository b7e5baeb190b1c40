#include "cli/gantry_command.h"

#include <ostream>

#include "cli/spec_commands.h"

namespace gantry::cli {

namespace {

constexpr char kUsage[] =
    "usage: gantry <command> [args]\n"
    "\n"
    "commands:\n"
    "  spec validate FILE...                     check cluster specs; every problem on stderr\n"
    "  spec render FILE [--format FORMAT] [opts]  print the effective configuration\n"
    "                                             FORMAT: slurm.conf (default), gres.conf,\n"
    "                                             json, show-config\n"
    "  spec diff OLD NEW [--allow-config-changes] list changes and whether an update may\n"
    "                                             make them\n"
    "  version                                    print the version\n";

}  // namespace

int RunGantry(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    out << "gantry 0.1.0\n";
    return 0;
  }
  if (args[0] == "spec") {
    return RunSpecCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  err << "gantry: unknown command \"" << args[0] << "\"\n" << kUsage;
  return 2;
}

}  // namespace gantry::cli
