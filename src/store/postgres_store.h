// A Store kept in a PostgreSQL database (Debian's libpq and server), for sites whose controller
// state and job history outgrow one machine's disk or want the database run by their DBAs.
//
// Same contracts as every Store (store.h) and the same group commit as the SQLite store
// (BatchedStore): one writer runs each batch of queued writes in one transaction; a commit
// returns once PostgreSQL reports it durable (synchronous_commit as the server has it, `on` by
// default).
//
// One controller per database: the store holds a session advisory lock for its lifetime, so a
// second opener (another gantryd) fails with Unavailable instead of interleaving writes.
//
// Format: tables gantry_store (the marker: application "gantry", schema version),
// records(seq, kind, payload), snapshot(id = 1, seq, payload), kv(key, value) and
// job_archive(job_id, submit_time, end_time, user_id, record, array_job_id) with indexes by
// array, end time and user; gantry_reserve(id, filler) holds the disk reserve (below). A
// database with other tables but no marker, or a newer schema version, is refused with an error
// naming the database.
#ifndef GANTRY_STORE_POSTGRES_STORE_H_
#define GANTRY_STORE_POSTGRES_STORE_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "store/store.h"

namespace gantry::store {

inline constexpr int kPostgresStoreSchemaVersion = 1;
// The advisory lock key every Gantry store holds ("GANT").
inline constexpr int64_t kPostgresStoreLockKey = 0x47414E54;

struct PostgresStoreOptions {
  size_t max_batch_calls = 1024;
  size_t max_batch_bytes = size_t{16} << 20;
  // Room kept on the server's disk for the moment it fills (the gantry_reserve table, rows of
  // zeros stored uncompressed): a write that finds the disk full frees it and goes through, and
  // from then on FreeBytes() says 0, so that gantryd refuses new work while what it accepted
  // goes on. 0 = none. Taken back, at most every `reserve_retry`, once the server has room.
  size_t reserve_bytes = size_t{32} << 20;
  std::chrono::milliseconds reserve_retry{60000};
  std::function<void()> before_batch_for_testing;
};

// Opens the store in the database `conninfo` names (libpq's "host=... port=... dbname=..." or
// a postgresql:// URI), creating the tables in an empty database. Errors name the database
// (never the password) and carry PostgreSQL's message.
Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo,
                                                 PostgresStoreOptions options = {});

}  // namespace gantry::store

#endif  // GANTRY_STORE_POSTGRES_STORE_H_
