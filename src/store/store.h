// The controller's durable log: an append-only sequence of opaque records, one snapshot that
// stands for every record up to its seq, and a small key-value side table.
//
// The controller makes every accepted change (job submit, cancel, state change) durable here
// BEFORE it acknowledges it. On restart it loads LatestSnapshot() and replays
// ReadFrom(snapshot.seq) on top of it.
//
// Contracts shared by every implementation:
//  - Sequence numbers start at 1, increase by exactly 1 per record, and are never reused, not
//    even after compaction deleted every record or after a restart.
//  - A write (Append, SaveSnapshot, Put) that returned OK is durable (on stable storage) and
//    visible to every later read. A write that returned an error changed nothing, except that
//    after a failed commit the outcome is unknown: the store then refuses every later call and
//    must be reopened, which shows what really happened.
//  - Thread-safety: every method may be called from any number of threads at once. Writes from
//    concurrent callers are grouped into one transaction (group commit), each caller's own
//    records stay contiguous and in the order given. Destroying the store while calls are in
//    flight is a bug; calls already queued are finished first.
#ifndef GANTRY_STORE_STORE_H_
#define GANTRY_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace gantry::store {

// One log entry. `kind` names the change ("job.submit"), `payload` is opaque bytes (may hold
// NULs); the store never looks inside either.
struct Record {
  uint64_t seq = 0;  // > 0
  std::string kind;
  std::string payload;

  friend bool operator==(const Record&, const Record&) = default;
};

// The kind of gantryd's records: a serialized v1::Event each (the store does not look).
inline constexpr char kEventRecordKind[] = "event";

// The controller's whole state as of record `seq` (every record with seq <= `seq` applied).
struct Snapshot {
  uint64_t seq = 0;
  std::string payload;

  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

// Counters since the store was opened, for tests, benchmarks and diagnostics.
struct StoreStats {
  uint64_t append_calls = 0;      // Append calls committed or failed (not counting empty ones)
  uint64_t records_appended = 0;  // records committed
  uint64_t write_calls = 0;       // Append, SaveSnapshot and Put calls taken by the writer
  uint64_t transactions = 0;      // batches (transactions) run; < write_calls when grouped
  uint64_t largest_batch = 0;     // most write calls that shared one transaction
  uint64_t queued = 0;            // write calls waiting for the writer right now
};

// A job that ended, kept for sacct after the controller forgot it. One row per job id: a later
// write replaces it (a requeued job's last run).
struct ArchivedJob {
  uint32_t job_id = 0;
  int64_t submit_time = 0;
  int64_t end_time = 0;
  uint32_t user_id = 0;
  std::string record;         // opaque (the controller's serialised job)
  uint32_t array_job_id = 0;  // the job array it belongs to; 0 = none

  friend bool operator==(const ArchivedJob&, const ArchivedJob&) = default;
};

// Which archived jobs ScanArchive returns: all conditions hold (an empty list matches any).
struct ArchiveQuery {
  int64_t ended_at_or_after = INT64_MIN;
  int64_t submitted_at_or_before = INT64_MAX;
  std::vector<uint32_t> job_ids;
  std::vector<uint32_t> user_ids;
};

// An atomic group of writes: records appended to the log plus side-table and archive changes,
// all committed in one transaction or none.
struct WriteBatch {
  std::vector<std::pair<std::string, std::string>> records;  // (kind, payload), kinds non-empty
  std::vector<std::pair<std::string, std::string>> puts;     // (key, value), keys non-empty
  std::vector<std::string> erases;                           // keys to delete (absent: no-op)
  std::vector<ArchivedJob> archive;                          // insert or replace, by job_id
};

// A write queued with EnqueueWrite. Wait() may be called once, from any thread; the store must
// outlive the handle's Wait().
class PendingWrite {
 public:
  virtual ~PendingWrite() = default;
  // Blocks until the batch is committed (returns the records' seqs) or failed.
  virtual Result<std::vector<uint64_t>> Wait() = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Appends one record per (kind, payload), in order, atomically (all or none) and durably
  // before returning their seqs (contiguous, increasing). An empty list returns an empty list.
  // Every kind must be non-empty (InvalidArgument otherwise; nothing is written).
  virtual Result<std::vector<uint64_t>> Append(
      std::vector<std::pair<std::string, std::string>> kind_payloads) = 0;

  // Queues `batch` behind every write queued before it and returns at once; the log keeps the
  // order of EnqueueWrite/Append calls. Lets a single-writer caller apply changes in memory in
  // order and wait for durability outside its lock (group commit across callers).
  // Invalid batches (empty kind or key) fail in Wait() with InvalidArgument, writing nothing.
  virtual std::unique_ptr<PendingWrite> EnqueueWrite(WriteBatch batch) = 0;

  // Calls fn for each record with seq > after, in seq order: every record committed before the
  // call, and possibly some committed while it runs. Returns the first error fn returns, without
  // calling fn again. fn runs with no lock held and may call any method of the store.
  // FailedPrecondition when records after `after` were compacted away (after is smaller than
  // the latest snapshot's seq, also when a snapshot is saved mid-read): load the snapshot.
  virtual Status ReadFrom(uint64_t after, const std::function<Status(const Record&)>& fn) = 0;

  // Stores `snapshot` durably as the latest one, replacing the previous, and deletes every
  // record with seq <= snapshot.seq in the same transaction (compaction). InvalidArgument when
  // snapshot.seq is greater than LastSeq() or smaller than the latest snapshot's seq.
  virtual Status SaveSnapshot(const Snapshot& snapshot) = 0;

  // The latest snapshot, or nullopt when none was ever saved.
  virtual Result<std::optional<Snapshot>> LatestSnapshot() = 0;

  // The seq of the last committed record; 0 for a new store.
  virtual uint64_t LastSeq() = 0;

  // Side table for small values kept outside the log (e.g. the next job id), durable like
  // Append. Put overwrites; Get returns nullopt for a key never put. Keys must be non-empty.
  virtual Status Put(const std::string& key, const std::string& value) = 0;
  virtual Result<std::optional<std::string>> Get(const std::string& key) = 0;

  // Calls fn for each archived job matching `query`, in job id order: every job archived
  // before the call, and possibly some archived while it runs. Returns the first error fn
  // returns, without calling fn again. fn runs with no lock held.
  virtual Status ScanArchive(const ArchiveQuery& query,
                             const std::function<Status(const ArchivedJob&)>& fn) = 0;

  virtual StoreStats Stats() = 0;

  // Bytes free for the store to grow into (the filesystem of an SQLite file, for its owner; 0
  // once a database server's disk was found full), or nullopt when the store cannot tell.
  virtual std::optional<uint64_t> FreeBytes() { return std::nullopt; }
};

}  // namespace gantry::store

#endif  // GANTRY_STORE_STORE_H_
