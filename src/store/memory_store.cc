#include "store/memory_store.h"

#include <utility>
#include <vector>

namespace gantry::store {
namespace {

class MemoryStore final : public BatchedStore {
 public:
  MemoryStore(std::shared_ptr<MemoryDisk> disk, BatchOptions options, FaultPlan faults)
      : BatchedStore("memory store", std::move(options)),
        disk_(std::move(disk)),
        faults_(faults),
        live_(disk_->Read()) {}
  ~MemoryStore() override { Stop(); }

  Status Open() {
    const uint64_t last = live_.records.empty() ? 0 : live_.records.rbegin()->first;
    return Start(last,
                 live_.snapshot ? std::optional<uint64_t>(live_.snapshot->seq) : std::nullopt);
  }

 protected:
  Status Begin() override {
    tx_ = live_;
    return Status::Ok();
  }
  Status Commit() override {
    const uint64_t n = disk_->NextCommit();
    if (n == faults_.fail_commit) {
      tx_.reset();
      return Unavailable(Prefix() + "injected fault: commit " + std::to_string(n) + " fails");
    }
    live_ = std::move(*tx_);
    tx_.reset();
    if (n != faults_.drop_commit) disk_->Write(live_);
    return Status::Ok();
  }
  bool Rollback() override {
    tx_.reset();
    return true;
  }
  Status InsertRecord(uint64_t seq, const std::string& kind, const std::string& payload) override {
    tx_->records[seq] = Record{seq, kind, payload};
    return Status::Ok();
  }
  Status UpsertKv(const std::string& key, const std::string& value) override {
    tx_->kv[key] = value;
    return Status::Ok();
  }
  Status DeleteKv(const std::string& key) override {
    tx_->kv.erase(key);
    return Status::Ok();
  }
  Status UpsertArchive(const ArchivedJob& job) override {
    tx_->archive[job.job_id] = job;
    return Status::Ok();
  }
  Status WriteSnapshotRows(const Snapshot& snapshot) override {
    tx_->snapshot = snapshot;
    tx_->records.erase(tx_->records.begin(), tx_->records.upper_bound(snapshot.seq));
    return Status::Ok();
  }
  Status SelectRecords(uint64_t after, int limit, std::vector<Record>* out) override {
    for (auto it = live_.records.upper_bound(after);
         it != live_.records.end() && static_cast<int>(out->size()) < limit; ++it) {
      out->push_back(it->second);
    }
    return Status::Ok();
  }
  Status SelectSnapshot(std::optional<Snapshot>* out) override {
    *out = live_.snapshot;
    return Status::Ok();
  }
  Status SelectKv(const std::string& key, std::optional<std::string>* out) override {
    const auto it = live_.kv.find(key);
    *out = it == live_.kv.end() ? std::nullopt : std::optional<std::string>(it->second);
    return Status::Ok();
  }
  Status SelectArchivedJob(uint32_t id, std::vector<ArchivedJob>* out) override {
    for (const auto& [job_id, job] : live_.archive) {
      if (job_id == id || job.array_job_id == id) out->push_back(job);
    }
    return Status::Ok();
  }
  Status SelectArchiveChunk(int64_t cursor, int64_t ended, int64_t submitted, int limit,
                            std::vector<ArchivedJob>* out) override {
    const auto first = cursor < 0 ? live_.archive.begin()
                                  : live_.archive.upper_bound(static_cast<uint32_t>(cursor));
    for (auto it = first; it != live_.archive.end() && static_cast<int>(out->size()) < limit;
         ++it) {
      if (it->second.end_time >= ended && it->second.submit_time <= submitted) {
        out->push_back(it->second);
      }
    }
    return Status::Ok();
  }

 private:
  const std::shared_ptr<MemoryDisk> disk_;
  const FaultPlan faults_;
  MemoryImage live_;               // what this store shows (a dropped commit included)
  std::optional<MemoryImage> tx_;  // the open transaction's image
};

}  // namespace

Result<std::unique_ptr<Store>> OpenMemoryStore(std::shared_ptr<MemoryDisk> disk,
                                               BatchOptions options, FaultPlan faults) {
  auto store = std::make_unique<MemoryStore>(std::move(disk), std::move(options), faults);
  GANTRY_RETURN_IF_ERROR(store->Open());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace gantry::store
