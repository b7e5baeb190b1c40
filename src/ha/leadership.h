// Leadership of a replicated cluster's controllers, held in etcd (decision 0017).
//
// Every gantryd of the cluster campaigns for one key, `<prefix>leader`, written only when it is
// missing, on a lease of `ttl_sec` seconds that the holder keeps alive every `keepalive_every`.
// The winner's term is the key's create revision: it grows with every new leader, and the
// store's commits compare it (store/etcd_store.h), so a deposed leader cannot acknowledge
// anything. A leader that dies stops renewing: its lease ends after at most `ttl_sec` and the
// key goes with it; a standby polling the key every `poll_every` campaigns at once. A leader
// that stops on purpose revokes its lease (Resign): the others take over without waiting.
//
// The key's value is "NAME HOST:PORT": standbys tell callers where the leader serves.
//
// Thread-safety: every method may be called from any thread. `on_lost` runs once, on the
// keep-alive thread, when a lead this process held ended without Resign (the lease ran out,
// or could not be renewed for `ttl_sec`): the caller must stop serving at once.
#ifndef GANTRY_HA_LEADERSHIP_H_
#define GANTRY_HA_LEADERSHIP_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "etcd/etcd_client.h"

namespace gantry::ha {

struct LeadershipOptions {
  std::vector<std::string> endpoints;  // etcd members, host:port
  std::string prefix;                  // "gantry/<cluster>/"
  std::string name;                    // this controller's name
  std::string address;                 // where it serves (host:port)
  int64_t ttl_sec = 2;
  std::chrono::milliseconds keepalive_every{500};
  std::chrono::milliseconds poll_every{100};
  // One etcd call, per member tried: short, so that a member cut off from the network is
  // passed over well within the lease.
  std::chrono::milliseconds call_timeout{600};
};

// Who leads, as the leader key says.
struct Holder {
  std::string name;
  std::string address;
  int64_t term = 0;
};

// "NAME HOST:PORT" as the key holds it.
std::string HolderValue(const std::string& name, const std::string& address);
std::optional<Holder> ParseHolder(const etcd::KeyValue& kv);

class Leadership {
 public:
  Leadership(LeadershipOptions options, std::function<void(const std::string& why)> on_lost);
  ~Leadership();  // Resign(), then stops the keep-alive thread
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;

  // Blocks until this controller leads; returns its term. While another leads, `on_holder`
  // hears each change of who it is (nullopt: nobody, or etcd unreachable). Gives up (Unavailable)
  // once Cancel was called.
  Result<int64_t> WaitToLead(const std::function<void(const std::optional<Holder>&)>& on_holder);
  void Cancel();

  // Hands the lead back now (revokes the lease: the key goes at once); no-op when not leading.
  void Resign();
  // Hands the lead to the replica `name` (scontrol takeover): `<prefix>handover` names it for
  // kHandoverSec seconds, during which the other standbys do not campaign; then Resign.
  Status HandOver(const std::string& name);
  static constexpr int64_t kHandoverSec = 5;

  bool leading() const { return leading_.load(); }
  // The etcd member that answered last (a member cut off answers nothing), for other clients
  // to start with: gRPC shares connections between a process's clients, and one to a member
  // cut off looks healthy until a call to it times out.
  const std::string& current_endpoint() const { return etcd_.current_endpoint(); }
  const std::string& leader_key() const { return key_; }

 private:
  void KeepAliveLoop();
  // A fresh lease when none is held or it ended.
  Status EnsureLease();

  const LeadershipOptions options_;
  const std::string key_;
  const std::string handover_key_;
  const std::function<void(const std::string&)> on_lost_;
  etcd::EtcdClient etcd_;

  std::mutex mu_;
  std::condition_variable cv_;
  int64_t lease_ = 0;                              // 0: none
  std::chrono::steady_clock::time_point renewed_;  // when the last renewal that held was sent
  bool stop_ = false;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> leading_{false};
  std::thread keepalive_;
};

}  // namespace gantry::ha

#endif  // GANTRY_HA_LEADERSHIP_H_
