#include "store/sqlite_store.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/store_test_util.h"

namespace gantry::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT(google-build-using-namespace): the store test helpers

std::unique_ptr<Store> MustOpen(const std::string& path, SqliteStoreOptions options = {}) {
  auto store = OpenSqliteStore(path, std::move(options));
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

TEST(SqliteStoreTest, ASecondOpenOfTheSameFileFails) {
  TempDir dir;
  std::string path = dir.File("state.db");
  MustOpen(path).reset();  // an existing store: the first opener below only reads it
  auto first = MustOpen(path);
  ASSERT_NE(first, nullptr);
  SqliteStoreOptions options;
  options.busy_timeout_ms = 50;
  auto second = OpenSqliteStore(path, options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("database is locked"));
  EXPECT_THAT(second.status().message(), HasSubstr(path));
  EXPECT_THAT(MustAppend(*first, {{"k", "w"}}), ElementsAre(1u));  // the first is unharmed
}

TEST(SqliteStoreTest, MissingFileWithoutCreateIsNotFound) {
  TempDir dir;
  SqliteStoreOptions options;
  options.create_if_missing = false;
  auto store = OpenSqliteStore(dir.File("absent.db"), options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir.File("absent.db")));
}

TEST(SqliteStoreTest, UnopenablePathIsAnErrorNamingIt) {
  TempDir dir;
  std::string path = dir.File("no/such/dir/state.db");
  auto store = OpenSqliteStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("store \"" + path + "\""));
  EXPECT_THAT(store.status().message(), HasSubstr("unable to open database file"));
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

TEST(SqliteStoreTest, FileThatIsNotADatabaseIsRejected) {
  TempDir dir;
  for (const std::string& content :
       {std::string("PartitionName=debug Nodes=n[1-4] Default=YES\n"), std::string(4096, '\0'),
        std::string("SQLite format 3") + std::string(200, '\x7f')}) {
    std::string path = dir.File("slurm.conf");
    WriteFile(path, content);
    auto store = OpenSqliteStore(path);
    ASSERT_FALSE(store.ok()) << content.substr(0, 20);
    EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(store.status().message(), HasSubstr("store \"" + path + "\""));
    EXPECT_THAT(store.status().message(), HasSubstr("not a Gantry store"));
  }
}

// Runs SQL on a database file with plain SQLite, as another program would.
void RunSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(SqliteStoreTest, OtherSqliteDatabaseIsRejectedAndLeftAlone) {
  TempDir dir;
  std::string path = dir.File("other.db");
  RunSql(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  auto store = OpenSqliteStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("not a Gantry store (SQLite application_id "
                                                  "0x00000000, a Gantry store has 0x47414E54)"));
  RunSql(path, "SELECT x FROM t;");  // still readable, unchanged
}

TEST(SqliteStoreTest, StoreFromANewerSchemaVersionIsRejected) {
  TempDir dir;
  std::string path = dir.File("state.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
  }
  RunSql(path, "PRAGMA user_version=" + std::to_string(kSqliteStoreSchemaVersion + 1));
  auto store = OpenSqliteStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(),
              HasSubstr("written with store schema version 4, newer than the newest this build "
                        "reads (3)"));
}

TEST(SqliteStoreTest, EmptyExistingFileBecomesAStore) {
  TempDir dir;
  std::string path = dir.File("state.db");
  WriteFile(path, "");
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(MustAppend(*store, {{"k", "v"}}), ElementsAre(1u));
}

TEST(SqliteStoreTest, InvalidOptionsAreRejected) {
  TempDir dir;
  SqliteStoreOptions options;
  options.max_batch_calls = 0;
  EXPECT_EQ(OpenSqliteStore(dir.File("a.db"), options).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(OpenSqliteStore("").status().code(), StatusCode::kInvalidArgument);
}

// The child process of the crash test: 4 threads append job records as fast as they can and
// report each acknowledged append as "seq thread i" lines on `fd`. Never returns.
[[noreturn]] void AppendUntilKilled(const std::string& path, int fd) {
  auto store = OpenSqliteStore(path);
  if (!store.ok()) _exit(3);
  std::vector<std::thread> threads;
  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&store, fd, t] {
      for (uint64_t i = 0;; ++i) {
        auto seqs = (*store)->Append({{"job.submit", std::to_string(t) + ":" + JobPayload(i)}});
        if (!seqs.ok()) _exit(4);
        std::string line = std::to_string(seqs->front()) + " " + std::to_string(t) + " " +
                           std::to_string(i) + "\n";
        // One write of < PIPE_BUF bytes: lines from different threads never interleave.
        if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(5);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  _exit(6);
}

TEST(SqliteStoreTest, EveryAcknowledgedAppendSurvivesSigkill) {
  TempDir dir;
  std::string path = dir.File("state.db");
  {
    // Some history first, so recovery has to keep old records and continue the seqs.
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    MustAppend(*store, {{"cluster.init", "x"}});
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();  // this process runs no other thread now
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    close(fds[0]);
    AppendUntilKilled(path, fds[1]);
  }
  close(fds[1]);

  // Read acknowledgements until 200 arrived, kill the child, then read the rest it sent.
  std::string acks;
  size_t lines = 0;
  bool killed = false;
  char buf[4096];
  for (;;) {
    if (!killed && lines >= 200) {
      ASSERT_EQ(kill(child, SIGKILL), 0);
      killed = true;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int ready = poll(&pfd, 1, 120000);  // a safety net against a hung child, not a timing check
    if (ready <= 0) {
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
      FAIL() << "no acknowledgement from the child for two minutes";
    }
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: the child is gone
    acks.append(buf, static_cast<size_t>(n));
    lines = static_cast<size_t>(std::count(acks.begin(), acks.end(), '\n'));
  }
  close(fds[0]);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
      << "child exited by itself with status " << wstatus;

  std::map<uint64_t, std::string> acknowledged;  // seq -> payload
  std::istringstream in(acks);
  uint64_t seq;
  int thread;
  uint64_t i;
  while (in >> seq >> thread >> i) {
    EXPECT_TRUE(acknowledged.emplace(seq, std::to_string(thread) + ":" + JobPayload(i)).second)
        << "seq " << seq << " acknowledged twice";
  }
  ASSERT_GE(acknowledged.size(), 200u);

  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  std::vector<Record> records = ReadAll(*store);
  ASSERT_GE(records.size(), acknowledged.size() + 1);
  EXPECT_EQ(records[0], (Record{1, "cluster.init", "x"}));
  for (size_t n = 0; n < records.size(); ++n) {
    ASSERT_EQ(records[n].seq, n + 1) << "the recovered log has a gap or a duplicate";
  }
  for (const auto& [acked_seq, payload] : acknowledged) {
    ASSERT_LE(acked_seq, records.size()) << "acknowledged seq " << acked_seq << " was lost";
    EXPECT_EQ(records[acked_seq - 1].payload, payload) << "seq " << acked_seq;
  }
  // New appends continue after everything the dead process committed.
  EXPECT_THAT(MustAppend(*store, {{"k", "v"}}), ElementsAre(records.size() + 1));
}

}  // namespace
}  // namespace gantry::store

namespace gantry::store {
namespace {

TEST(SqliteStoreArchiveTest, AVersion1StoreGetsTheArchiveWhenOpened) {
  TempDir dir;
  const std::string path = dir.File("state.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    MustAppend(*store, {{"k", "v"}});
  }
  RunSql(path, "DROP TABLE job_archive; PRAGMA user_version=1;");
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(ReadAll(*store).size(), 1u);
  MustArchive(*store, {Archived(7, 1, 2, 0)});
  EXPECT_THAT(ScanIds(*store, {}), ElementsAre(7u));
}

TEST(SqliteStoreArchiveTest, AVersion2StoreGetsArrayIdsWhenOpened) {
  TempDir dir;
  const std::string path = dir.File("state.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    MustArchive(*store, {Archived(7, 1, 2, 0)});
  }
  RunSql(path,
         "DROP INDEX job_archive_array; ALTER TABLE job_archive DROP COLUMN array_job_id;"
         "PRAGMA user_version=2;");
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(ScanIds(*store, {}), ElementsAre(7u));
  ArchivedJob task = Archived(9, 1, 2, 0);
  task.array_job_id = 7;
  MustArchive(*store, {task});
  ArchiveQuery array;
  array.job_ids = {7};
  EXPECT_THAT(ScanIds(*store, array), ElementsAre(7u, 9u));
}

}  // namespace
}  // namespace gantry::store
