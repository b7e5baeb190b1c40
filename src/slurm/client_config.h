// Where the Slurm commands find the controller: the file named by GANTRY_CONF (default
// /etc/gantry/gantry.conf), written by `gantry cluster create` into the state dir.
//
// Format: one Key=Value per line; '#' starts a comment (whole line or after the value); blank
// lines ignored; keys are case-insensitive; white space around keys and values is trimmed.
// Known keys: ClusterName, StateDir, ControllerSocket, ControllerAddress, ControllerAddressFile,
// KeyFile. Unknown keys are ignored (newer writers may add some); a line without '=' is an error
// naming the path and line number.
//
// Resolution (ResolveEndpoint): ControllerSocket when that path exists and is a socket (the
// caller's identity is then the kernel's peer credentials); otherwise TCP to ControllerAddress,
// or to the host:port read from ControllerAddressFile, with a credential on every call (signed by
// KeyFile when the caller can read it, else MUNGE).
#ifndef GANTRY_SLURM_CLIENT_CONFIG_H_
#define GANTRY_SLURM_CLIENT_CONFIG_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::slurm {

inline constexpr char kDefaultGantryConf[] = "/etc/gantry/gantry.conf";

struct ClientConfig {
  std::string path;  // the file it came from
  std::string cluster_name;
  std::string state_dir;
  std::string controller_socket;
  std::string controller_address;  // host:port
  std::string controller_address_file;
  std::string key_file;
};

// Parses the text of a gantry.conf (pure). `path` is used in error messages.
Result<ClientConfig> ParseClientConfig(std::string_view text, std::string_view path);

// Reads and parses the file at `path`. Errors name the path and the reason
// ("cannot read /etc/gantry/gantry.conf: No such file or directory").
Result<ClientConfig> LoadClientConfig(const std::string& path);

// How to reach the controller.
struct Endpoint {
  std::string target;  // gRPC target: "unix:/path" or "host:port"
  bool local = false;  // unix socket: no credential needed
  // The controller's host as commands name it ("Slurmctld(primary) at <host>"); empty for the
  // unix socket (this host).
  std::string host;
};

// Picks the unix socket when it exists, else the TCP address (reading ControllerAddressFile).
// Unavailable when neither is usable (no socket, no address, unreadable address file).
Result<Endpoint> ResolveEndpoint(const ClientConfig& config);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_CLIENT_CONFIG_H_
