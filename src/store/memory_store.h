// A Store kept in memory, for tests and the simulator's seams: the same contract as the SQLite
// and PostgreSQL stores (store.h, through BatchedStore's group commit), on a MemoryDisk that
// outlives the store so that "reopening" shows what a restart would find.
//
// Faults (FaultPlan) are injected by commit number, counting every commit of the disk from 1:
//   fail_commit  that commit fails (Unavailable "injected fault"): its batch is rolled back and
//                the store refuses every later call, as after any failed commit (store.h);
//   drop_commit  that commit reports success but never reaches the disk: the store shows it,
//                a store reopened on the disk does not (a lost write, as a lying disk loses it).
// Thread-safe as store.h says.
#ifndef GANTRY_STORE_MEMORY_STORE_H_
#define GANTRY_STORE_MEMORY_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/status.h"
#include "store/batched_store.h"
#include "store/store.h"

namespace gantry::store {

// What survives a restart.
struct MemoryImage {
  std::map<uint64_t, Record> records;
  std::optional<Snapshot> snapshot;
  std::map<std::string, std::string> kv;
  std::map<uint32_t, ArchivedJob> archive;
};

class MemoryDisk {
 public:
  MemoryImage Read() const {
    std::lock_guard lock(mu_);
    return image_;
  }
  void Write(MemoryImage image) {
    std::lock_guard lock(mu_);
    image_ = std::move(image);
  }
  // The commits made so far.
  uint64_t commits() const {
    std::lock_guard lock(mu_);
    return commits_;
  }
  // Counts a commit; its number, from 1.
  uint64_t NextCommit() {
    std::lock_guard lock(mu_);
    return ++commits_;
  }

 private:
  mutable std::mutex mu_;
  MemoryImage image_;
  uint64_t commits_ = 0;
};

struct FaultPlan {
  uint64_t fail_commit = 0;  // 0: none
  uint64_t drop_commit = 0;  // 0: none
};

// Opens a store on `disk` (shared: later stores on it see what this one made durable).
Result<std::unique_ptr<Store>> OpenMemoryStore(std::shared_ptr<MemoryDisk> disk,
                                               BatchOptions options = {}, FaultPlan faults = {});

}  // namespace gantry::store

#endif  // GANTRY_STORE_MEMORY_STORE_H_
