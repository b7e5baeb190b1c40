// The replicated form of a local cluster (`gantry up --controllers N`, decision 0017): N etcd
// members and N gantryd replicas on this machine, on loopback ports chosen once and kept in
// DIR/replicas.conf, so that every later `gantry up` brings the same ones back:
//   etcd NAME CLIENT_ADDRESS PEER_ADDRESS      (one line per member)
//   controller NAME ADDRESS                    (one line per gantryd)
// '#' starts a comment. Each replica has its own run folder (DIR/run/NAME: its sockets, address
// and pid files) and log (DIR/logs/gantryd-NAME.log); each member its data in DIR/etcd/NAME.
// Thread-safety: pure functions, and file reads and writes of the given paths.
#ifndef GANTRY_CLUSTER_REPLICAS_H_
#define GANTRY_CLUSTER_REPLICAS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cluster/state_dir.h"

namespace gantry::cluster {

struct EtcdMember {
  std::string name;
  std::string client;  // host:port
  std::string peer;    // host:port
};

struct Replica {
  std::string name;
  std::string address;  // host:port: agents and remote commands
};

struct Replicas {
  std::vector<EtcdMember> etcd;
  std::vector<Replica> controllers;

  // "host:port,host:port,..." of the members' clients / the controllers.
  std::string EtcdEndpoints() const;
  std::string ControllerAddresses() const;
};

inline constexpr int kMaxControllers = 7;

std::string ReplicasPath(const StateDir& dir);
std::string ReplicaRunDir(const StateDir& dir, std::string_view name);
std::string ReplicaLog(const StateDir& dir, std::string_view name);
std::string ReplicaPidFile(const StateDir& dir, std::string_view name);
std::string EtcdDataDir(const StateDir& dir, std::string_view name);
std::string EtcdLog(const StateDir& dir, std::string_view name);
std::string EtcdPidFile(const StateDir& dir, std::string_view name);

// `count` (2..kMaxControllers) members and replicas named e1.. and c1.., on loopback ports free
// now. InvalidArgument naming --controllers for another count.
Result<Replicas> NewLocalReplicas(int count);

std::string RenderReplicas(const Replicas& replicas);
// Errors name `path`, the line and what is wrong with it.
Result<Replicas> ParseReplicas(std::string_view text, std::string_view path);
// DIR/replicas.conf; nullopt when the cluster has a single controller (no such file).
Result<std::optional<Replicas>> LoadReplicas(const StateDir& dir);
Status SaveReplicas(const StateDir& dir, const Replicas& replicas);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_REPLICAS_H_
