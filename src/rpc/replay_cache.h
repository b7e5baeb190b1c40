// Remembers which one-time tokens (credential nonces) were accepted, until they expire, so that
// each is accepted once. Bounded: at most kMaxEntries live tokens; past that, new tokens are
// refused until old ones expire (only a holder of the cluster key can mint tokens, so a full
// cache means a misbehaving client, not an outsider).
//
// Thread-safe.
#ifndef GANTRY_RPC_REPLAY_CACHE_H_
#define GANTRY_RPC_REPLAY_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/status.h"

namespace gantry::rpc {

class ReplayCache {
 public:
  static constexpr size_t kMaxEntries = 1 << 20;

  // OK the first time `token` is seen before `expires` (unix seconds); PermissionDenied when it
  // was accepted before and has not expired; ResourceExhausted when the cache is full. Tokens
  // whose expiry is at or before `now` are forgotten first.
  Status Admit(std::string_view token, int64_t expires, int64_t now);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_set<std::string> live_;
  std::multimap<int64_t, std::string> by_expiry_;
};

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_REPLAY_CACHE_H_
