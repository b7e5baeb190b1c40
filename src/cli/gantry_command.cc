#include "cli/gantry_command.h"

#include <iostream>
#include <ostream>

#include "cli/cluster_commands.h"
#include "cli/explain_command.h"
#include "cli/lifecycle_commands.h"
#include "cli/serve_command.h"
#include "cli/sim_command.h"
#include "cli/spec_commands.h"

namespace gantry::cli {

namespace {

constexpr char kGantryUsage[] =
    "usage: gantry <command> [args]\n"
    "\n"
    "commands:\n"
    "  spec validate FILE...                     check cluster specs; every problem on stderr\n"
    "  spec render FILE [--format FORMAT] [opts]  print the effective configuration\n"
    "                                             FORMAT: slurm.conf (default), gres.conf,\n"
    "                                             json, show-config\n"
    "  spec diff OLD NEW [--allow-config-changes] list changes and whether an update may\n"
    "                                             make them\n"
    "  cluster create --spec FILE [--state-dir DIR]\n"
    "                                             create a local cluster's state dir\n"
    "  cluster get [--format text|json]           show the cluster\n"
    "  cluster list                               list the clusters under the state root\n"
    "  cluster update --spec FILE [--allow-config-changes]\n"
    "                                             change the cluster's spec\n"
    "  cluster delete [--yes]                     stop the cluster and remove its state\n"
    "  up [--spec FILE]                           start gantryd and the node agents\n"
    "  down                                       stop them (the state stays)\n"
    "  status                                     what runs (exit 3 when not everything)\n"
    "  env [--unset]                              shell lines pointing the Slurm commands at\n"
    "                                             the cluster: eval \"$(gantry env)\"\n"
    "  explain JOBID                              why a job waits (or runs, or ended), what\n"
    "                                             would let it run, its expected start\n"
    "  nodes health [-v] [NODES]                  each node's last health checks, and who\n"
    "                                             drained it and why\n"
    "  sim --spec FILE --trace TRACE [opts]       what the cluster would do with a workload\n"
    "                                             (gantry sim --help)\n"
    "  serve [--listen HOST:PORT]                 the clusters over HTTP in the Vertex AI\n"
    "                                             API's shape (gantry serve --help)\n"
    "  version                                    print the version\n"
    "\n"
    "The cluster and lifecycle commands take --state-dir DIR; without it they use\n"
    "$GANTRY_STATE_DIR, else the only cluster under $GANTRY_HOME (default\n"
    "~/.local/share/gantry).\n";

}  // namespace

int RunGantry(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return RunGantry(args, std::cin, out, err);
}

int RunGantry(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    (args.empty() ? err : out) << kGantryUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "version" || args[0] == "--version") {
    out << "gantry 0.1.0\n";
    return 0;
  }
  if (args[0] == "spec") {
    return RunSpecCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (args[0] == "cluster") {
    return RunClusterCommand(std::vector<std::string>(args.begin() + 1, args.end()), in, out, err);
  }
  if (args[0] == "sim") {
    return RunSimCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (args[0] == "serve") {
    return RunServeCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  if (args[0] == "explain") {
    return RunSlurmSideCommand("gantry explain", "explain",
                               std::vector<std::string>(args.begin() + 1, args.end()), err);
  }
  if (args[0] == "nodes" && args.size() >= 2 && args[1] == "health") {
    return RunSlurmSideCommand("gantry nodes health", "nodes-health",
                               std::vector<std::string>(args.begin() + 2, args.end()), err);
  }
  if (IsLifecycleCommand(args[0])) {
    return RunLifecycleCommand(args[0], std::vector<std::string>(args.begin() + 1, args.end()), out,
                               err);
  }
  err << "gantry: unknown command \"" << args[0] << "\"\n" << kGantryUsage;
  return 2;
}

}  // namespace gantry::cli
