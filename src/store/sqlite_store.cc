#include "store/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

#include "store/batched_store.h"

namespace gantry::store {
namespace {

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

BatchOptions BatchOptionsOf(const SqliteStoreOptions& options) {
  BatchOptions out;
  out.max_batch_calls = options.max_batch_calls;
  out.max_batch_bytes = options.max_batch_bytes;
  out.before_batch_for_testing = options.before_batch_for_testing;
  return out;
}

class SqliteStore final : public BatchedStore {
 public:
  SqliteStore(std::string path, SqliteStoreOptions options, sqlite3* db)
      : BatchedStore(path, BatchOptionsOf(options)),
        path_(std::move(path)),
        options_(std::move(options)),
        db_(db) {}

  ~SqliteStore() override {
    Stop();
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
    return Start(static_cast<uint64_t>(last_record),
                 snapshot_seq >= 0 ? std::optional<uint64_t>(snapshot_seq) : std::nullopt);
  }

  // BatchedStore's hooks.
  Status Begin() override { return Exec("BEGIN IMMEDIATE", "begin transaction"); }
  Status Commit() override { return Exec("COMMIT", "commit"); }
  bool Rollback() override {
    RollbackIfActive();
    return sqlite3_get_autocommit(db_) != 0;
  }

  Status InsertRecord(uint64_t seq, const std::string& kind, const std::string& payload) override {
    sqlite3_stmt* stmt = insert_record_.get();
    StmtScope scope(stmt);
    sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(seq));
    sqlite3_bind_text64(stmt, 2, kind.data(), kind.size(), SQLITE_STATIC, SQLITE_UTF8);
    sqlite3_bind_blob64(stmt, 3, payload.data(), payload.size(), SQLITE_STATIC);
    return StepDone(stmt, "append record " + std::to_string(seq));
  }

  Status UpsertKv(const std::string& key, const std::string& value) override {
    sqlite3_stmt* stmt = upsert_kv_.get();
    StmtScope scope(stmt);
    sqlite3_bind_text64(stmt, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
    sqlite3_bind_blob64(stmt, 2, value.data(), value.size(), SQLITE_STATIC);
    return StepDone(stmt, "put \"" + key + "\"");
  }

  Status DeleteKv(const std::string& key) override {
    sqlite3_stmt* erase = delete_kv_.get();
    StmtScope scope(erase);
    sqlite3_bind_text64(erase, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
    return StepDone(erase, "erase \"" + key + "\"");
  }

  Status UpsertArchive(const ArchivedJob& job) override {
    sqlite3_stmt* put = upsert_archive_.get();
    StmtScope scope(put);
    sqlite3_bind_int64(put, 1, job.job_id);
    sqlite3_bind_int64(put, 2, job.submit_time);
    sqlite3_bind_int64(put, 3, job.end_time);
    sqlite3_bind_int64(put, 4, job.user_id);
    sqlite3_bind_blob64(put, 5, job.record.data(), job.record.size(), SQLITE_STATIC);
    sqlite3_bind_int64(put, 6, job.array_job_id);
    return StepDone(put, "archive job " + std::to_string(job.job_id));
  }

  Status WriteSnapshotRows(const Snapshot& snapshot) override {
    {
      sqlite3_stmt* stmt = upsert_snapshot_.get();
      StmtScope scope(stmt);
      sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(snapshot.seq));
      sqlite3_bind_blob64(stmt, 2, snapshot.payload.data(), snapshot.payload.size(), SQLITE_STATIC);
      GANTRY_RETURN_IF_ERROR(StepDone(stmt, "save snapshot"));
    }
    sqlite3_stmt* stmt = delete_records_.get();
    StmtScope scope(stmt);
    sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(snapshot.seq));
    return StepDone(stmt, "compact records");
  }

  Status SelectRecords(uint64_t after, int limit, std::vector<Record>* out) override {
    sqlite3_stmt* stmt = select_records_.get();
    StmtScope scope(stmt);
    sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(after));
    sqlite3_bind_int(stmt, 2, limit);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      Record record;
      record.seq = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
      record.kind = ColumnBytes(stmt, 1);
      record.payload = ColumnBytes(stmt, 2);
      out->push_back(std::move(record));
    }
    return rc == SQLITE_DONE ? Status::Ok() : Error("read records", rc);
  }

  Status SelectSnapshot(std::optional<Snapshot>* out) override {
    sqlite3_stmt* stmt = select_snapshot_.get();
    StmtScope scope(stmt);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return Error("read snapshot", rc);
    Snapshot snapshot;
    snapshot.seq = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
    snapshot.payload = ColumnBytes(stmt, 1);
    *out = std::move(snapshot);
    return Status::Ok();
  }

  Status SelectKv(const std::string& key, std::optional<std::string>* out) override {
    sqlite3_stmt* stmt = select_kv_.get();
    StmtScope scope(stmt);
    sqlite3_bind_text64(stmt, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return Error("get \"" + key + "\"", rc);
    *out = ColumnBytes(stmt, 0);
    return Status::Ok();
  }

  Status SelectArchivedJob(uint32_t id, std::vector<ArchivedJob>* out) override {
    sqlite3_stmt* stmt = select_archived_job_.get();
    StmtScope scope(stmt);
    sqlite3_bind_int64(stmt, 1, id);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) out->push_back(ArchivedRow(stmt));
    return rc == SQLITE_DONE ? Status::Ok() : Error("read archived job " + std::to_string(id), rc);
  }

  Status SelectArchiveChunk(int64_t cursor, int64_t ended, int64_t submitted, int limit,
                            std::vector<ArchivedJob>* out) override {
    sqlite3_stmt* stmt = select_archive_.get();
    StmtScope scope(stmt);
    sqlite3_bind_int64(stmt, 1, cursor);
    sqlite3_bind_int64(stmt, 2, ended);
    sqlite3_bind_int64(stmt, 3, submitted);
    sqlite3_bind_int(stmt, 4, limit);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) out->push_back(ArchivedRow(stmt));
    return rc == SQLITE_DONE ? Status::Ok() : Error("read the job archive", rc);
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

  // A Status for SQLite result `rc` of `what`, with SQLite's message. Call with the store's mutex
  // held, right after the failing call.
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

  std::optional<uint64_t> FreeBytes() override {
    struct statvfs fs {};
    if (statvfs(Directory().c_str(), &fs) != 0) return std::nullopt;
    return uint64_t{fs.f_bavail} * fs.f_frsize;
  }

  std::string Directory() const {
    const size_t slash = path_.find_last_of('/');
    return slash == std::string::npos ? "." : path_.substr(0, slash == 0 ? 1 : slash);
  }

  // A new file's directory entry must be durable too, or a power loss could lose the store.
  Status SyncParentDirectory() {
    const std::string dir = Directory();
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

  const std::string path_;
  const SqliteStoreOptions options_;

  sqlite3* db_;
  StmtPtr insert_record_, select_records_, upsert_snapshot_, delete_records_, select_snapshot_,
      upsert_kv_, select_kv_, delete_kv_, upsert_archive_, select_archive_, select_archived_job_;
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
