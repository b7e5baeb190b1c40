// Caller identity for commands that reach the controller over TCP, where the kernel cannot vouch
// for the peer. (Controller and agents prove themselves to each other with their certificates,
// tls/cluster_tls.h; these credentials are for the Slurm commands.)
//
// A credential authorizes one call: it is bound to the call's method (the request message's type),
// its audience (the cluster it is meant for) and a SHA-256 of its body (the request serialized
// deterministically), expires kCredentialTtlSeconds either side of the server's clock, and is
// accepted once (CredentialVerifier keeps what it accepted until it expires). A credential taken
// off the wire can therefore not be replayed, nor reused for another call, cluster or body.
// Two kinds, both carried in gRPC call metadata:
//  - Cluster key (x-gantry-cred): "v2:<uid>:<gid>:<unix time>:<nonce>:<hmac>", an HMAC-SHA256
//    with the cluster's secret key (DIR/cluster.key, mode 0600) over those fields and the binding.
//    Whoever can read the key can speak for any uid, so only root and the cluster's owner hold it,
//    as with slurm's auth/jwt key.
//  - MUNGE (x-gantry-munge): a credential from the local munged whose payload is the binding;
//    the server's munged decodes the uid/gid (and refuses a replayed credential itself).
//
// Thread-safety: free functions are thread-safe; CredentialVerifier is thread-safe.
#ifndef GANTRY_RPC_CREDENTIAL_H_
#define GANTRY_RPC_CREDENTIAL_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "rpc/replay_cache.h"
#include "rpc/unix_listener.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace grpc {
class ClientContext;
class ServerContext;
}  // namespace grpc

namespace gantry::rpc {

inline constexpr int64_t kCredentialTtlSeconds = 60;
inline constexpr char kCredentialKey[] = "x-gantry-cred";
inline constexpr char kMungeKey[] = "x-gantry-munge";
// The call a credential claims, "<method> <body_sha256>", beside it: so that gantryd can check a
// cluster-key credential before it reads the request (rpc/call_gate.h).
inline constexpr char kCallKey[] = "x-gantry-call";

struct ClusterKey {
  std::string bytes;  // the secret, 32 bytes
};

// What one credential authorizes.
struct CallBinding {
  std::string method;       // the request message's full type name, "gantry.v1.SubmitJobRequest"
  std::string audience;     // the cluster's name
  std::string body_sha256;  // hex SHA-256 of the request serialized deterministically
};
// The binding of `request` for `audience`; client and server compute it alike.
CallBinding BindCall(const google::protobuf::Message& request, std::string_view audience);
// The x-gantry-call header for `call`, and back (for `audience`); nullopt when malformed.
std::string CallHeader(const CallBinding& call);
std::optional<CallBinding> ParseCallHeader(std::string_view header, std::string_view audience);

// Reads a key file: 64 hex characters (whitespace around them ignored). Errors name the path
// and the rule (missing, wrong length, not hex, readable by group/others).
Result<ClusterKey> LoadClusterKey(const std::string& path);
// 32 random bytes from the kernel, as the 64 hex characters a key file holds (with "\n").
Result<std::string> NewClusterKeyText();

// Signs a credential for (uid, gid, now, call). Exposed for tests; callers use AttachCredential.
std::string SignCredential(const ClusterKey& key, uint32_t uid, uint32_t gid, int64_t now,
                           const CallBinding& call);
// Checks a credential's form, signature, binding and age at `now` (not whether it was seen
// before: CredentialVerifier does that).
struct CheckedCredential {
  PeerIdentity who;
  std::string nonce;
  int64_t signed_at = 0;
};
Result<CheckedCredential> CheckCredential(const ClusterKey& key, std::string_view credential,
                                          int64_t now, const CallBinding& call);

// Adds a cluster-key credential for this process's real uid/gid and `call` to a call.
void AttachCredential(grpc::ClientContext* context, const ClusterKey& key, const CallBinding& call);
// Adds a MUNGE credential for `call` from the local munged. Errors when munged cannot be reached.
Status AttachMungeCredential(grpc::ClientContext* context, const CallBinding& call);

// The server side: the caller of a call from its metadata (a cluster-key credential, else a
// MUNGE credential), refusing credentials already accepted. Errors (kPermissionDenied) name what
// was wrong: missing, malformed, bad signature, other call, expired, replayed, munge's message.
class CredentialVerifier {
 public:
  explicit CredentialVerifier(ClusterKey key) : key_(std::move(key)) {}
  Result<PeerIdentity> Verify(const grpc::ServerContext& context, const CallBinding& call,
                              int64_t now);
  // Checks one cluster-key credential (the part of Verify that needs no gRPC context).
  Result<PeerIdentity> VerifyKeyCredential(std::string_view credential, const CallBinding& call,
                                           int64_t now);
  // For the gate (rpc/call_gate.h), before the request is read: decodes a MUNGE credential with
  // munged, which accepts each credential once, and checks it was made for `claimed`. What munged
  // said is kept for the same call's Verify (at most kCredentialTtlSeconds, kMaxPrechecked calls).
  // Errors (PermissionDenied): munge's message, another call; ResourceExhausted when that many
  // calls wait for their handlers.
  Status PrecheckMunge(std::string_view credential, const CallBinding& claimed, int64_t now);
  static constexpr size_t kMaxPrechecked = 4096;

 private:
  struct Decoded {
    PeerIdentity who;
    std::string payload;  // the binding the credential was made for
    int64_t expires = 0;
  };
  // The gate's decoding of `credential` (taken: it serves one call), else munged's.
  Result<Decoded> TakeOrDecode(const std::string& credential);

  ClusterKey key_;
  ReplayCache seen_;
  std::mutex mu_;
  std::map<std::string, Decoded> prechecked_;  // by credential text; guarded by mu_
};

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_CREDENTIAL_H_
