// User tokens: the JSON Web Tokens that `scontrol token` prints and that REST clients send
// (X-SLURM-USER-TOKEN or Authorization: Bearer), in Slurm's auth/jwt form:
//   header  {"alg":"HS256","typ":"JWT"}
//   payload {"exp":<unix s>,"iat":<unix s>,"sun":"<user name>"}
//   signature HMAC-SHA256 over "<header>.<payload>" (each base64url without padding)
// The HMAC key is derived from the cluster key (TokenKeyOf), so whoever may read cluster.key
// may mint tokens for anyone, exactly as with Slurm's jwt_hs256.key; nobody else can.
//
// A token is a bearer credential: it names a user and an expiry, and anyone holding it acts as
// that user until then. Verification accepts only HS256 (never "none" or another algorithm,
// whatever the header says), needs `exp` and `iat` as integers and `sun` (or `username`, as
// Slurm also reads it) as a non-empty string, and refuses a token whose exp is not after now.
// Pure functions; thread-safe.
#ifndef GANTRY_RPC_USER_TOKEN_H_
#define GANTRY_RPC_USER_TOKEN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "rpc/credential.h"

namespace gantry::rpc {

// Slurm's default lifespan for `scontrol token` (seconds).
inline constexpr int64_t kDefaultTokenLifespan = 1800;

struct TokenKey {
  std::string bytes;  // 32 bytes
};
// The token key of a cluster: HMAC-SHA256(cluster key, "gantry user token v1").
TokenKey TokenKeyOf(const ClusterKey& cluster_key);

struct TokenClaims {
  std::string user;    // sun
  int64_t issued_at;   // iat
  int64_t expires_at;  // exp
};

// The signed token for `claims`.
std::string SignUserToken(const TokenKey& key, const TokenClaims& claims);

// The claims of `token` if it is well formed, signed with `key` and not expired at `now`.
// Unauthenticated with the reason otherwise ("malformed token", "token signature does not
// match", "token expired at <t>", "token algorithm RS256 is not accepted", ...).
Result<TokenClaims> VerifyUserToken(const TokenKey& key, std::string_view token, int64_t now);

// base64url without padding, and back (nullopt on a character outside the alphabet or a length
// no encoding has). Exposed for tests.
std::string Base64UrlEncode(std::string_view bytes);
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_USER_TOKEN_H_
