// The PostgreSQL server the store tests use: tests/store/postgres.sh starts a throwaway one on
// loopback and writes its connection settings (without dbname) to the file
// GANTRY_TEST_POSTGRES_FILE names. Each test gets a database of its own.
#ifndef GANTRY_STORE_POSTGRES_TEST_SERVER_H_
#define GANTRY_STORE_POSTGRES_TEST_SERVER_H_

#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace gantry::store::testing {

// The server's settings ("host=127.0.0.1 port=... user=..."), or nullopt when there is none.
inline std::optional<std::string> PostgresServer() {
  const char* file = std::getenv("GANTRY_TEST_POSTGRES_FILE");
  if (file == nullptr) return std::nullopt;
  std::ifstream in(file);
  std::string settings;
  if (!std::getline(in, settings) || settings.empty()) return std::nullopt;
  return settings;
}

// Runs `sql` on the server's `postgres` database; false (with a test failure) when it fails.
// CREATE and DROP DATABASE fail while any other session is in the template or the database
// (the autovacuum launcher starts one in template1 soon after a fresh server starts, and
// PostgreSQL waits only 5 s for it to leave): those are tried again for up to a minute.
inline bool RunAdminSql(const std::string& server, const std::string& sql,
                        const std::string& dbname = "postgres") {
  std::string error;
  for (int attempt = 0; attempt < 60; ++attempt) {
    if (attempt > 0) sleep(1);
    PGconn* conn = PQconnectdb((server + " dbname=" + dbname).c_str());
    bool ok = PQstatus(conn) == CONNECTION_OK;
    if (ok) {
      PGresult* result = PQexec(conn, sql.c_str());
      ok = PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK;
      PQclear(result);
    }
    error = PQerrorMessage(conn);
    PQfinish(conn);
    if (ok) return true;
    if (error.find("is being accessed by other users") == std::string::npos) break;
  }
  ADD_FAILURE() << sql << ": " << error;
  return false;
}

// A database of its own for one test, dropped afterwards.
class TestDatabase {
 public:
  // `options` go after CREATE DATABASE's name (e.g. "TABLESPACE t").
  explicit TestDatabase(std::string server, const std::string& options = "")
      : server_(std::move(server)) {
    static std::atomic<int> counter{0};
    name_ = "gantry_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    RunAdminSql(server_, "CREATE DATABASE " + name_ + (options.empty() ? "" : " " + options));
  }
  ~TestDatabase() { RunAdminSql(server_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)"); }
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  std::string Conninfo() const { return server_ + " dbname=" + name_; }
  bool Sql(const std::string& sql) const { return RunAdminSql(server_, sql, name_); }

 private:
  std::string server_;
  std::string name_;
};

}  // namespace gantry::store::testing

#endif  // GANTRY_STORE_POSTGRES_TEST_SERVER_H_
