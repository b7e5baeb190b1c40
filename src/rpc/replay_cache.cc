#include "rpc/replay_cache.h"

namespace gantry::rpc {

Status ReplayCache::Admit(std::string_view token, int64_t expires, int64_t now) {
  std::lock_guard<std::mutex> lock(mu_);
  while (!by_expiry_.empty() && by_expiry_.begin()->first <= now) {
    live_.erase(by_expiry_.begin()->second);
    by_expiry_.erase(by_expiry_.begin());
  }
  if (live_.contains(std::string(token))) {
    return PermissionDenied("credential replayed: it was accepted once already");
  }
  if (live_.size() >= kMaxEntries) {
    return ResourceExhausted("too many credentials within their lifetime (" +
                             std::to_string(kMaxEntries) + "); try again shortly");
  }
  live_.emplace(token);
  by_expiry_.emplace(expires, std::string(token));
  return Status::Ok();
}

size_t ReplayCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

}  // namespace gantry::rpc
