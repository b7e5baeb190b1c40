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
namespace {

constexpr char kUsage[] = "usage: gantry explain JOBID [--state-dir DIR]\n";

}  // namespace

int RunExplainCommand(const std::vector<std::string>& args, std::ostream& err) {
  std::optional<std::string> state_dir;
  std::optional<std::string> job;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--state-dir" && i + 1 < args.size()) {
      state_dir = args[++i];
    } else if (a.starts_with("--state-dir=")) {
      state_dir = a.substr(12);
    } else if (!a.starts_with("-") && !job) {
      job = a;
    } else {
      err << "gantry explain: unexpected argument \"" << a << "\"\n" << kUsage;
      return 2;
    }
  }
  if (!job) {
    err << kUsage;
    return 2;
  }
  const cluster::Environment env = cluster::Environment::FromProcess();
  if (state_dir || std::getenv("GANTRY_CONF") == nullptr) {
    Result<cluster::StateDir> dir = cluster::ResolveStateDir(state_dir, env);
    if (!dir.ok()) {
      err << "gantry explain: " << dir.status().message() << "\n";
      return 1;
    }
    setenv("GANTRY_CONF", dir->conf().c_str(), 1);
  }
  Result<std::string> binary = cluster::FindBinary(env, "gantry-slurm");
  if (!binary.ok()) {
    err << "gantry explain: " << binary.status().message() << "\n";
    return 1;
  }
  std::vector<char*> argv = {const_cast<char*>("gantry-slurm"), const_cast<char*>("explain"),
                             job->data(), nullptr};
  execv(binary->c_str(), argv.data());
  err << "gantry explain: cannot run " << *binary << "\n";
  return 1;
}

}  // namespace gantry::cli
