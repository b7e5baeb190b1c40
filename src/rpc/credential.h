// Caller identity across hosts (TCP), where the kernel cannot vouch for the peer.
//
// Two credentials, both carried in gRPC call metadata and checked by the server:
//  - Cluster key (x-gantry-cred): "v1:<uid>:<gid>:<unix time>:<nonce>:<hmac>", an HMAC-SHA256
//    with the cluster's secret key (DIR/cluster.key, mode 0600) over the fields and the called
//    method. Whoever can read the key can speak for any uid, so only the controller, the agents
//    (root) and root/the cluster owner's commands hold it, as with slurm's auth/jwt key.
//  - MUNGE (x-gantry-munge): a credential from the local munged (Debian's munge), whose uid/gid
//    the server's munged decodes. Any user can get one for themselves; this is how remote users'
//    commands prove who they are.
// A credential is valid for kCredentialTtlSeconds either side of the server's clock.
//
// Thread-safety: all functions are thread-safe.
#ifndef GANTRY_RPC_CREDENTIAL_H_
#define GANTRY_RPC_CREDENTIAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "rpc/unix_listener.h"

namespace grpc {
class ClientContext;
class ServerContext;
}  // namespace grpc

namespace gantry::rpc {

inline constexpr int64_t kCredentialTtlSeconds = 300;
inline constexpr char kCredentialKey[] = "x-gantry-cred";
inline constexpr char kMungeKey[] = "x-gantry-munge";

struct ClusterKey {
  std::string bytes;  // the secret, 32 bytes
};

// Reads a key file: 64 hex characters (whitespace around them ignored). Errors name the path
// and the rule (missing, wrong length, not hex, readable by group/others).
Result<ClusterKey> LoadClusterKey(const std::string& path);
// 32 random bytes from the kernel, as the 64 hex characters a key file holds (with "\n").
Result<std::string> NewClusterKeyText();

// Signs a credential for (uid, gid, now, method). Exposed for tests; callers use
// AttachCredential.
std::string SignCredential(const ClusterKey& key, uint32_t uid, uint32_t gid, int64_t now,
                           std::string_view method);
// Checks a credential for `method` at `now`; returns who it speaks for.
Result<PeerIdentity> CheckCredential(const ClusterKey& key, std::string_view credential,
                                     int64_t now, std::string_view method);

// Adds a cluster-key credential for this process's real uid/gid to a call. The method is not
// known to the client context, so the signature covers the empty method ("" on both sides);
// the nonce and time still make each credential distinct.
void AttachCredential(grpc::ClientContext* context, const ClusterKey& key);
// Adds a MUNGE credential from the local munged. Errors when munged cannot be reached.
Status AttachMungeCredential(grpc::ClientContext* context);

// The caller of a server call from its metadata: a cluster-key credential, else a MUNGE
// credential. Errors (kPermissionDenied) name what was wrong: missing, malformed, bad
// signature, expired, munge's own message.
Result<PeerIdentity> VerifyCredential(const grpc::ServerContext& context, const ClusterKey& key);

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_CREDENTIAL_H_
