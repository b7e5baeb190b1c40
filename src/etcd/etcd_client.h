// A client of an etcd v3 cluster (Debian's etcd-server 3.4) over gRPC, for what replicated
// controllers keep there (decision 0017): keys read and written, transactions guarded by
// comparisons (a fenced write), leases kept alive, watches, and a leadership campaign.
//
// Endpoints are the members' client addresses ("host:port", plain gRPC). A call goes to the
// member that last answered; when it is unreachable, to the next, for one round of the list
// (etcd forwards writes to its leader itself). Errors: Unavailable when no member answered
// within the call timeout, others as gRPC's codes map (rpc/grpc_status.h), messages naming
// the call and the key.
//
// Thread-safe: calls may come from any thread; a Watch runs on its own thread.
#ifndef GANTRY_ETCD_ETCD_CLIENT_H_
#define GANTRY_ETCD_ETCD_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "etcd/etcdserverpb/rpc.grpc.pb.h"

namespace gantry::etcd {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
};

struct Event {
  bool deleted = false;  // a DELETE (the key's lease ended, or it was deleted); else a PUT
  KeyValue kv;
};

// One comparison of a transaction's guard.
struct Compare {
  enum class Target { kCreateRevision, kModRevision, kVersion, kValue };
  std::string key;
  Target target = Target::kCreateRevision;
  int64_t number = 0;  // the revision or version compared with
  std::string value;   // kValue
  bool equal = true;   // false: not equal
};
// The key does not exist (its create revision is 0).
Compare Missing(std::string key);
// The key was created at `revision` (still the same incarnation of it).
Compare CreatedAt(std::string key, int64_t revision);

// One write of a transaction.
struct Op {
  std::string key;
  std::optional<std::string> value;  // nullopt: delete the key (the range [key, range_end))
  int64_t lease = 0;
  std::string range_end;  // deletes only; "" = the key alone
};

struct TxnResult {
  bool succeeded = false;
  int64_t revision = 0;  // the store's revision after it
};

// The end of the range of every key that starts with `prefix` (its last byte plus one).
std::string PrefixEnd(const std::string& prefix);

class EtcdClient {
 public:
  explicit EtcdClient(std::vector<std::string> endpoints,
                      std::chrono::milliseconds call_timeout = std::chrono::seconds(5));
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // The store's revision after the write.
  Result<int64_t> Put(const std::string& key, const std::string& value, int64_t lease = 0);
  Result<std::optional<KeyValue>> Get(const std::string& key);
  // Keys with `prefix`, in key order; at most `limit` (0: all) from `from` on ("" = prefix).
  Result<std::vector<KeyValue>> GetPrefix(const std::string& prefix, int64_t limit = 0,
                                          const std::string& from = "");
  // The key with `prefix` that sorts last; nullopt when none.
  Result<std::optional<KeyValue>> GetLast(const std::string& prefix);
  // Deletes the keys with `prefix`; how many.
  Result<int64_t> DeletePrefix(const std::string& prefix);
  // If every comparison holds, the `success` writes, else the `failure` ones, atomically.
  Result<TxnResult> Txn(const std::vector<Compare>& compares, const std::vector<Op>& success,
                        const std::vector<Op>& failure = {});

  // A lease of `ttl_sec` seconds (etcd may lengthen it to its minimum); its id.
  Result<int64_t> GrantLease(int64_t ttl_sec);
  // Renews the lease; the seconds it has left, 0 when it had already ended.
  Result<int64_t> KeepAlive(int64_t lease);
  Status RevokeLease(int64_t lease);

  // The member calls go to now: the one that answered last.
  const std::string& current_endpoint() const { return members_[current_.load()].endpoint; }

  // Changes to the keys with `prefix` from `start_revision` on (0: from now), in order, each
  // batch with the revision it brings the store to, until the Watch is destroyed. When the
  // stream breaks, it is opened again from the revision after the last one delivered, so
  // nothing is skipped; `on_error` hears why (a compacted start revision ends the watch).
  class Watch {
   public:
    ~Watch();  // stops and joins the thread
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

   private:
    friend class EtcdClient;
    Watch() = default;
    void Run();
    EtcdClient* client_ = nullptr;
    std::string prefix_;
    int64_t next_revision_ = 0;
    std::function<void(const std::vector<Event>&, int64_t)> on_events_;
    std::function<void(const Status&)> on_error_;
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    grpc::ClientContext* context_ = nullptr;  // the stream's, to cancel it; guarded by mu_
    std::thread thread_;
  };
  std::unique_ptr<Watch> WatchPrefix(
      const std::string& prefix, int64_t start_revision,
      std::function<void(const std::vector<Event>&, int64_t revision)> on_events,
      std::function<void(const Status&)> on_error = nullptr);

 private:
  struct Member {
    std::string endpoint;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  };
  // Runs `call` on the current member, then on the others while they are unreachable.
  Status Call(const std::string& what,
              const std::function<grpc::Status(Member&, grpc::ClientContext&)>& call);

  std::vector<Member> members_;
  std::chrono::milliseconds call_timeout_;
  std::atomic<size_t> current_{0};
};

// A leadership campaign on `key`: the key is made with `value` on `lease` unless it exists.
// Won: the term, the key's create revision, which grows with every new leader; lost: nullopt
// (`holder`, when given, gets who holds it).
Result<std::optional<int64_t>> Campaign(EtcdClient& client, const std::string& key,
                                        const std::string& value, int64_t lease,
                                        KeyValue* holder = nullptr);

}  // namespace gantry::etcd

#endif  // GANTRY_ETCD_ETCD_CLIENT_H_
