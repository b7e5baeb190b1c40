// What every Store backend shares: the write queue with its writer thread (group commit),
// ReadFrom in chunks, the job-archive scan, stats, and the contract checks of store.h. A
// backend (SQLite, PostgreSQL) supplies the statements: one transaction per batch, and the reads.
//
// Locking: every backend hook runs with the store's database mutex held (the writer holds it for
// a whole transaction, so readers never see uncommitted rows); the caller-facing methods never
// call user code (ReadFrom's and ScanArchive's callbacks) with it held.
//
// A backend calls Start() once its connection is ready (from its opener) and Stop() first thing
// in its destructor, so that the writer finishes every queued write while the connection lives.
#ifndef GANTRY_STORE_BATCHED_STORE_H_
#define GANTRY_STORE_BATCHED_STORE_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"
#include "store/store.h"

namespace gantry::store {

struct BatchOptions {
  // Bounds of one group-commit transaction. A single call larger than either bound still runs,
  // alone in its transaction.
  size_t max_batch_calls = 1024;
  size_t max_batch_bytes = size_t{16} << 20;
  // Test hook: the writer thread calls it after taking a batch, before writing it.
  std::function<void()> before_batch_for_testing;
};

class BatchedStore : public Store {
 public:
  BatchedStore(const BatchedStore&) = delete;
  BatchedStore& operator=(const BatchedStore&) = delete;
  ~BatchedStore() override;

  Result<std::vector<uint64_t>> Append(
      std::vector<std::pair<std::string, std::string>> kind_payloads) override;
  std::unique_ptr<PendingWrite> EnqueueWrite(WriteBatch batch) override;
  Status ReadFrom(uint64_t after, const std::function<Status(const Record&)>& fn) override;
  Status SaveSnapshot(const Snapshot& snapshot) override;
  Result<std::optional<Snapshot>> LatestSnapshot() override;
  uint64_t LastSeq() override { return last_seq_.load(); }
  Status Put(const std::string& key, const std::string& value) override;
  Result<std::optional<std::string>> Get(const std::string& key) override;
  Status ScanArchive(const ArchiveQuery& query,
                     const std::function<Status(const ArchivedJob&)>& fn) override;
  StoreStats Stats() override;

 protected:
  // `name` starts every error message ("store \"/var/lib/gantry/state.db\": ").
  BatchedStore(std::string name, BatchOptions options);

  // Starts the writer with what the backend read at open: the seq of the last record (0: none)
  // and of the snapshot (nullopt: none). The last seq is the larger of the two.
  Status Start(uint64_t last_record, std::optional<uint64_t> snapshot_seq);
  // Finishes the queued writes and stops the writer; idempotent.
  void Stop();

  const std::string& Prefix() const { return prefix_; }

  // Backend hooks, called with the database mutex held. Errors of the write hooks fail the whole
  // batch (it is rolled back).
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  // Rolls back an open transaction; false when the connection may still be inside one (the store
  // is then unusable until reopened).
  virtual bool Rollback() = 0;
  virtual Status InsertRecord(uint64_t seq, const std::string& kind,
                              const std::string& payload) = 0;
  virtual Status UpsertKv(const std::string& key, const std::string& value) = 0;
  virtual Status DeleteKv(const std::string& key) = 0;
  virtual Status UpsertArchive(const ArchivedJob& job) = 0;
  // Replaces the snapshot and deletes the records with seq <= snapshot.seq.
  virtual Status WriteSnapshotRows(const Snapshot& snapshot) = 0;

  // Disk full (a statement failed with ResourceExhausted, its transaction rolled back): frees
  // the room the backend kept for this moment, so that the batch can be written once more;
  // false when nothing was kept (the batch then fails). A backend that released its room says
  // so in FreeBytes until it has it back.
  virtual bool ReleaseReserve() { return false; }
  // Called before each batch: a backend that released its room may try to take it back here.
  virtual void MaintainReserve() {}

  // Up to `limit` records with seq > after, in seq order.
  virtual Status SelectRecords(uint64_t after, int limit, std::vector<Record>* out) = 0;
  virtual Status SelectSnapshot(std::optional<Snapshot>* out) = 0;
  virtual Status SelectKv(const std::string& key, std::optional<std::string>* out) = 0;
  // The archived job `id` and the jobs of array `id` (any order).
  virtual Status SelectArchivedJob(uint32_t id, std::vector<ArchivedJob>* out) = 0;
  // Up to `limit` archived jobs with job_id > cursor, ended at or after `ended`, submitted at or
  // before `submitted`, in job id order.
  virtual Status SelectArchiveChunk(int64_t cursor, int64_t ended, int64_t submitted, int limit,
                                    std::vector<ArchivedJob>* out) = 0;

 private:
  struct WriteOp;
  class Pending;

  Status CheckBatch(const WriteBatch& batch) const;
  void Enqueue(const std::shared_ptr<WriteOp>& op);
  Status WaitDone(const WriteOp& op);
  Status Submit(WriteOp& op);
  void WriterLoop();
  void RunBatch(const std::vector<std::shared_ptr<WriteOp>>& batch);
  Status WriteRecords(WriteOp& op, uint64_t& last_seq);
  Status WriteSnapshot(WriteOp& op, uint64_t last_seq, uint64_t& snapshot_seq, bool& has_snapshot);

  const std::string prefix_;
  const BatchOptions options_;

  // Guards the connection (the hooks) and the committed state below.
  std::mutex db_mu_;
  Status broken_;  // not OK once the store must be reopened
  bool has_snapshot_ = false;
  uint64_t snapshot_seq_ = 0;
  std::atomic<uint64_t> last_seq_{0};  // written under db_mu_, read without it

  // Guards the queue, the ops' `done` and outcome, and stats_.
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;  // the writer waits for work
  std::condition_variable done_cv_;   // callers wait for their op
  std::deque<std::shared_ptr<WriteOp>> queue_;
  bool stopping_ = false;
  StoreStats stats_;

  std::thread writer_;
};

}  // namespace gantry::store

#endif  // GANTRY_STORE_BATCHED_STORE_H_
