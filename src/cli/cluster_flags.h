// Flags shared by `gantry cluster ...`, `up`, `down`, `status` and `env`, and the summaries of
// a cluster several of them print. Flags take their value as `--flag VALUE` or `--flag=VALUE`.
#ifndef GANTRY_CLI_CLUSTER_FLAGS_H_
#define GANTRY_CLI_CLUSTER_FLAGS_H_

#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_files.h"
#include "cluster/lifecycle.h"

namespace gantry::cli {

struct ClusterFlags {
  std::optional<std::string> state_dir;    // --state-dir
  std::optional<std::string> spec;         // --spec
  std::optional<std::string> format;       // --format
  std::optional<std::string> controllers;  // --controllers
  bool yes = false;                        // --yes, -y
  bool allow_config_changes = false;       // --allow-config-changes
  bool unset = false;                      // --unset
};

// Parses `args` accepting only the flags named in `allowed` (spelled "--state-dir", ...) and no
// positional arguments. On error prints "gantry: ..." and `usage` to err and returns false.
bool ParseClusterFlags(const std::vector<std::string>& args,
                       std::initializer_list<std::string_view> allowed, std::string_view usage,
                       ClusterFlags* flags, std::ostream& err);

// "running", "stopped" or "partly running", from processes only.
std::string RunStateWord(const cluster::ClusterStatus& status);

// What `cluster create` and `cluster get` show about a spec: login pool, pools, partitions.
void PrintSpecSummary(const spec::EffectiveConfig& config, std::ostream& out);

// "label              value": the label padded to one column, as `cluster get` and
// `cluster create` print fields.
void PrintField(std::ostream& out, std::string_view label, std::string_view value);

// Prints a Status message as "gantry: <message>" (each line of a multi-line message as is).
void PrintError(const Status& status, std::ostream& err);
// An error of cluster::ReadSpecFile: the validation problems as `gantry spec validate` prints
// them (InvalidArgument), else as PrintError.
void PrintSpecError(const Status& status, std::ostream& err);

}  // namespace gantry::cli

#endif  // GANTRY_CLI_CLUSTER_FLAGS_H_
