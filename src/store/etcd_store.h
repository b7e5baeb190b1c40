// A Store kept in an etcd cluster (decision 0017): the replicated controllers' log, durable once
// a quorum of the members has it, and fenced: each group commit is one etcd transaction that
// first checks that the leader key still holds this controller's term, so a deposed leader
// writes nothing (its commit fails, and the store, like after any failed commit, refuses every
// later call: gantryd stops).
//
// Same contracts as every Store (store.h), through BatchedStore's group commit. Keys, under
// `prefix`: log/<seq, 20 digits> (a record: "<kind length>:<kind><payload>"), snapshot
// ("<seq>:<payload>"), kv/<key>, archive/<job id, 10 digits> (a job: its numbers on a line,
// then the record), archive-array/<array id>/<job id> (the jobs of each array).
//
// The members must take transactions as large as a batch: the store bounds a batch to
// max_batch_calls writes and max_batch_bytes; start etcd with --max-txn-ops and
// --max-request-bytes above them (gantry starts its members so).
#ifndef GANTRY_STORE_ETCD_STORE_H_
#define GANTRY_STORE_ETCD_STORE_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/store.h"

namespace gantry::store {

struct EtcdStoreOptions {
  std::vector<std::string> endpoints;  // the members' client addresses, host:port
  std::string prefix;                  // every key of this store starts with it
  // The fence: commit only while `fence_key`'s create revision is `fence_revision` (the
  // controller's term); "" = no fence.
  std::string fence_key;
  int64_t fence_revision = 0;
  std::chrono::milliseconds call_timeout{5000};
  size_t max_batch_calls = 256;
  size_t max_batch_bytes = size_t{8} << 20;
  std::function<void()> before_batch_for_testing;
};

// Opens the store under `options.prefix`. Errors name the endpoints and what etcd said.
Result<std::unique_ptr<Store>> OpenEtcdStore(EtcdStoreOptions options);

}  // namespace gantry::store

#endif  // GANTRY_STORE_ETCD_STORE_H_
