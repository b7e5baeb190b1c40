// Where the Slurm commands find the controller: the file named by GANTRY_CONF (default
// /etc/gantry/gantry.conf), written by `gantry cluster create` into the state dir.
//
// Format: one Key=Value per line; '#' starts a comment (whole line or after the value); blank
// lines ignored; keys are case-insensitive; white space around keys and values is trimmed.
// Known keys: ClusterName, StateDir, CommandSocket, ControllerSocket, ControllerAddress,
// ControllerAddressFile, KeyFile, CaFile. Unknown keys are ignored (newer writers may add some); a
// line without '=' is an error naming the path and line number.
//
// Resolution (ResolveEndpoint): CommandSocket when that path exists and is a socket (the local
// command protocol, wire/frame.h), else ControllerSocket likewise (gRPC); on both the caller's
// identity is the kernel's peer credentials. Otherwise TCP to ControllerAddress,
// or to the host:port read from ControllerAddressFile, over TLS that trusts only CaFile (the
// cluster's CA), with a credential bound to each call (signed by KeyFile when the caller can read
// it, else MUNGE).
#ifndef GANTRY_SLURM_CLIENT_CONFIG_H_
#define GANTRY_SLURM_CLIENT_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::slurm {

inline constexpr char kDefaultGantryConf[] = "/etc/gantry/gantry.conf";

struct ClientConfig {
  std::string path;  // the file it came from
  std::string cluster_name;
  std::string state_dir;
  std::string command_socket;      // the local command protocol
  std::string controller_socket;   // gRPC
  std::string controller_address;  // host:port
  std::string controller_address_file;
  std::string key_file;
  std::string ca_file;  // the cluster's CA certificate, for TLS to the controller
};

// Parses the text of a gantry.conf (pure). `path` is used in error messages.
Result<ClientConfig> ParseClientConfig(std::string_view text, std::string_view path);

// Reads and parses the file at `path`. Errors name the path and the reason
// ("cannot read /etc/gantry/gantry.conf: No such file or directory").
Result<ClientConfig> LoadClientConfig(const std::string& path);

// How to reach the controller.
struct Endpoint {
  std::string target;  // the command socket's path, or a gRPC target: "unix:/path", "host:port"
  bool local = false;  // unix socket: no credential needed
  // The controller's host as commands name it ("Slurmctld(primary) at <host>"); empty for the
  // unix socket (this host).
  std::string host;
  bool frames = false;  // the command socket (no gRPC needed)
};

// Every way to the controllers, in the order to try them: the command sockets when one of them
// exists, else the gRPC sockets likewise, else the TCP addresses (ControllerAddress, or the
// first line of ControllerAddressFile). Replicated controllers (decision 0017): each key may
// list every replica's, comma-separated. Empty when none is usable.
std::vector<Endpoint> ResolveEndpoints(const ClientConfig& config);
// The first of them; Unavailable when there is none (no socket, no address, unreadable
// address file).
Result<Endpoint> ResolveEndpoint(const ClientConfig& config);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_CLIENT_CONFIG_H_
