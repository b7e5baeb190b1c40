// A Store kept in one SQLite database file (Debian's libsqlite3).
//
// Durability: WAL journal with synchronous=FULL, so a commit returns only after the WAL is
// fsync'd. One writer thread takes every queued write (up to a count and byte bound), runs them
// in ONE transaction, commits, then wakes all their callers: concurrent callers share one fsync
// (group commit). A call's own records are never split across transactions.
//
// The file is locked for the lifetime of the store (SQLite exclusive locking mode): a second
// process, or a second OpenSqliteStore on the same file, fails with Unavailable after
// `busy_timeout_ms`. Crash safety does not depend on closing: after a kill the next open
// recovers every committed transaction from the WAL.
//
// Format: tables `records(seq, kind, payload)`, `snapshot(seq, payload)` (at most one row) and
// `kv(key, value)`; `PRAGMA application_id` marks a Gantry store and `PRAGMA user_version` is
// the schema version. Opening another SQLite database, a file that is not a database, or a store
// written by a newer schema version is an error that names the file.
#ifndef GANTRY_STORE_SQLITE_STORE_H_
#define GANTRY_STORE_SQLITE_STORE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "store/store.h"

namespace gantry::store {

// "GANT": the PRAGMA application_id of every Gantry store.
inline constexpr int32_t kSqliteStoreApplicationId = 0x47414E54;
// The schema version this build writes and the newest it can open.
inline constexpr int32_t kSqliteStoreSchemaVersion = 3;  // 2: job_archive, 3: its array ids

struct SqliteStoreOptions {
  // Create the file (and the schema) when it does not exist; otherwise NotFound.
  bool create_if_missing = true;
  // How long to wait for a lock held by another connection before failing.
  int busy_timeout_ms = 5000;
  // Bounds of one group-commit transaction. A single call larger than either bound still runs,
  // alone in its transaction.
  size_t max_batch_calls = 1024;
  size_t max_batch_bytes = size_t{16} << 20;
  // Test hook: the writer thread calls it after taking a batch, before writing it.
  std::function<void()> before_batch_for_testing;
};

// Opens (or creates) the store at `path`. Errors name `path` and carry SQLite's message.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                               SqliteStoreOptions options = {});

}  // namespace gantry::store

#endif  // GANTRY_STORE_SQLITE_STORE_H_
