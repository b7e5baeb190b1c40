// A cluster's state dir and how commands find it (docs/design/running-cluster.md, "Contracts
// between the pieces"):
//   DIR/spec.json  gantry.conf  cluster.key  state.db
//   DIR/run/gantryd.sock  DIR/run/commands.sock  DIR/run/gantryd.addr
//   DIR/run/gantryd.pid  DIR/run/agent-<node>.pid  DIR/logs/gantryd.log  DIR/logs/agent-<node>.log
//   DIR/spool/<node>/  DIR/home/  DIR/tls/ (the cluster's CA and certificates, tls/cluster_tls.h)
// Who may read what (SecureStateDir): DIR is 0711, so other users reach only what they are
// told the name of; spec.json (it may hold a database password), cluster.key, state.db* (every
// job's script and environment) and logs/ are the owner's alone; gantry.conf, run/ (the
// sockets, where identity comes from the kernel), spool/ and home/ are public.
// A folder holds a cluster when it has a spec.json. Clusters live by default under the state
// root (environment.h) as <root>/<cluster name>.
// Thread-safety: pure path arithmetic plus read-only directory listing.
#ifndef GANTRY_CLUSTER_STATE_DIR_H_
#define GANTRY_CLUSTER_STATE_DIR_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cluster/environment.h"

namespace gantry::cluster {

class StateDir {
 public:
  // `dir` is normalized (NormalizePath).
  explicit StateDir(std::string_view dir);

  const std::string& dir() const { return dir_; }
  std::string spec() const { return dir_ + "/spec.json"; }
  std::string conf() const { return dir_ + "/gantry.conf"; }
  std::string key() const { return dir_ + "/cluster.key"; }
  std::string tls() const { return dir_ + "/tls"; }
  std::string socket() const { return run() + "/gantryd.sock"; }           // gRPC
  std::string command_socket() const { return run() + "/commands.sock"; }  // wire/frame.h
  std::string addr_file() const { return run() + "/gantryd.addr"; }
  std::string run() const { return dir_ + "/run"; }
  std::string logs() const { return dir_ + "/logs"; }
  std::string spool() const { return dir_ + "/spool"; }
  std::string home() const { return dir_ + "/home"; }
  std::string gantryd_pid() const { return run() + "/gantryd.pid"; }
  std::string gantryd_log() const { return logs() + "/gantryd.log"; }
  std::string metrics_url_file() const { return run() + "/metrics.url"; }  // gantryd's /metrics
  std::string restd_socket() const { return run() + "/restd.sock"; }       // gantry-restd, local
  std::string restd_url_file() const { return run() + "/restd.url"; }      // its HTTPS URL
  std::string restd_pid() const { return run() + "/restd.pid"; }
  std::string restd_log() const { return logs() + "/restd.log"; }
  std::string agent_pid(std::string_view node) const;
  std::string agent_log(std::string_view node) const;
  std::string agent_spool(std::string_view node) const;

  // OK when DIR/run/commands.sock (the longer socket path) fits a unix socket address (107 bytes);
  // else InvalidArgument naming the path.
  Status CheckSocketPath() const;

  // Makes the folders and sets the modes of the header comment on what exists (a cluster made
  // by an older gantry gets them at its next `gantry up`); removes sockets and the address file
  // left at their old places in DIR. Unavailable naming the path it could not change.
  Status Secure() const;

  // Whether spec.json exists.
  bool HoldsCluster() const;
  // Nodes with a pid file in run/ (agent-<node>.pid), sorted.
  std::vector<std::string> NodesWithPidFiles() const;

 private:
  std::string dir_;
};

// Folders directly under `root` that hold a cluster, sorted by path.
std::vector<std::string> ListClusterDirs(const std::string& root);

// The state dir a command acts on: --state-dir when given, else $GANTRY_STATE_DIR, else the only
// cluster under the root. Errors (FailedPrecondition) when none or several are found, listing
// them and asking for --state-dir; or when the chosen dir holds no cluster.
Result<StateDir> ResolveStateDir(const std::optional<std::string>& flag, const Environment& env);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_STATE_DIR_H_
