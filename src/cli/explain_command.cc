#include "cli/explain_command.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cluster/environment.h"
#include "cluster/state_dir.h"

namespace gantry::cli {

int RunSlurmSideCommand(const std::string& what, const std::string& subcommand,
                        const std::vector<std::string>& args, std::ostream& err) {
  std::optional<std::string> state_dir;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--state-dir") {
      if (i + 1 >= args.size()) {
        err << what << ": --state-dir: missing value\n";
        return 2;
      }
      state_dir = args[++i];
    } else if (a.starts_with("--state-dir=")) {
      state_dir = a.substr(12);
    } else {
      rest.push_back(a);
    }
  }
  const cluster::Environment env = cluster::Environment::FromProcess();
  if (state_dir || std::getenv("GANTRY_CONF") == nullptr) {
    Result<cluster::StateDir> dir = cluster::ResolveStateDir(state_dir, env);
    if (!dir.ok()) {
      err << what << ": " << dir.status().message() << "\n";
      return 1;
    }
    setenv("GANTRY_CONF", dir->conf().c_str(), 1);
  }
  Result<std::string> binary = cluster::FindBinary(env, "gantry-slurm");
  if (!binary.ok()) {
    err << what << ": " << binary.status().message() << "\n";
    return 1;
  }
  std::vector<char*> argv = {const_cast<char*>("gantry-slurm"),
                             const_cast<char*>(subcommand.c_str())};
  for (std::string& a : rest) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(binary->c_str(), argv.data());
  err << what << ": cannot run " << *binary << "\n";
  return 1;
}

}  // namespace gantry::cli
