#include "store/batched_store.h"

#include <algorithm>
#include <exception>
#include <set>

namespace gantry::store {
namespace {

// Records fetched per lock hold in ReadFrom; fn is called with no lock held.
constexpr int kReadChunk = 256;
// Archived jobs fetched per lock hold in ScanArchive.
constexpr int kArchiveChunk = 512;

}  // namespace

// One queued write and, once `done`, its outcome.
struct BatchedStore::WriteOp {
  enum class Kind { kAppend, kSnapshot, kPut };
  Kind kind = Kind::kAppend;
  std::vector<std::pair<std::string, std::string>> records;  // kAppend
  std::vector<std::pair<std::string, std::string>> puts;     // kAppend (side table)
  std::vector<std::string> erases;                           // kAppend (side table)
  std::vector<ArchivedJob> archive;                          // kAppend
  Snapshot snapshot;                                         // kSnapshot
  std::string key, value;                                    // kPut
  size_t bytes = 0;

  Status status;
  std::vector<uint64_t> seqs;
  bool done = false;
};

class BatchedStore::Pending final : public PendingWrite {
 public:
  Pending(BatchedStore* store, std::shared_ptr<WriteOp> op) : store_(store), op_(std::move(op)) {}
  Result<std::vector<uint64_t>> Wait() override {
    GANTRY_RETURN_IF_ERROR(store_->WaitDone(*op_));
    return std::move(op_->seqs);
  }

 private:
  BatchedStore* store_;
  std::shared_ptr<WriteOp> op_;
};

BatchedStore::BatchedStore(std::string name, BatchOptions options)
    : prefix_("store \"" + std::move(name) + "\": "), options_(std::move(options)) {}

BatchedStore::~BatchedStore() { Stop(); }

Status BatchedStore::Start(uint64_t last_record, std::optional<uint64_t> snapshot_seq) {
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    has_snapshot_ = snapshot_seq.has_value();
    snapshot_seq_ = snapshot_seq.value_or(0);
    last_seq_.store(std::max(last_record, snapshot_seq_));
  }
  try {
    writer_ = std::thread([this] { WriterLoop(); });
  } catch (const std::exception& e) {
    return Internal(Prefix() + "cannot start the writer thread: " + e.what());
  }
  return Status::Ok();
}

void BatchedStore::Stop() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (writer_.joinable()) writer_.join();  // the writer drains the queue first
}

Result<std::vector<uint64_t>> BatchedStore::Append(
    std::vector<std::pair<std::string, std::string>> kind_payloads) {
  if (kind_payloads.empty()) return std::vector<uint64_t>{};
  WriteBatch batch;
  batch.records = std::move(kind_payloads);
  return EnqueueWrite(std::move(batch))->Wait();
}

std::unique_ptr<PendingWrite> BatchedStore::EnqueueWrite(WriteBatch batch) {
  auto op = std::make_shared<WriteOp>();
  op->kind = WriteOp::Kind::kAppend;
  op->status = CheckBatch(batch);
  for (const auto& [kind, payload] : batch.records) op->bytes += kind.size() + payload.size();
  for (const auto& [key, value] : batch.puts) op->bytes += key.size() + value.size();
  for (const ArchivedJob& job : batch.archive) op->bytes += job.record.size();
  op->records = std::move(batch.records);
  op->puts = std::move(batch.puts);
  op->erases = std::move(batch.erases);
  op->archive = std::move(batch.archive);
  if (op->status.ok()) {
    Enqueue(op);
  } else {
    op->done = true;
  }
  return std::make_unique<Pending>(this, std::move(op));
}

Status BatchedStore::ReadFrom(uint64_t after, const std::function<Status(const Record&)>& fn) {
  uint64_t cursor = after;
  for (;;) {
    std::vector<Record> chunk;
    {
      std::lock_guard<std::mutex> lock(db_mu_);
      GANTRY_RETURN_IF_ERROR(broken_);
      if (has_snapshot_ && cursor < snapshot_seq_) {
        return FailedPrecondition(Prefix() + "read records after " + std::to_string(cursor) +
                                  ": records up to " + std::to_string(snapshot_seq_) +
                                  " were compacted into the snapshot; load it first");
      }
      GANTRY_RETURN_IF_ERROR(SelectRecords(cursor, kReadChunk, &chunk));
    }
    for (const Record& record : chunk) {
      GANTRY_RETURN_IF_ERROR(fn(record));
      cursor = record.seq;
    }
    if (chunk.size() < static_cast<size_t>(kReadChunk)) return Status::Ok();
  }
}

Status BatchedStore::SaveSnapshot(const Snapshot& snapshot) {
  WriteOp op;
  op.kind = WriteOp::Kind::kSnapshot;
  op.snapshot = snapshot;
  op.bytes = snapshot.payload.size();
  return Submit(op);
}

Result<std::optional<Snapshot>> BatchedStore::LatestSnapshot() {
  std::lock_guard<std::mutex> lock(db_mu_);
  GANTRY_RETURN_IF_ERROR(broken_);
  std::optional<Snapshot> out;
  GANTRY_RETURN_IF_ERROR(SelectSnapshot(&out));
  return out;
}

Status BatchedStore::Put(const std::string& key, const std::string& value) {
  if (key.empty()) return InvalidArgument(Prefix() + "put: empty key (keys must be non-empty)");
  WriteOp op;
  op.kind = WriteOp::Kind::kPut;
  op.key = key;
  op.value = value;
  op.bytes = key.size() + value.size();
  return Submit(op);
}

Result<std::optional<std::string>> BatchedStore::Get(const std::string& key) {
  if (key.empty()) return InvalidArgument(Prefix() + "get: empty key (keys must be non-empty)");
  std::lock_guard<std::mutex> lock(db_mu_);
  GANTRY_RETURN_IF_ERROR(broken_);
  std::optional<std::string> out;
  GANTRY_RETURN_IF_ERROR(SelectKv(key, &out));
  return out;
}

Status BatchedStore::ScanArchive(const ArchiveQuery& query,
                                 const std::function<Status(const ArchivedJob&)>& fn) {
  auto listed = [](const std::vector<uint32_t>& list, uint32_t id) {
    return std::find(list.begin(), list.end(), id) != list.end();
  };
  auto wanted = [&](const ArchivedJob& job) {
    return job.end_time >= query.ended_at_or_after &&
           job.submit_time <= query.submitted_at_or_before &&
           (query.job_ids.empty() || listed(query.job_ids, job.job_id) ||
            (job.array_job_id != 0 && listed(query.job_ids, job.array_job_id))) &&
           (query.user_ids.empty() || listed(query.user_ids, job.user_id));
  };
  if (!query.job_ids.empty()) {  // a few named jobs: one lookup each
    std::vector<uint32_t> ids = query.job_ids;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::set<uint32_t> done;  // an array task may be named by its id and its array's
    for (uint32_t id : ids) {
      std::vector<ArchivedJob> jobs;
      {
        std::lock_guard<std::mutex> lock(db_mu_);
        GANTRY_RETURN_IF_ERROR(broken_);
        GANTRY_RETURN_IF_ERROR(SelectArchivedJob(id, &jobs));
      }
      std::sort(jobs.begin(), jobs.end(),
                [](const ArchivedJob& a, const ArchivedJob& b) { return a.job_id < b.job_id; });
      for (const ArchivedJob& job : jobs) {
        if (done.insert(job.job_id).second && wanted(job)) GANTRY_RETURN_IF_ERROR(fn(job));
      }
    }
    return Status::Ok();
  }
  int64_t cursor = -1;
  for (;;) {
    std::vector<ArchivedJob> chunk;
    {
      std::lock_guard<std::mutex> lock(db_mu_);
      GANTRY_RETURN_IF_ERROR(broken_);
      GANTRY_RETURN_IF_ERROR(SelectArchiveChunk(
          cursor, query.ended_at_or_after, query.submitted_at_or_before, kArchiveChunk, &chunk));
    }
    for (const ArchivedJob& job : chunk) {
      if (wanted(job)) GANTRY_RETURN_IF_ERROR(fn(job));
      cursor = job.job_id;
    }
    if (chunk.size() < static_cast<size_t>(kArchiveChunk)) return Status::Ok();
  }
}

StoreStats BatchedStore::Stats() {
  std::lock_guard<std::mutex> lock(queue_mu_);
  return stats_;
}

Status BatchedStore::CheckBatch(const WriteBatch& batch) const {
  for (size_t i = 0; i < batch.records.size(); ++i) {
    if (batch.records[i].first.empty()) {
      return InvalidArgument(Prefix() + "append: record " + std::to_string(i) +
                             " of the batch has an empty kind (every record needs one)");
    }
  }
  for (const auto& [key, value] : batch.puts) {
    if (key.empty()) return InvalidArgument(Prefix() + "put: empty key (keys must be non-empty)");
  }
  return Status::Ok();
}

void BatchedStore::Enqueue(const std::shared_ptr<WriteOp>& op) {
  {
    std::unique_lock<std::mutex> lock(queue_mu_);
    if (stopping_) {
      op->status = FailedPrecondition(Prefix() + "the store is closing");
      op->done = true;
      return;
    }
    queue_.push_back(op);
    stats_.queued = queue_.size();
  }
  queue_cv_.notify_one();
}

Status BatchedStore::WaitDone(const WriteOp& op) {
  std::unique_lock<std::mutex> lock(queue_mu_);
  done_cv_.wait(lock, [&op] { return op.done; });
  return op.status;
}

Status BatchedStore::Submit(WriteOp& op) {
  auto shared = std::make_shared<WriteOp>(std::move(op));
  Enqueue(shared);
  Status status = WaitDone(*shared);
  op = std::move(*shared);
  return status;
}

void BatchedStore::WriterLoop() {
  for (;;) {
    std::vector<std::shared_ptr<WriteOp>> batch;
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and every queued write is done
      size_t bytes = 0;
      while (!queue_.empty() && batch.size() < std::max<size_t>(options_.max_batch_calls, 1)) {
        std::shared_ptr<WriteOp> op = queue_.front();
        if (!batch.empty() && bytes + op->bytes > options_.max_batch_bytes) break;
        bytes += op->bytes;
        batch.push_back(op);
        queue_.pop_front();
      }
      stats_.queued = queue_.size();
    }
    if (options_.before_batch_for_testing) options_.before_batch_for_testing();
    RunBatch(batch);
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      ++stats_.transactions;
      stats_.write_calls += batch.size();
      stats_.largest_batch = std::max<uint64_t>(stats_.largest_batch, batch.size());
      for (const std::shared_ptr<WriteOp>& op : batch) {
        if (op->kind == WriteOp::Kind::kAppend) {
          ++stats_.append_calls;
          stats_.records_appended += op->seqs.size();
        }
        op->done = true;
      }
    }
    done_cv_.notify_all();
  }
}

void BatchedStore::RunBatch(const std::vector<std::shared_ptr<WriteOp>>& batch) {
  std::lock_guard<std::mutex> lock(db_mu_);
  auto fail_all = [&batch](const Status& status) {
    for (const std::shared_ptr<WriteOp>& op : batch) {
      if (op->status.ok()) op->status = status;
      op->seqs.clear();
    }
  };
  if (!broken_.ok()) return fail_all(broken_);

  MaintainReserve();
  uint64_t last_seq;
  uint64_t snapshot_seq;
  bool has_snapshot;
  Status status;
  // A batch that found the disk full is written once more after the backend freed its reserve.
  for (int attempt = 0;; ++attempt) {
    last_seq = last_seq_.load();
    snapshot_seq = snapshot_seq_;
    has_snapshot = has_snapshot_;
    for (const std::shared_ptr<WriteOp>& op : batch) {
      op->status = Status::Ok();
      op->seqs.clear();
    }
    status = Begin();
    if (!status.ok()) {
      if (!Rollback()) {
        broken_ = FailedPrecondition(Prefix() + "unusable after a failed begin (" +
                                     status.message() + "); reopen it");
      }
      return fail_all(status);
    }
    for (const std::shared_ptr<WriteOp>& op : batch) {
      switch (op->kind) {
        case WriteOp::Kind::kAppend:
          status = WriteRecords(*op, last_seq);
          break;
        case WriteOp::Kind::kSnapshot:
          status = WriteSnapshot(*op, last_seq, snapshot_seq, has_snapshot);
          break;
        case WriteOp::Kind::kPut:
          status = UpsertKv(op->key, op->value);
          break;
      }
      if (!status.ok()) break;
    }
    if (status.ok() || status.code() != StatusCode::kResourceExhausted || attempt > 0) break;
    if (!Rollback()) {
      broken_ = FailedPrecondition(Prefix() + "unusable after a failed rollback (" +
                                   status.message() + "); reopen it");
      return fail_all(status);
    }
    if (!ReleaseReserve()) return fail_all(status);
  }
  if (!status.ok()) {
    // Nothing of the batch is kept; every caller in it gets the error.
    if (!Rollback()) {
      broken_ = FailedPrecondition(Prefix() + "unusable after a failed rollback (" +
                                   status.message() + "); reopen it");
    }
    return fail_all(status);
  }
  status = Commit();
  if (!status.ok()) {
    // The commit may or may not have reached the disk; only a reopen can tell.
    Rollback();
    broken_ =
        FailedPrecondition(Prefix() + "unusable after a failed commit whose outcome is unknown (" +
                           status.message() + "); reopen it");
    return fail_all(broken_);
  }
  last_seq_.store(last_seq);
  snapshot_seq_ = snapshot_seq;
  has_snapshot_ = has_snapshot;
}

// The Write* functions return backend errors, which fail the whole batch. A call that is merely
// invalid gets its own op.status and OK is returned: the rest of the batch goes on.

Status BatchedStore::WriteRecords(WriteOp& op, uint64_t& last_seq) {
  uint64_t seq = last_seq;
  std::vector<uint64_t> seqs;
  seqs.reserve(op.records.size());
  for (const auto& [kind, payload] : op.records) {
    ++seq;
    GANTRY_RETURN_IF_ERROR(InsertRecord(seq, kind, payload));
    seqs.push_back(seq);
  }
  for (const auto& [key, value] : op.puts) GANTRY_RETURN_IF_ERROR(UpsertKv(key, value));
  for (const std::string& key : op.erases) GANTRY_RETURN_IF_ERROR(DeleteKv(key));
  for (const ArchivedJob& job : op.archive) GANTRY_RETURN_IF_ERROR(UpsertArchive(job));
  last_seq = seq;
  op.seqs = std::move(seqs);
  return Status::Ok();
}

Status BatchedStore::WriteSnapshot(WriteOp& op, uint64_t last_seq, uint64_t& snapshot_seq,
                                   bool& has_snapshot) {
  const Snapshot& snapshot = op.snapshot;
  if (snapshot.seq > last_seq) {
    op.status = InvalidArgument(Prefix() + "snapshot at seq " + std::to_string(snapshot.seq) +
                                " is after the last record (" + std::to_string(last_seq) + ")");
    return Status::Ok();
  }
  if (has_snapshot && snapshot.seq < snapshot_seq) {
    op.status = InvalidArgument(Prefix() + "snapshot at seq " + std::to_string(snapshot.seq) +
                                " is older than the latest snapshot (seq " +
                                std::to_string(snapshot_seq) + ")");
    return Status::Ok();
  }
  GANTRY_RETURN_IF_ERROR(WriteSnapshotRows(snapshot));
  snapshot_seq = snapshot.seq;
  has_snapshot = true;
  return Status::Ok();
}

}  // namespace gantry::store
