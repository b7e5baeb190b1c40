// Starting, stopping and inspecting a local cluster's daemons (`gantry up/down/status`, and the
// restart `gantry cluster update` does on a running cluster). The daemons' flags and files are
// fixed in docs/design/running-cluster.md ("Contracts between the pieces").
//
// Up (idempotent; starts only what is not running). First the cluster's certificates
// (tls/cluster_tls.h) are made where missing or near their end.
//  1. gantryd, unless run/gantryd.pid names a live `gantryd --state-dir DIR` process:
//     `gantryd --state-dir DIR --listen 127.0.0.1:0` detached (logs/gantryd.log), then waits
//     until DIR/gantryd.addr exists and Controller.Ping answers on DIR/gantryd.sock. When agents
//     still run (gantryd died or is restarted), it listens on the address they were given
//     (their --controller) so that they reconnect; if that fails it takes a new port.
//  2. one `gantry-agent --node N --controller ADDR --ca-file DIR/tls/ca.crt --cert-file
//     DIR/tls/node-N.crt --cert-key-file DIR/tls/node-N.key --spool DIR/spool/N --metrics
//     127.0.0.1:0` (its metrics URL in DIR/spool/N/metrics.url) per compute
//     node whose run/agent-N.pid names no live agent for that spool (an agent given another
//     controller address or no certificate is restarted), then waits until the controller
//     reports each started node registered (GetNodes: address set and boot_time or
//     last_heartbeat not older than the start); when the controller cannot report nodes, the
//     agents only need to stay alive for `agent_settle`.
//  3. gantry-restd (rest/restd.h) unless run/restd.pid names a live one for this gantry.conf:
//     on DIR/run/restd.sock and HTTPS on 127.0.0.1:0 with DIR/tls/rest.crt (issued by the
//     cluster's CA for "localhost"); waits until it wrote its URL to DIR/run/restd.url.
//  A daemon that exits while starting fails Up with the end of what it logged.
// Down: SIGTERM to gantry-restd, to every agent with a pid file, then gantryd; SIGKILL after
// `stop_timeout`;
//  removes the pid files and gantryd.addr. Everything else stays.
// A pid file whose process is alive but is not the expected daemon (argv checked through
// /proc/PID/cmdline) counts as dead.
//
// Progress goes to `out`, one line per daemon. Thread-compatible: one call at a time per state
// dir (two concurrent `gantry up` may both start a daemon).
#ifndef GANTRY_CLUSTER_LIFECYCLE_H_
#define GANTRY_CLUSTER_LIFECYCLE_H_

#include <sys/types.h>

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "cluster/cluster_files.h"
#include "cluster/environment.h"
#include "cluster/state_dir.h"

namespace gantry::cluster {

inline constexpr char kGantrydName[] = "gantryd";
inline constexpr char kAgentName[] = "gantry-agent";
inline constexpr char kRestdName[] = "gantry-restd";
inline constexpr char kEtcdName[] = "etcd";

struct LifecycleOptions {
  std::chrono::milliseconds start_timeout = std::chrono::seconds(30);
  std::chrono::milliseconds stop_timeout = std::chrono::seconds(30);
  std::chrono::milliseconds poll = std::chrono::milliseconds(100);
  // How long started agents must stay alive when the controller cannot report registrations.
  std::chrono::milliseconds agent_settle = std::chrono::seconds(1);
  std::chrono::milliseconds rpc_timeout = std::chrono::seconds(2);
};

Status Up(const Cluster& cluster, const Environment& env, const LifecycleOptions& options,
          std::ostream& out);

Status Down(const StateDir& dir, const LifecycleOptions& options, std::ostream& out);

// After `gantry cluster update` wrote the new spec: when gantryd runs, stops the agents of
// removed nodes and of nodes whose pool changed (resources, machine type, node config),
// restarts gantryd on its address (so the other agents reconnect) and starts the agents of
// added and changed nodes (Up). Does nothing, and says so, when gantryd is not running.
Status RestartForUpdate(const Cluster& before, const Cluster& after, const Environment& env,
                        const LifecycleOptions& options, std::ostream& out);

// Down, then removes the whole state dir. Refuses a folder without spec.json.
Status DeleteCluster(const StateDir& dir, const LifecycleOptions& options, std::ostream& out);

// What runs, for `gantry status`, `gantry cluster get/list`.
struct AgentStatus {
  std::string node;
  pid_t pid = 0;  // 0 when not running
  // The node's state as the controller reports it ("IDLE", "DOWN*"), empty when unknown.
  std::string controller_state;
  bool expected = true;  // false: a pid file for a node the spec no longer has
};

// A replicated cluster's gantryd or etcd member (replicas.h).
struct ReplicaStatus {
  std::string name;
  std::string address;  // the controller's, or the member's client address
  pid_t pid = 0;        // 0 when not running
  std::string role;     // gantryd: "leader", "standby", "not answering"; "" when not asked
};

struct ClusterStatus {
  // The one gantryd; for replicated controllers, the leader (when asked) or a live replica.
  pid_t gantryd_pid = 0;        // 0 when not running
  std::string gantryd_address;  // DIR/gantryd.addr
  pid_t restd_pid = 0;          // gantry-restd; 0 when not running
  std::string rest_url;         // its HTTPS URL (DIR/run/restd.url)
  Status ping;                  // Ping over the socket (only tried when gantryd runs)
  std::vector<AgentStatus> agents;
  Status nodes;                         // GetNodes (only tried when Ping answered)
  std::vector<ReplicaStatus> replicas;  // replicated controllers only
  std::vector<ReplicaStatus> etcd;      // their etcd members

  int RunningAgents() const;
  int ExpectedAgents() const;
  bool AllRunning() const;   // gantryd answers and every compute node's agent runs
  bool NoneRunning() const;  // no daemon process at all
};

// Looks at pid files and processes; asks the controller only when `ask_controller`.
ClusterStatus InspectCluster(const Cluster& cluster, bool ask_controller,
                             std::chrono::milliseconds rpc_timeout);

// The pid of the state dir's live gantryd / the node's live agent, if any.
std::optional<pid_t> LiveGantryd(const StateDir& dir);
std::optional<pid_t> LiveAgent(const StateDir& dir, const std::string& node);
std::optional<pid_t> LiveRestd(const StateDir& dir);
// gantry-restd's HTTPS URL (DIR/run/restd.url), once it listens.
std::optional<std::string> ReadRestUrl(const StateDir& dir);
// gantryd's metrics URL (DIR/run/metrics.url), once it listens.
std::optional<std::string> ReadMetricsUrl(const StateDir& dir);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_LIFECYCLE_H_
