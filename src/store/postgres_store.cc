#include "store/postgres_store.h"

#include <endian.h>
#include <libpq-fe.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "store/batched_store.h"

namespace gantry::store {
namespace {

constexpr const char* kCreatePostgresSchema =
    "CREATE TABLE gantry_store (application TEXT NOT NULL, schema_version BIGINT NOT NULL);"
    "CREATE TABLE records (seq BIGINT PRIMARY KEY, kind TEXT NOT NULL, payload BYTEA NOT NULL);"
    "CREATE TABLE snapshot (id BIGINT PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL,"
    "                       payload BYTEA NOT NULL);"
    "CREATE TABLE kv (key TEXT PRIMARY KEY, value BYTEA NOT NULL);"
    "CREATE TABLE job_archive (job_id BIGINT PRIMARY KEY, submit_time BIGINT NOT NULL,"
    "                          end_time BIGINT NOT NULL, user_id BIGINT NOT NULL,"
    "                          record BYTEA NOT NULL, array_job_id BIGINT NOT NULL DEFAULT 0);"
    "CREATE INDEX job_archive_array ON job_archive (array_job_id) WHERE array_job_id != 0;"
    "CREATE INDEX job_archive_end ON job_archive (end_time);"
    "CREATE INDEX job_archive_user ON job_archive (user_id);";

constexpr const char* kArchiveColumns =
    "job_id, submit_time, end_time, user_id, record, array_job_id";

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

// The Status code for a failed call: by connection state, then by SQLSTATE class.
StatusCode CodeFor(PGconn* conn, const PGresult* result) {
  if (PQstatus(conn) != CONNECTION_OK) return StatusCode::kUnavailable;
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string_view sqlstate = state != nullptr ? state : "";
  if (sqlstate.starts_with("53")) return StatusCode::kResourceExhausted;
  if (sqlstate == "42501") return StatusCode::kPermissionDenied;
  if (sqlstate.starts_with("08") || sqlstate.starts_with("57")) return StatusCode::kUnavailable;
  return StatusCode::kInternal;
}

// "dbname on host:port" for messages (the conninfo may hold a password).
std::string DatabaseName(PGconn* conn, const std::string& conninfo) {
  if (conn == nullptr || PQdb(conn) == nullptr) {
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), nullptr);
    std::string db = "postgresql";
    for (PQconninfoOption* o = options; o != nullptr && o->keyword != nullptr; ++o) {
      if (std::strcmp(o->keyword, "dbname") == 0 && o->val != nullptr) db = o->val;
    }
    PQconninfoFree(options);
    return db;
  }
  std::string host = PQhost(conn) != nullptr ? PQhost(conn) : "";
  return std::string(PQdb(conn)) + " on " + host + ":" + (PQport(conn) ? PQport(conn) : "");
}

int64_t Int8At(const PGresult* result, int row, int col) {
  uint64_t big = 0;
  if (PQgetlength(result, row, col) == 8) std::memcpy(&big, PQgetvalue(result, row, col), 8);
  return static_cast<int64_t>(be64toh(big));
}

std::string BytesAt(const PGresult* result, int row, int col) {
  return {PQgetvalue(result, row, col), static_cast<size_t>(PQgetlength(result, row, col))};
}

// One statement's parameters: integers and texts in text format, bytes in binary. Texts and
// bytes are referred to, not copied: they must outlive the statement's run.
class Params {
 public:
  Params& Int(int64_t value) {
    owned_.push_back(std::make_unique<std::string>(std::to_string(value)));
    return Add(*owned_.back(), 0);
  }
  Params& Text(const std::string& value) { return Add(value, 0); }
  Params& Bytes(const std::string& value) { return Add(value, 1); }

  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  Params& Add(const std::string& value, int format) {
    values_.push_back(value.c_str());
    lengths_.push_back(static_cast<int>(value.size()));
    formats_.push_back(format);
    return *this;
  }

  std::vector<std::unique_ptr<std::string>> owned_;  // the integers' texts (stable addresses)
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

class PostgresStore final : public BatchedStore {
 public:
  PostgresStore(std::string name, const PostgresStoreOptions& options, PGconn* conn)
      : BatchedStore(std::move(name), BatchOptionsOf(options)),
        conn_(conn),
        reserve_bytes_(options.reserve_bytes),
        reserve_retry_(options.reserve_retry) {}

  ~PostgresStore() override {
    Stop();
    // The session's end would release the lock too, but only once the server's backend has
    // gone, after PQfinish returns: a store opened right after this one found it still held.
    // Released here, it is free when the destructor returns.
    PQclear(PQexec(
        conn_,
        ("SELECT pg_advisory_unlock(" + std::to_string(kPostgresStoreLockKey) + ")").c_str()));
    PQfinish(conn_);
  }

  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  Status Init() {
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    GANTRY_RETURN_IF_ERROR(StartSession());
    GANTRY_ASSIGN_OR_RETURN(
        ResultPtr marker,
        Query("SELECT to_regclass('gantry_store') IS NOT NULL, "
              "(SELECT count(*) FROM pg_tables WHERE schemaname = current_schema())",
              "read schema"));
    const bool marked = std::string_view(PQgetvalue(marker.get(), 0, 0)) == "t";
    const std::string tables = PQgetvalue(marker.get(), 0, 1);
    if (!marked && tables != "0") {
      return FailedPrecondition(Prefix() + "not a Gantry store (the database has " + tables +
                                " tables and no gantry_store table)");
    }
    if (!marked) {
      const std::string create = std::string("BEGIN;") + kCreatePostgresSchema +
                                 "INSERT INTO gantry_store VALUES ('gantry', " +
                                 std::to_string(kPostgresStoreSchemaVersion) + ");COMMIT;";
      Status created = Exec(create.c_str(), "create schema");
      if (!created.ok()) {
        Rollback();
        return created;
      }
    } else {
      GANTRY_ASSIGN_OR_RETURN(ResultPtr version,
                              Query("SELECT schema_version FROM gantry_store", "read schema"));
      const int64_t v = PQntuples(version.get()) == 1
                            ? std::strtoll(PQgetvalue(version.get(), 0, 0), nullptr, 10)
                            : 0;
      if (v > kPostgresStoreSchemaVersion) {
        return FailedPrecondition(Prefix() + "written with store schema version " +
                                  std::to_string(v) + ", newer than the newest this build reads (" +
                                  std::to_string(kPostgresStoreSchemaVersion) +
                                  "); run a newer Gantry");
      }
      if (v < 1) return FailedPrecondition(Prefix() + "damaged Gantry store: no schema version");
    }
    GANTRY_RETURN_IF_ERROR(Prepare());
    data_directory_ = LocalDataDirectory();
    // A store from before the reserve gets its table here (the schema version is unchanged: an
    // older build ignores it). A disk already full leaves the reserve released.
    GANTRY_RETURN_IF_ERROR(Exec(
        "CREATE TABLE IF NOT EXISTS gantry_reserve (id BIGINT PRIMARY KEY, filler BYTEA NOT NULL);"
        "ALTER TABLE gantry_reserve ALTER COLUMN filler SET STORAGE EXTERNAL",
        "create the disk reserve"));
    if (Status filled = FillReserve(); !filled.ok()) {
      if (filled.code() != StatusCode::kResourceExhausted) return filled;
      reserve_released_ = true;
    }

    GANTRY_ASSIGN_OR_RETURN(ResultPtr seqs,
                            Query("SELECT coalesce((SELECT max(seq) FROM records), 0), "
                                  "coalesce((SELECT max(seq) FROM snapshot), -1)",
                                  "read last sequence number"));
    const int64_t last_record = std::strtoll(PQgetvalue(seqs.get(), 0, 0), nullptr, 10);
    const int64_t snapshot_seq = std::strtoll(PQgetvalue(seqs.get(), 0, 1), nullptr, 10);
    if (last_record < 0) {
      return FailedPrecondition(Prefix() + "damaged Gantry store: negative sequence number " +
                                std::to_string(last_record));
    }
    return Start(static_cast<uint64_t>(last_record),
                 snapshot_seq >= 0 ? std::optional<uint64_t>(snapshot_seq) : std::nullopt);
  }

  // 0 once the reserve was released (the server's disk was found full); otherwise the free space
  // of the server's disk when it is on this host (gantryd then refuses new work on it as on
  // SQLite's), nullopt for a server elsewhere.
  std::optional<uint64_t> FreeBytes() override {
    if (reserve_released_) return 0;
    struct statvfs fs {};
    if (data_directory_.empty() || statvfs(data_directory_.c_str(), &fs) != 0) return std::nullopt;
    return uint64_t{fs.f_bavail} * fs.f_frsize;
  }

 private:
  // The server's disk, where gantryd can see it: the data directory of a server on this host
  // (a unix socket or a loopback address) whose settings this user may read; "" otherwise.
  std::string LocalDataDirectory() {
    const std::string host = PQhost(conn_) == nullptr ? "" : PQhost(conn_);
    const bool local = host.empty() || host.front() == '/' || host == "localhost" ||
                       host == "127.0.0.1" || host == "::1";
    if (!local) return "";
    Result<ResultPtr> shown = Query("SHOW data_directory", "read data_directory");
    if (!shown.ok() || PQntuples(shown->get()) != 1) return "";
    std::string dir = PQgetvalue(shown->get(), 0, 0);
    struct statvfs fs {};
    return statvfs(dir.c_str(), &fs) == 0 ? dir : "";
  }

  // What each session needs: the store's lock (one controller at a time: a session that lost it
  // while disconnected finds it taken and stops) and settings that durability depends on,
  // whatever the server's defaults.
  Status StartSession() {
    GANTRY_ASSIGN_OR_RETURN(ResultPtr locked, Query("SELECT pg_try_advisory_lock(" +
                                                        std::to_string(kPostgresStoreLockKey) + ")",
                                                    "lock store"));
    if (std::string_view(PQgetvalue(locked.get(), 0, 0)) != "t") {
      return Unavailable(Prefix() + "in use by another controller (it holds the store's lock)");
    }
    // A commit is acknowledged once the server flushed it (and its synchronous standbys, if
    // any); no statement or idle transaction holds the writer forever.
    return Exec(
        "SET synchronous_commit = on; SET statement_timeout = '300s'; "
        "SET idle_in_transaction_session_timeout = '300s'",
        "pin session settings");
  }

  // A connection lost between transactions (server restart, network cut that keepalives found)
  // is made again, with its lock, settings and prepared statements; one lost inside a
  // transaction fails that transaction as before.
  Status Reconnect() {
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
      std::string message = PQerrorMessage(conn_);
      while (!message.empty() && message.back() == '\n') message.pop_back();
      return Unavailable(Prefix() + "reconnect: " + message);
    }
    GANTRY_RETURN_IF_ERROR(StartSession());
    return Prepare();
  }

  // Makes gantry_reserve hold reserve_bytes_ (rows of up to 1 MiB), in one transaction: on a
  // full disk it fails with ResourceExhausted and holds what it held before.
  Status FillReserve() {
    if (reserve_bytes_ == 0) return Status::Ok();
    GANTRY_ASSIGN_OR_RETURN(
        ResultPtr held,
        Query("SELECT coalesce(sum(octet_length(filler)), 0) FROM gantry_reserve", "read reserve"));
    if (std::strtoull(PQgetvalue(held.get(), 0, 0), nullptr, 10) >= reserve_bytes_) {
      return Status::Ok();
    }
    const size_t row = std::min<size_t>(reserve_bytes_, size_t{1} << 20);
    const size_t rows = (reserve_bytes_ + row - 1) / row;
    const std::string fill =
        "BEGIN; DELETE FROM gantry_reserve; INSERT INTO gantry_reserve "
        "SELECT g, decode(repeat('00', " +
        std::to_string(row) + "), 'hex') FROM generate_series(1, " + std::to_string(rows) +
        ") g; COMMIT";
    Status filled = Exec(fill.c_str(), "fill the disk reserve");
    if (!filled.ok()) {
      Rollback();
      return filled;
    }
    // Makes the table's visibility and free space maps now: the VACUUM that releases the reserve
    // must not need a new block on a full disk.
    return Exec("VACUUM gantry_reserve", "fill the disk reserve");
  }

  Status Prepare() {
    const std::string archive = std::string("SELECT ") + kArchiveColumns + " FROM job_archive ";
    const std::pair<const char*, std::string> statements[] = {
        {"insert_record", "INSERT INTO records (seq, kind, payload) VALUES ($1, $2, $3)"},
        {"select_records",
         "SELECT seq, kind, payload FROM records WHERE seq > $1 ORDER BY seq "
         "LIMIT $2"},
        {"upsert_snapshot",
         "INSERT INTO snapshot (id, seq, payload) VALUES (1, $1, $2) "
         "ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, "
         "payload = EXCLUDED.payload"},
        {"delete_records", "DELETE FROM records WHERE seq <= $1"},
        {"select_snapshot", "SELECT seq, payload FROM snapshot WHERE id = 1"},
        {"upsert_kv",
         "INSERT INTO kv (key, value) VALUES ($1, $2) "
         "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"},
        {"select_kv", "SELECT value FROM kv WHERE key = $1"},
        {"delete_kv", "DELETE FROM kv WHERE key = $1"},
        {"upsert_archive",
         std::string("INSERT INTO job_archive (") + kArchiveColumns +
             ") VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (job_id) DO UPDATE SET "
             "submit_time = EXCLUDED.submit_time, end_time = EXCLUDED.end_time, "
             "user_id = EXCLUDED.user_id, record = EXCLUDED.record, "
             "array_job_id = EXCLUDED.array_job_id"},
        {"select_archive", archive + "WHERE job_id > $1 AND end_time >= $2 AND submit_time <= $3 "
                                     "ORDER BY job_id LIMIT $4"},
        {"select_archived_job", archive + "WHERE job_id = $1 UNION ALL " + archive +
                                    "WHERE array_job_id = $1 AND array_job_id != 0 "
                                    "AND job_id != $1"},
    };
    for (const auto& [name, sql] : statements) {
      ResultPtr prepared(PQprepare(conn_, name, sql.c_str(), 0, nullptr));
      if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
        return Error("prepare " + std::string(name), prepared.get());
      }
    }

    return Status::Ok();
  }

 protected:
  bool ReleaseReserve() override {
    if (reserve_released_ || reserve_bytes_ == 0) return false;
    // VACUUM gives the emptied pages back to the filesystem, in place: its maps were made when
    // the reserve was filled. (TRUNCATE would make new files and catalog rows, which a full disk
    // may refuse.)
    if (!Exec("DELETE FROM gantry_reserve", "release the disk reserve").ok() ||
        !Exec("VACUUM gantry_reserve", "release the disk reserve").ok()) {
      return false;
    }
    reserve_released_ = true;
    next_refill_ = std::chrono::steady_clock::now() + reserve_retry_;
    return true;
  }
  void MaintainReserve() override {
    if (!reserve_released_ || std::chrono::steady_clock::now() < next_refill_) return;
    next_refill_ = std::chrono::steady_clock::now() + reserve_retry_;
    if (FillReserve().ok()) reserve_released_ = false;
  }

  Status Begin() override {
    if (PQstatus(conn_) == CONNECTION_OK) {
      Status begun = Exec("BEGIN", "begin transaction");
      // Nothing of the transaction was sent: on a connection found dead, it starts again below.
      if (begun.ok() || PQstatus(conn_) == CONNECTION_OK) return begun;
    }
    GANTRY_RETURN_IF_ERROR(Reconnect());
    return Exec("BEGIN", "begin transaction");
  }
  Status Commit() override { return Exec("COMMIT", "commit"); }
  bool Rollback() override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) ResultPtr(PQexec(conn_, "ROLLBACK"));
    return PQtransactionStatus(conn_) == PQTRANS_IDLE;
  }

  Status InsertRecord(uint64_t seq, const std::string& kind, const std::string& payload) override {
    return Change("insert_record",
                  Params().Int(static_cast<int64_t>(seq)).Text(kind).Bytes(payload),
                  "append record " + std::to_string(seq));
  }
  Status UpsertKv(const std::string& key, const std::string& value) override {
    return Change("upsert_kv", Params().Text(key).Bytes(value), "put \"" + key + "\"");
  }
  Status DeleteKv(const std::string& key) override {
    return Change("delete_kv", Params().Text(key), "erase \"" + key + "\"");
  }
  Status UpsertArchive(const ArchivedJob& job) override {
    return Change("upsert_archive",
                  Params()
                      .Int(job.job_id)
                      .Int(job.submit_time)
                      .Int(job.end_time)
                      .Int(job.user_id)
                      .Bytes(job.record)
                      .Int(job.array_job_id),
                  "archive job " + std::to_string(job.job_id));
  }
  Status WriteSnapshotRows(const Snapshot& snapshot) override {
    GANTRY_RETURN_IF_ERROR(Change(
        "upsert_snapshot", Params().Int(static_cast<int64_t>(snapshot.seq)).Bytes(snapshot.payload),
        "save snapshot"));
    return Change("delete_records", Params().Int(static_cast<int64_t>(snapshot.seq)),
                  "compact records");
  }

  Status SelectRecords(uint64_t after, int limit, std::vector<Record>* out) override {
    GANTRY_ASSIGN_OR_RETURN(
        ResultPtr rows, Rows("select_records", Params().Int(static_cast<int64_t>(after)).Int(limit),
                             "read records"));
    for (int i = 0; i < PQntuples(rows.get()); ++i) {
      out->push_back(Record{static_cast<uint64_t>(Int8At(rows.get(), i, 0)),
                            BytesAt(rows.get(), i, 1), BytesAt(rows.get(), i, 2)});
    }
    return Status::Ok();
  }
  Status SelectSnapshot(std::optional<Snapshot>* out) override {
    GANTRY_ASSIGN_OR_RETURN(ResultPtr rows, Rows("select_snapshot", Params(), "read snapshot"));
    if (PQntuples(rows.get()) == 1) {
      *out = Snapshot{static_cast<uint64_t>(Int8At(rows.get(), 0, 0)), BytesAt(rows.get(), 0, 1)};
    }
    return Status::Ok();
  }
  Status SelectKv(const std::string& key, std::optional<std::string>* out) override {
    GANTRY_ASSIGN_OR_RETURN(ResultPtr rows,
                            Rows("select_kv", Params().Text(key), "get \"" + key + "\""));
    if (PQntuples(rows.get()) == 1) *out = BytesAt(rows.get(), 0, 0);
    return Status::Ok();
  }
  Status SelectArchivedJob(uint32_t id, std::vector<ArchivedJob>* out) override {
    GANTRY_ASSIGN_OR_RETURN(ResultPtr rows, Rows("select_archived_job", Params().Int(id),
                                                 "read archived job " + std::to_string(id)));
    Archived(rows.get(), out);
    return Status::Ok();
  }
  Status SelectArchiveChunk(int64_t cursor, int64_t ended, int64_t submitted, int limit,
                            std::vector<ArchivedJob>* out) override {
    GANTRY_ASSIGN_OR_RETURN(
        ResultPtr rows,
        Rows("select_archive", Params().Int(cursor).Int(ended).Int(submitted).Int(limit),
             "read the job archive"));
    Archived(rows.get(), out);
    return Status::Ok();
  }

 private:
  static BatchOptions BatchOptionsOf(const PostgresStoreOptions& options) {
    BatchOptions out;
    out.max_batch_calls = options.max_batch_calls;
    out.max_batch_bytes = options.max_batch_bytes;
    out.before_batch_for_testing = options.before_batch_for_testing;
    return out;
  }

  static void Archived(const PGresult* rows, std::vector<ArchivedJob>* out) {
    for (int i = 0; i < PQntuples(rows); ++i) {
      ArchivedJob job;
      job.job_id = static_cast<uint32_t>(Int8At(rows, i, 0));
      job.submit_time = Int8At(rows, i, 1);
      job.end_time = Int8At(rows, i, 2);
      job.user_id = static_cast<uint32_t>(Int8At(rows, i, 3));
      job.record = BytesAt(rows, i, 4);
      job.array_job_id = static_cast<uint32_t>(Int8At(rows, i, 5));
      out->push_back(std::move(job));
    }
  }

  Status Error(std::string_view what, const PGresult* result) const {
    std::string message = PQerrorMessage(conn_);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return {CodeFor(conn_, result), Prefix() + std::string(what) + ": " + message};
  }

  Status Exec(const char* sql, std::string_view what) {
    ResultPtr result(PQexec(conn_, sql));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Status::Ok();
    return Error(what, result.get());
  }

  // A text-format query without parameters.
  Result<ResultPtr> Query(const std::string& sql, std::string_view what) {
    ResultPtr result(PQexec(conn_, sql.c_str()));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) return Error(what, result.get());
    return result;
  }

  // A prepared statement, binary results.
  ResultPtr Run(const char* name, const Params& params) {
    return ResultPtr(PQexecPrepared(conn_, name, params.size(), params.values(), params.lengths(),
                                    params.formats(), 1));
  }
  Status Change(const char* name, const Params& params, std::string_view what) {
    ResultPtr result = Run(name, params);
    if (PQresultStatus(result.get()) == PGRES_COMMAND_OK) return Status::Ok();
    return Error(what, result.get());
  }
  Result<ResultPtr> Rows(const char* name, const Params& params, std::string_view what) {
    ResultPtr result = Run(name, params);
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) return Error(what, result.get());
    return result;
  }

  PGconn* conn_;
  std::string data_directory_;  // set once by Init, read by any thread after
  const size_t reserve_bytes_;
  const std::chrono::milliseconds reserve_retry_;
  std::atomic<bool> reserve_released_{false};          // FreeBytes reads it from any thread
  std::chrono::steady_clock::time_point next_refill_;  // the writer's (database mutex held)
};

}  // namespace

Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo,
                                                 PostgresStoreOptions options) {
  if (options.max_batch_calls == 0 || options.max_batch_bytes == 0) {
    return InvalidArgument("store: max_batch_calls and max_batch_bytes must be at least 1");
  }
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(conninfo.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string message = parse_error != nullptr ? parse_error : "cannot be read";
    PQfreemem(parse_error);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return InvalidArgument("store: PostgreSQL connection settings: " + message);
  }
  PQconninfoFree(parsed);
  // Defaults the site's settings may override (they come after): a bounded connect, TCP
  // keepalives and a send timeout, so that a dead server or a cut network fails a commit in about
  // half a minute instead of hanging the writer.
  const char* keys[] = {
      "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
      "keepalives_count", "tcp_user_timeout", "dbname",          nullptr};
  const char* values[] = {"10", "1", "10", "5", "3", "30000", conninfo.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  const std::string name = "postgresql " + DatabaseName(conn, conninfo);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    std::string message = conn != nullptr ? PQerrorMessage(conn) : "out of memory";
    while (!message.empty() && message.back() == '\n') message.pop_back();
    PQfinish(conn);
    return Unavailable("store \"" + name + "\": connect: " + message);
  }
  auto store = std::make_unique<PostgresStore>(name, options, conn);
  GANTRY_RETURN_IF_ERROR(store->Init());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace gantry::store
