// The files `gantry cluster create/update` write into a state dir, and reading them back:
// spec.json (canonical JSON, spec_json.h), gantry.conf (Key=Value lines the commands read through
// GANTRY_CONF), cluster.key (64 hex characters from /dev/urandom, mode 0600) and the folders
// run/, logs/, spool/, home/. Layout and gantry.conf keys: docs/design/running-cluster.md.
// Thread-safety: functions touch only the given paths; no shared state.
#ifndef GANTRY_CLUSTER_CLUSTER_FILES_H_
#define GANTRY_CLUSTER_CLUSTER_FILES_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cluster/replicas.h"
#include "cluster/state_dir.h"
#include "spec/cluster_spec.h"
#include "spec/effective_config.h"

namespace gantry::cluster {

// A cluster as its state dir describes it.
struct Cluster {
  StateDir dir;
  spec::ClusterSpec spec;
  spec::EffectiveConfig config;
};

// Reads, parses and validates a spec file. The error (InvalidArgument) holds one line per
// problem, "FILE: path: message", then "FILE: N problems", as `gantry spec validate` prints;
// a file that cannot be read gives another code (NotFound, FailedPrecondition).
Result<spec::ClusterSpec> ReadSpecFile(const std::string& path);

// gantry.conf for the cluster:
//   ClusterName=<name>\nStateDir=DIR\nControllerSocket=DIR/gantryd.sock\n
//   ControllerAddressFile=DIR/gantryd.addr\nKeyFile=DIR/cluster.key\n
// Replicated controllers (replicas.h): CommandSocket, ControllerSocket and ControllerAddress
// list every replica's, comma-separated, instead of the one gantryd's.
std::string RenderGantryConf(std::string_view cluster_name, const StateDir& dir,
                             const Replicas* replicas = nullptr);

// 32 random bytes from /dev/urandom as 64 lower-case hex characters and a newline.
Result<std::string> NewKeyText();

// Creates the cluster in `dir` (the spec must be valid): refuses (AlreadyExists) when the folder
// already holds a cluster or is not empty, (InvalidArgument) when its path is too long for the
// controller socket; creates it and its parents otherwise. On failure
// whatever this call created is removed again.
Result<Cluster> CreateClusterFiles(const spec::ClusterSpec& spec, const StateDir& dir);

// Loads DIR/spec.json and builds its effective configuration.
Result<Cluster> LoadCluster(const StateDir& dir);

// Replaces DIR/spec.json atomically with the canonical form of `spec`.
// Writes gantry.conf for `cluster` again when it differs (a cluster made by an older gantry
// names its sockets where they no longer are).
Status RefreshGantryConf(const StateDir& dir, std::string_view cluster_name,
                         const Replicas* replicas = nullptr);

Status WriteSpecFile(const StateDir& dir, const spec::ClusterSpec& spec);

// The nodes that run an agent: every node of every pool but the login pool, in pool order.
std::vector<std::string> ComputeNodes(const spec::EffectiveConfig& config);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_CLUSTER_FILES_H_
