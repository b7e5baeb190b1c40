#include "store/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace gantry::store {
namespace {

// Records fetched per lock hold in ReadFrom; fn is called with no lock held.
constexpr int kReadChunk = 256;

constexpr const char* kCreateSchema =
    "CREATE TABLE records (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload BLOB NOT NULL);"
    "CREATE TABLE snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL,"
    "                       payload BLOB NOT NULL);"
    "CREATE TABLE kv (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;";

// Schema version 2 adds the job archive, version 3 its array ids (older stores get what they
// lack when opened).
constexpr const char* kCreateArchive =
    "CREATE TABLE job_archive (job_id INTEGER PRIMARY KEY, submit_time INTEGER NOT NULL,"
    "                          end_time INTEGER NOT NULL, user_id INTEGER NOT NULL,"
    "                          record BLOB NOT NULL);";
constexpr const char* kAddArchiveArrays =
    "ALTER TABLE job_archive ADD COLUMN array_job_id INTEGER NOT NULL DEFAULT 0;"
    "CREATE INDEX job_archive_array ON job_archive (array_job_id) WHERE array_job_id != 0;";

// Archived jobs fetched per lock hold in ScanArchive.
constexpr int kArchiveChunk = 512;

// The Status code for a SQLite result code.
StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StatusCode::kUnavailable;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_SCHEMA:
      return StatusCode::kFailedPrecondition;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
    case SQLITE_TOOBIG:
      return StatusCode::kResourceExhausted;
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return StatusCode::kPermissionDenied;
    case SQLITE_CANTOPEN:
      return StatusCode::kUnavailable;
    default:
      return StatusCode::kInternal;
  }
}

std::string Hex(uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", value);
  return buf;
}

std::string ColumnBytes(sqlite3_stmt* stmt, int col) {
  const void* data = sqlite3_column_blob(stmt, col);  // NULL for a zero-length value
  int size = sqlite3_column_bytes(stmt, col);
  if (data == nullptr || size <= 0) return {};
  return std::string(static_cast<const char*>(data), static_cast<size_t>(size));
}

struct StmtDeleter {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

// Resets a prepared statement (and drops its bindings) when the scope ends, so it can be reused.
class StmtScope {
 public:
  explicit StmtScope(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~StmtScope() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  StmtScope(const StmtScope&) = delete;
  StmtScope& operator=(const StmtScope&) = delete;

 private:
  sqlite3_stmt* stmt_;
};

// One queued write and, once `done`, its outcome.
struct WriteOp {
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

class SqliteStore final : public Store {
 public:
  SqliteStore(std::string path, SqliteStoreOptions options, sqlite3* db)
      : path_(std::move(path)), options_(std::move(options)), db_(db) {}

  ~SqliteStore() override {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      stopping_ = true;
    }
    queue_cv_.notify_all();
    if (writer_.joinable()) writer_.join();  // the writer drains the queue first
    std::lock_guard<std::mutex> lock(db_mu_);
    insert_record_.reset();
    select_records_.reset();
    upsert_snapshot_.reset();
    delete_records_.reset();
    select_snapshot_.reset();
    upsert_kv_.reset();
    select_kv_.reset();
    delete_kv_.reset();
    upsert_archive_.reset();
    select_archive_.reset();
    select_archived_job_.reset();
    sqlite3_close(db_);  // checkpoints the WAL into the database file
  }

  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  // Checks or creates the schema, loads the state and starts the writer thread.
  Status Init(bool existed) {
    std::lock_guard<std::mutex> lock(db_mu_);
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, std::max(options_.busy_timeout_ms, 0));
    // Before WAL is entered: the WAL then lives without shared memory and the file stays locked
    // by this connection until it closes.
    GANTRY_RETURN_IF_ERROR(Exec("PRAGMA locking_mode=EXCLUSIVE", "set locking mode"));

    GANTRY_ASSIGN_OR_RETURN(int64_t app_id, QueryInt("PRAGMA application_id", "read header"));
    GANTRY_ASSIGN_OR_RETURN(int64_t version, QueryInt("PRAGMA user_version", "read header"));
    GANTRY_ASSIGN_OR_RETURN(int64_t objects,
                            QueryInt("SELECT count(*) FROM sqlite_schema", "read schema"));
    bool fresh = app_id == 0 && version == 0 && objects == 0;
    if (!fresh) {
      if (app_id != kSqliteStoreApplicationId) {
        return FailedPrecondition(Prefix() + "not a Gantry store (SQLite application_id " +
                                  Hex(static_cast<uint32_t>(app_id)) + ", a Gantry store has " +
                                  Hex(kSqliteStoreApplicationId) + ")");
      }
      if (version > kSqliteStoreSchemaVersion) {
        return FailedPrecondition(
            Prefix() + "written with store schema version " + std::to_string(version) +
            ", newer than the newest this build reads (" +
            std::to_string(kSqliteStoreSchemaVersion) + "); run a newer Gantry");
      }
      if (version < 1) {
        return FailedPrecondition(Prefix() + "damaged Gantry store: invalid schema version " +
                                  std::to_string(version));
      }
    }

    GANTRY_ASSIGN_OR_RETURN(std::string mode,
                            QueryText("PRAGMA journal_mode=WAL", "enable WAL journal"));
    if (mode != "wal") {
      return FailedPrecondition(Prefix() + "cannot use a WAL journal (SQLite kept journal_mode " +
                                mode + ")");
    }
    GANTRY_RETURN_IF_ERROR(Exec("PRAGMA synchronous=FULL", "set synchronous"));

    if (fresh) {
      std::string create =
          std::string("BEGIN IMMEDIATE;") + kCreateSchema + kCreateArchive + kAddArchiveArrays +
          "PRAGMA application_id=" + std::to_string(kSqliteStoreApplicationId) +
          ";PRAGMA user_version=" + std::to_string(kSqliteStoreSchemaVersion) + ";COMMIT;";
      Status created = Exec(create.c_str(), "create schema");
      if (!created.ok()) {
        RollbackIfActive();
        return created;
      }
      if (!existed) GANTRY_RETURN_IF_ERROR(SyncParentDirectory());
    } else if (version < kSqliteStoreSchemaVersion) {
      // Version 1 or 2 -> 3; also takes the write lock, as below.
      std::string upgrade = std::string("BEGIN IMMEDIATE;") + (version < 2 ? kCreateArchive : "") +
                            kAddArchiveArrays +
                            "PRAGMA user_version=" + std::to_string(kSqliteStoreSchemaVersion) +
                            ";COMMIT;";
      Status upgraded = Exec(upgrade.c_str(), "add the job archive");
      if (!upgraded.ok()) {
        RollbackIfActive();
        return upgraded;
      }
    } else {
      // Take the write lock now, so a second opener fails here rather than at its first write.
      GANTRY_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE; COMMIT;", "lock store"));
    }

    GANTRY_RETURN_IF_ERROR(
        Prepare("INSERT INTO records (seq, kind, payload) VALUES (?1, ?2, ?3)", insert_record_));
    GANTRY_RETURN_IF_ERROR(
        Prepare("SELECT seq, kind, payload FROM records WHERE seq > ?1 ORDER BY seq LIMIT ?2",
                select_records_));
    GANTRY_RETURN_IF_ERROR(Prepare(
        "INSERT OR REPLACE INTO snapshot (id, seq, payload) VALUES (1, ?1, ?2)", upsert_snapshot_));
    GANTRY_RETURN_IF_ERROR(Prepare("DELETE FROM records WHERE seq <= ?1", delete_records_));
    GANTRY_RETURN_IF_ERROR(
        Prepare("SELECT seq, payload FROM snapshot WHERE id = 1", select_snapshot_));
    GANTRY_RETURN_IF_ERROR(
        Prepare("INSERT OR REPLACE INTO kv (key, value) VALUES (?1, ?2)", upsert_kv_));
    GANTRY_RETURN_IF_ERROR(Prepare("SELECT value FROM kv WHERE key = ?1", select_kv_));
    GANTRY_RETURN_IF_ERROR(Prepare("DELETE FROM kv WHERE key = ?1", delete_kv_));
    GANTRY_RETURN_IF_ERROR(
        Prepare("INSERT OR REPLACE INTO job_archive (job_id, submit_time, end_time, user_id, "
                "record, array_job_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                upsert_archive_));
    GANTRY_RETURN_IF_ERROR(
        Prepare("SELECT job_id, submit_time, end_time, user_id, record, array_job_id "
                "FROM job_archive WHERE job_id > ?1 AND end_time >= ?2 AND submit_time <= ?3 "
                "ORDER BY job_id LIMIT ?4",
                select_archive_));
    GANTRY_RETURN_IF_ERROR(
        // Two indexed lookups: with OR, or without the partial index's own condition spelled
        // out, SQLite scans the whole table (a million rows: ~170 ms per id).
        Prepare("SELECT job_id, submit_time, end_time, user_id, record, array_job_id "
                "FROM job_archive WHERE job_id = ?1 "
                "UNION ALL "
                "SELECT job_id, submit_time, end_time, user_id, record, array_job_id "
                "FROM job_archive WHERE array_job_id = ?1 AND array_job_id != 0 AND job_id != ?1",
                select_archived_job_));

    // Records after the snapshot are never deleted, so the last seq is the larger of the newest
    // record and the snapshot (which may have compacted every record away).
    GANTRY_ASSIGN_OR_RETURN(
        int64_t last_record,
        QueryInt("SELECT coalesce(max(seq), 0) FROM records", "read last sequence number"));
    GANTRY_ASSIGN_OR_RETURN(
        int64_t snapshot_seq,
        QueryInt("SELECT coalesce(max(seq), -1) FROM snapshot", "read snapshot sequence number"));
    if (last_record < 0) {
      return FailedPrecondition(Prefix() + "damaged Gantry store: negative sequence number " +
                                std::to_string(last_record));
    }
    has_snapshot_ = snapshot_seq >= 0;
    snapshot_seq_ = has_snapshot_ ? static_cast<uint64_t>(snapshot_seq) : 0;
    last_seq_.store(std::max(static_cast<uint64_t>(last_record), snapshot_seq_));

    try {
      writer_ = std::thread([this] { WriterLoop(); });
    } catch (const std::exception& e) {
      return Internal(Prefix() + "cannot start the writer thread: " + e.what());
    }
    return Status::Ok();
  }

  Result<std::vector<uint64_t>> Append(
      std::vector<std::pair<std::string, std::string>> kind_payloads) override {
    if (kind_payloads.empty()) return std::vector<uint64_t>{};
    WriteBatch batch;
    batch.records = std::move(kind_payloads);
    return EnqueueWrite(std::move(batch))->Wait();
  }

  std::unique_ptr<PendingWrite> EnqueueWrite(WriteBatch batch) override {
    auto op = std::make_shared<WriteOp>();
    op->kind = WriteOp::Kind::kAppend;
    op->status = CheckBatch(batch);
    for (const auto& [kind, payload] : batch.records) op->bytes += kind.size() + payload.size();
    for (const auto& [key, value] : batch.puts) op->bytes += key.size() + value.size();
    op->records = std::move(batch.records);
    op->puts = std::move(batch.puts);
    op->erases = std::move(batch.erases);
    for (const ArchivedJob& job : batch.archive) op->bytes += job.record.size();
    op->archive = std::move(batch.archive);
    if (op->status.ok()) {
      Enqueue(op);
    } else {
      op->done = true;
    }
    return std::make_unique<Pending>(this, std::move(op));
  }

  Status ReadFrom(uint64_t after, const std::function<Status(const Record&)>& fn) override {
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
        sqlite3_stmt* stmt = select_records_.get();
        StmtScope scope(stmt);
        sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(cursor));
        sqlite3_bind_int(stmt, 2, kReadChunk);
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
          Record record;
          record.seq = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
          record.kind = ColumnBytes(stmt, 1);
          record.payload = ColumnBytes(stmt, 2);
          chunk.push_back(std::move(record));
        }
        if (rc != SQLITE_DONE) return Error("read records", rc);
      }
      for (const Record& record : chunk) {
        GANTRY_RETURN_IF_ERROR(fn(record));
        cursor = record.seq;
      }
      if (chunk.size() < static_cast<size_t>(kReadChunk)) return Status::Ok();
    }
  }

  Status SaveSnapshot(const Snapshot& snapshot) override {
    WriteOp op;
    op.kind = WriteOp::Kind::kSnapshot;
    op.snapshot = snapshot;
    op.bytes = snapshot.payload.size();
    return Submit(op);
  }

  Result<std::optional<Snapshot>> LatestSnapshot() override {
    std::lock_guard<std::mutex> lock(db_mu_);
    GANTRY_RETURN_IF_ERROR(broken_);
    sqlite3_stmt* stmt = select_snapshot_.get();
    StmtScope scope(stmt);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return std::optional<Snapshot>();
    if (rc != SQLITE_ROW) return Error("read snapshot", rc);
    Snapshot snapshot;
    snapshot.seq = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
    snapshot.payload = ColumnBytes(stmt, 1);
    return std::optional<Snapshot>(std::move(snapshot));
  }

  uint64_t LastSeq() override { return last_seq_.load(); }

  Status Put(const std::string& key, const std::string& value) override {
    if (key.empty()) return InvalidArgument(Prefix() + "put: empty key (keys must be non-empty)");
    WriteOp op;
    op.kind = WriteOp::Kind::kPut;
    op.key = key;
    op.value = value;
    op.bytes = key.size() + value.size();
    return Submit(op);
  }

  Result<std::optional<std::string>> Get(const std::string& key) override {
    if (key.empty()) return InvalidArgument(Prefix() + "get: empty key (keys must be non-empty)");
    std::lock_guard<std::mutex> lock(db_mu_);
    GANTRY_RETURN_IF_ERROR(broken_);
    sqlite3_stmt* stmt = select_kv_.get();
    StmtScope scope(stmt);
    sqlite3_bind_text64(stmt, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return std::optional<std::string>();
    if (rc != SQLITE_ROW) return Error("get \"" + key + "\"", rc);
    return std::optional<std::string>(ColumnBytes(stmt, 0));
  }

  Status ScanArchive(const ArchiveQuery& query,
                     const std::function<Status(const ArchivedJob&)>& fn) override {
    auto wanted = [&](const ArchivedJob& job) {
      return job.end_time >= query.ended_at_or_after &&
             job.submit_time <= query.submitted_at_or_before &&
             (query.job_ids.empty() ||
              std::find(query.job_ids.begin(), query.job_ids.end(), job.job_id) !=
                  query.job_ids.end() ||
              (job.array_job_id != 0 && std::find(query.job_ids.begin(), query.job_ids.end(),
                                                  job.array_job_id) != query.job_ids.end())) &&
             (query.user_ids.empty() || std::find(query.user_ids.begin(), query.user_ids.end(),
                                                  job.user_id) != query.user_ids.end());
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
          sqlite3_stmt* stmt = select_archived_job_.get();
          StmtScope scope(stmt);
          sqlite3_bind_int64(stmt, 1, id);
          int rc;
          while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) jobs.push_back(ArchivedRow(stmt));
          if (rc != SQLITE_DONE) return Error("read archived job " + std::to_string(id), rc);
        }
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
        sqlite3_stmt* stmt = select_archive_.get();
        StmtScope scope(stmt);
        sqlite3_bind_int64(stmt, 1, cursor);
        sqlite3_bind_int64(stmt, 2, query.ended_at_or_after);
        sqlite3_bind_int64(stmt, 3, query.submitted_at_or_before);
        sqlite3_bind_int(stmt, 4, kArchiveChunk);
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) chunk.push_back(ArchivedRow(stmt));
        if (rc != SQLITE_DONE) return Error("read the job archive", rc);
      }
      for (const ArchivedJob& job : chunk) {
        if (wanted(job)) GANTRY_RETURN_IF_ERROR(fn(job));
        cursor = job.job_id;
      }
      if (chunk.size() < static_cast<size_t>(kArchiveChunk)) return Status::Ok();
    }
  }

  StoreStats Stats() override {
    std::lock_guard<std::mutex> lock(queue_mu_);
    return stats_;
  }

 private:
  static ArchivedJob ArchivedRow(sqlite3_stmt* stmt) {
    ArchivedJob job;
    job.job_id = static_cast<uint32_t>(sqlite3_column_int64(stmt, 0));
    job.submit_time = sqlite3_column_int64(stmt, 1);
    job.end_time = sqlite3_column_int64(stmt, 2);
    job.user_id = static_cast<uint32_t>(sqlite3_column_int64(stmt, 3));
    job.record = ColumnBytes(stmt, 4);
    job.array_job_id = static_cast<uint32_t>(sqlite3_column_int64(stmt, 5));
    return job;
  }

  std::string Prefix() const { return "store \"" + path_ + "\": "; }

  // A Status for SQLite result `rc` of `what`, with SQLite's message. Call with db_mu_ held,
  // right after the failing call.
  Status Error(std::string_view what, int rc) const {
    std::string message = Prefix() + std::string(what) + ": " + sqlite3_errmsg(db_);
    if ((rc & 0xff) == SQLITE_NOTADB) message += " (not a Gantry store)";
    if ((rc & 0xff) == SQLITE_BUSY) message += " (is another process using the store?)";
    return {CodeFor(rc), message};
  }

  Status Exec(const char* sql, std::string_view what) {
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
    return rc == SQLITE_OK ? Status::Ok() : Error(what, rc);
  }

  Result<int64_t> QueryInt(const char* sql, std::string_view what) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr);
    if (rc != SQLITE_OK) return Error(what, rc);
    StmtPtr stmt(raw);
    rc = sqlite3_step(raw);
    if (rc != SQLITE_ROW) return Error(what, rc);
    return static_cast<int64_t>(sqlite3_column_int64(raw, 0));
  }

  Result<std::string> QueryText(const char* sql, std::string_view what) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr);
    if (rc != SQLITE_OK) return Error(what, rc);
    StmtPtr stmt(raw);
    rc = sqlite3_step(raw);
    if (rc != SQLITE_ROW) return Error(what, rc);
    return ColumnBytes(raw, 0);
  }

  Status Prepare(const char* sql, StmtPtr& out) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
    if (rc != SQLITE_OK) return Error("prepare statement", rc);
    out.reset(raw);
    return Status::Ok();
  }

  // Runs a bound statement that returns no rows.
  Status StepDone(sqlite3_stmt* stmt, std::string_view what) {
    int rc = sqlite3_step(stmt);
    return rc == SQLITE_DONE ? Status::Ok() : Error(what, rc);
  }

  void RollbackIfActive() {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  // A new file's directory entry must be durable too, or a power loss could lose the store.
  Status SyncParentDirectory() {
    size_t slash = path_.find_last_of('/');
    std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash == 0 ? 1 : slash);
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      return Unavailable(Prefix() + "open directory \"" + dir + "\": " + std::strerror(errno));
    }
    int rc = ::fsync(fd);
    int saved = errno;
    ::close(fd);
    if (rc != 0) {
      return Unavailable(Prefix() + "fsync directory \"" + dir + "\": " + std::strerror(saved));
    }
    return Status::Ok();
  }

  class Pending final : public PendingWrite {
   public:
    Pending(SqliteStore* store, std::shared_ptr<WriteOp> op) : store_(store), op_(std::move(op)) {}
    Result<std::vector<uint64_t>> Wait() override {
      GANTRY_RETURN_IF_ERROR(store_->WaitDone(*op_));
      return std::move(op_->seqs);
    }

   private:
    SqliteStore* store_;
    std::shared_ptr<WriteOp> op_;
  };

  Status CheckBatch(const WriteBatch& batch) const {
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

  // Queues `op` for the writer (or fails it at once when the store is closing).
  void Enqueue(const std::shared_ptr<WriteOp>& op) {
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

  Status WaitDone(const WriteOp& op) {
    std::unique_lock<std::mutex> lock(queue_mu_);
    done_cv_.wait(lock, [&op] { return op.done; });
    return op.status;
  }

  // Queues `op` for the writer and waits until it has been committed or has failed.
  Status Submit(WriteOp& op) {
    auto shared = std::make_shared<WriteOp>(std::move(op));
    Enqueue(shared);
    Status status = WaitDone(*shared);
    op = std::move(*shared);
    return status;
  }

  void WriterLoop() {
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

  // Writes every op of `batch` in one transaction and sets each op's status (and seqs).
  void RunBatch(const std::vector<std::shared_ptr<WriteOp>>& batch) {
    std::lock_guard<std::mutex> lock(db_mu_);
    auto fail_all = [&batch](const Status& status) {
      for (const std::shared_ptr<WriteOp>& op : batch) {
        if (op->status.ok()) op->status = status;
        op->seqs.clear();
      }
    };
    if (!broken_.ok()) return fail_all(broken_);

    uint64_t last_seq = last_seq_.load();
    uint64_t snapshot_seq = snapshot_seq_;
    bool has_snapshot = has_snapshot_;
    Status status = Exec("BEGIN IMMEDIATE", "begin transaction");
    if (!status.ok()) return fail_all(status);
    for (const std::shared_ptr<WriteOp>& op : batch) {
      switch (op->kind) {
        case WriteOp::Kind::kAppend:
          status = WriteRecords(*op, last_seq);
          break;
        case WriteOp::Kind::kSnapshot:
          status = WriteSnapshot(*op, last_seq, snapshot_seq, has_snapshot);
          break;
        case WriteOp::Kind::kPut:
          status = WritePut(*op);
          break;
      }
      if (!status.ok()) break;
    }
    if (!status.ok()) {
      // Nothing of the batch is kept; every caller in it gets the error.
      RollbackIfActive();
      if (!sqlite3_get_autocommit(db_)) {
        broken_ = FailedPrecondition(Prefix() + "unusable after a failed rollback (" +
                                     status.message() + "); reopen it");
      }
      return fail_all(status);
    }
    status = Exec("COMMIT", "commit");
    if (!status.ok()) {
      // The commit may or may not have reached the disk; only a reopen can tell.
      RollbackIfActive();
      broken_ = FailedPrecondition(Prefix() +
                                   "unusable after a failed commit whose outcome is unknown (" +
                                   status.message() + "); reopen it");
      return fail_all(broken_);
    }
    last_seq_.store(last_seq);
    snapshot_seq_ = snapshot_seq;
    has_snapshot_ = has_snapshot;
  }

  // The Write* functions return SQLite errors, which fail the whole batch. A call that is
  // merely invalid gets its own op.status and OK is returned: the rest of the batch goes on.

  // Writes op.records with the seqs after last_seq and advances it.
  Status WriteRecords(WriteOp& op, uint64_t& last_seq) {
    sqlite3_stmt* stmt = insert_record_.get();
    uint64_t seq = last_seq;
    std::vector<uint64_t> seqs;
    seqs.reserve(op.records.size());
    for (const auto& [kind, payload] : op.records) {
      ++seq;
      StmtScope scope(stmt);
      sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(seq));
      sqlite3_bind_text64(stmt, 2, kind.data(), kind.size(), SQLITE_STATIC, SQLITE_UTF8);
      sqlite3_bind_blob64(stmt, 3, payload.data(), payload.size(), SQLITE_STATIC);
      GANTRY_RETURN_IF_ERROR(StepDone(stmt, "append record " + std::to_string(seq)));
      seqs.push_back(seq);
    }
    for (const auto& [key, value] : op.puts) GANTRY_RETURN_IF_ERROR(WriteKv(key, value));
    for (const std::string& key : op.erases) {
      sqlite3_stmt* erase = delete_kv_.get();
      StmtScope erase_scope(erase);
      sqlite3_bind_text64(erase, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
      GANTRY_RETURN_IF_ERROR(StepDone(erase, "erase \"" + key + "\""));
    }
    for (const ArchivedJob& job : op.archive) {
      sqlite3_stmt* put = upsert_archive_.get();
      StmtScope put_scope(put);
      sqlite3_bind_int64(put, 1, job.job_id);
      sqlite3_bind_int64(put, 2, job.submit_time);
      sqlite3_bind_int64(put, 3, job.end_time);
      sqlite3_bind_int64(put, 4, job.user_id);
      sqlite3_bind_blob64(put, 5, job.record.data(), job.record.size(), SQLITE_STATIC);
      sqlite3_bind_int64(put, 6, job.array_job_id);
      GANTRY_RETURN_IF_ERROR(StepDone(put, "archive job " + std::to_string(job.job_id)));
    }
    last_seq = seq;
    op.seqs = std::move(seqs);
    return Status::Ok();
  }

  Status WriteSnapshot(WriteOp& op, uint64_t last_seq, uint64_t& snapshot_seq, bool& has_snapshot) {
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
    {
      sqlite3_stmt* stmt = upsert_snapshot_.get();
      StmtScope scope(stmt);
      sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(snapshot.seq));
      sqlite3_bind_blob64(stmt, 2, snapshot.payload.data(), snapshot.payload.size(), SQLITE_STATIC);
      GANTRY_RETURN_IF_ERROR(StepDone(stmt, "save snapshot"));
    }
    {
      sqlite3_stmt* stmt = delete_records_.get();
      StmtScope scope(stmt);
      sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(snapshot.seq));
      GANTRY_RETURN_IF_ERROR(StepDone(stmt, "compact records"));
    }
    snapshot_seq = snapshot.seq;
    has_snapshot = true;
    return Status::Ok();
  }

  Status WritePut(WriteOp& op) { return WriteKv(op.key, op.value); }

  Status WriteKv(const std::string& key, const std::string& value) {
    sqlite3_stmt* stmt = upsert_kv_.get();
    StmtScope scope(stmt);
    sqlite3_bind_text64(stmt, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
    sqlite3_bind_blob64(stmt, 2, value.data(), value.size(), SQLITE_STATIC);
    return StepDone(stmt, "put \"" + key + "\"");
  }

  const std::string path_;
  const SqliteStoreOptions options_;

  // Guards the connection, its statements and the committed state below. The writer holds it
  // for a whole transaction, so readers never see uncommitted rows.
  std::mutex db_mu_;
  sqlite3* db_;
  StmtPtr insert_record_, select_records_, upsert_snapshot_, delete_records_, select_snapshot_,
      upsert_kv_, select_kv_, delete_kv_, upsert_archive_, select_archive_, select_archived_job_;
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

  std::thread writer_;  // last: started by Init, joined by the destructor
};

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                               SqliteStoreOptions options) {
  if (path.empty()) return InvalidArgument("store path is empty");
  if (options.max_batch_calls == 0 || options.max_batch_bytes == 0) {
    return InvalidArgument("store \"" + path +
                           "\": max_batch_calls and max_batch_bytes must be "
                           "at least 1");
  }
  struct stat info;
  bool existed = ::stat(path.c_str(), &info) == 0;
  if (!existed && !options.create_if_missing) {
    return NotFound("store \"" + path + "\": no such file (and create_if_missing is off)");
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (options.create_if_missing) flags |= SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status(CodeFor(rc), "store \"" + path + "\": open: " + message);
  }
  auto store = std::make_unique<SqliteStore>(path, std::move(options), db);
  GANTRY_RETURN_IF_ERROR(store->Init(existed));
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace gantry::store
