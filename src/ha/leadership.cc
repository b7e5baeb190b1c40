#include "ha/leadership.h"

#include <utility>

namespace gantry::ha {

std::string HolderValue(const std::string& name, const std::string& address) {
  return name + " " + address;
}

std::optional<Holder> ParseHolder(const etcd::KeyValue& kv) {
  const size_t space = kv.value.find(' ');
  if (space == std::string::npos) return std::nullopt;
  return Holder{kv.value.substr(0, space), kv.value.substr(space + 1), kv.create_revision};
}

Leadership::Leadership(LeadershipOptions options, std::function<void(const std::string&)> on_lost)
    : options_(std::move(options)),
      key_(options_.prefix + "leader"),
      handover_key_(options_.prefix + "handover"),
      on_lost_(std::move(on_lost)),
      etcd_(options_.endpoints, options_.call_timeout) {
  keepalive_ = std::thread([this] { KeepAliveLoop(); });
}

Leadership::~Leadership() {
  Resign();
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  keepalive_.join();
}

Status Leadership::EnsureLease() {
  {
    std::lock_guard lock(mu_);
    if (lease_ != 0) return Status::Ok();
  }
  const auto sent = std::chrono::steady_clock::now();
  GANTRY_ASSIGN_OR_RETURN(const int64_t lease, etcd_.GrantLease(options_.ttl_sec));
  std::lock_guard lock(mu_);
  lease_ = lease;
  renewed_ = sent;
  return Status::Ok();
}

Result<int64_t> Leadership::WaitToLead(
    const std::function<void(const std::optional<Holder>&)>& on_holder) {
  std::optional<std::string> last_told;  // the holder value on_holder last heard; "" = none
  const auto tell = [&](const std::optional<Holder>& holder) {
    const std::string value = holder ? HolderValue(holder->name, holder->address) : "";
    if (last_told == value) return;
    last_told = value;
    if (on_holder) on_holder(holder);
  };
  while (!cancelled_.load()) {
    Status leased = EnsureLease();
    int64_t lease = 0;
    {
      std::lock_guard lock(mu_);
      lease = lease_;
    }
    // A handover to another replica (scontrol takeover): that one campaigns first.
    Result<std::optional<etcd::KeyValue>> handover = etcd_.Get(handover_key_);
    const bool yield =
        handover.ok() && *handover && (*handover)->value != options_.name && !leading_.load();
    if (leased.ok() && !yield) {
      etcd::KeyValue held;
      Result<std::optional<int64_t>> won =
          etcd::Campaign(etcd_, key_, HolderValue(options_.name, options_.address), lease, &held);
      if (won.ok() && *won) {
        leading_ = true;
        if (handover.ok() && *handover) (void)etcd_.DeletePrefix(handover_key_);
        return **won;
      }
      if (won.ok()) {
        // Our own key from a lease of an earlier life of this process: wait for it to end.
        tell(held.key.empty() ? std::nullopt : ParseHolder(held));
      } else {
        tell(std::nullopt);
      }
    } else {
      tell(std::nullopt);
    }
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, options_.poll_every, [this] { return stop_ || cancelled_.load(); });
  }
  return Unavailable("leadership campaign cancelled");
}

void Leadership::Cancel() {
  cancelled_ = true;
  cv_.notify_all();
}

void Leadership::Resign() {
  int64_t lease = 0;
  {
    std::lock_guard lock(mu_);
    if (!leading_.load()) return;
    leading_ = false;
    lease = lease_;
    lease_ = 0;
  }
  if (lease != 0) (void)etcd_.RevokeLease(lease);
}

Status Leadership::HandOver(const std::string& name) {
  GANTRY_ASSIGN_OR_RETURN(const int64_t lease, etcd_.GrantLease(kHandoverSec));
  GANTRY_RETURN_IF_ERROR(etcd_.Put(handover_key_, name, lease).status());
  Resign();
  return Status::Ok();
}

void Leadership::KeepAliveLoop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, options_.keepalive_every, [this] { return stop_; });
    if (stop_ || lease_ == 0) continue;
    const int64_t lease = lease_;
    const auto sent = std::chrono::steady_clock::now();
    lock.unlock();
    Result<int64_t> left = etcd_.KeepAlive(lease);
    lock.lock();
    if (lease_ != lease) continue;  // resigned meanwhile
    std::string why;
    if (left.ok() && *left > 0) {
      renewed_ = sent;
    } else if (left.ok()) {
      why = "the lease ended before it was renewed";
    } else if (sent - renewed_ >= std::chrono::seconds(options_.ttl_sec)) {
      why = "the lease could not be renewed for " + std::to_string(options_.ttl_sec) + " s (" +
            left.status().message() + ")";
    }
    if (why.empty()) continue;
    lease_ = 0;
    if (leading_.exchange(false)) {
      lock.unlock();
      if (on_lost_) on_lost_(why);
      lock.lock();
    }
  }
}

}  // namespace gantry::ha
