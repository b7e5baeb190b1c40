// Running the prolog and epilog scripts: as the agent's user (root), in their own session, with
// the job's environment and a timeout, one after the other, stopping at the first failure.
//
// An entry is the path of an executable or, when no file of that name exists and the text starts
// with "#!", an inline script: it is written to `scratch_dir` (mode 0700), run and removed.
// Scripts' stdout is discarded and their stderr goes to the agent's stderr (its log).
// When a script times out its whole process group is SIGKILLed; when it ends, whatever it left
// running in its process group is SIGKILLed too.
//
// Thread-safe: scripts of different jobs may run at the same time.
#ifndef GANTRY_AGENT_SCRIPT_RUNNER_H_
#define GANTRY_AGENT_SCRIPT_RUNNER_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

struct ScriptOutcome {
  bool ok = true;
  // For a failure: "prolog /etc/gantry/prolog.sh: exit status 1",
  // "epilog 2 (inline script): timed out after 300 s", "prolog /nope: no such file".
  std::string message;
};

struct ScriptBatch {
  std::string kind;                  // "prolog" or "epilog", for messages
  std::vector<std::string> entries;  // paths or inline scripts, in order
  std::vector<std::string> env;
  std::chrono::milliseconds timeout{300000};  // per script
  std::string scratch_dir;                    // where inline scripts are written
  std::string tag;                            // unique part of inline script file names ("job12")
};

// Runs every entry in order; the first failure stops the batch.
ScriptOutcome RunScripts(const ScriptBatch& batch);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_SCRIPT_RUNNER_H_
