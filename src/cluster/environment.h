// What the lifecycle commands take from the process environment, as one value so that tests
// can supply their own: the state root ($GANTRY_HOME, else ~/.local/share/gantry), the current
// cluster ($GANTRY_STATE_DIR), where the daemons' binaries are, and PATH.
//
// Daemon binaries (gantryd, gantry-agent) are looked up in $GANTRY_BIN_DIR (tests point it at
// fakes), then next to the running `gantry` (the folder of /proc/self/exe), then on PATH.
// Thread-safety: FromProcess reads the environment (not thread-safe against setenv); the rest
// is pure.
#ifndef GANTRY_CLUSTER_ENVIRONMENT_H_
#define GANTRY_CLUSTER_ENVIRONMENT_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::cluster {

struct Environment {
  std::string gantry_home;       // $GANTRY_HOME
  std::string home;              // $HOME
  std::string gantry_state_dir;  // $GANTRY_STATE_DIR
  std::string gantry_bin_dir;    // $GANTRY_BIN_DIR
  std::string path;              // $PATH
  std::string self_dir;          // folder of the running executable (/proc/self/exe)

  static Environment FromProcess();
};

// $GANTRY_HOME, else $HOME/.local/share/gantry. Errors when neither is set.
Result<std::string> StateRoot(const Environment& env);

// The first executable `name` in $GANTRY_BIN_DIR, self_dir, then PATH. The error names where it
// looked.
Result<std::string> FindBinary(const Environment& env, std::string_view name);

// An absolute path without "."/".." parts, symlinks resolved where they exist, no trailing '/'.
// The one spelling of a state dir, so that pid checks compare like with like.
std::string NormalizePath(std::string_view path);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_ENVIRONMENT_H_
