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

namespace gantry::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using KindPayloads = std::vector<std::pair<std::string, std::string>>;

// A fresh directory under the test temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "gantry_store_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    char* made = mkdtemp(buf.data());
    EXPECT_NE(made, nullptr) << std::strerror(errno);
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::unique_ptr<Store> MustOpen(const std::string& path, SqliteStoreOptions options = {}) {
  auto store = OpenSqliteStore(path, std::move(options));
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

std::vector<Record> ReadAll(Store& store, uint64_t after = 0) {
  std::vector<Record> records;
  Status status = store.ReadFrom(after, [&records](const Record& record) {
    records.push_back(record);
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return records;
}

std::vector<uint64_t> MustAppend(Store& store, KindPayloads kind_payloads) {
  auto seqs = store.Append(std::move(kind_payloads));
  EXPECT_TRUE(seqs.ok()) << seqs.status().ToString();
  return seqs.ok() ? *seqs : std::vector<uint64_t>{};
}

// A job-submit-like payload of about 300 bytes, different for each n.
std::string JobPayload(uint64_t n) {
  std::string payload = "{\"job_id\":" + std::to_string(n) +
                        ",\"user\":\"alice\",\"partition\":\"gpu\",\"script\":\"";
  payload.append(240, static_cast<char>('a' + n % 26));
  payload += "\"}";
  return payload;
}

TEST(SqliteStoreTest, NewStoreIsEmpty) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LastSeq(), 0u);
  EXPECT_TRUE(ReadAll(*store).empty());
  auto snapshot = store->LatestSnapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_FALSE(snapshot->has_value());
}

TEST(SqliteStoreTest, AppendedRecordsReadBackExactly) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  std::string binary("a\0b\xff\x01", 5);
  EXPECT_THAT(MustAppend(*store, {{"job.submit", JobPayload(1)}}), ElementsAre(1u));
  EXPECT_THAT(MustAppend(*store, {{"job.cancel", ""}, {"node.state", binary}}),
              ElementsAre(2u, 3u));
  EXPECT_EQ(store->LastSeq(), 3u);
  EXPECT_THAT(ReadAll(*store),
              ElementsAre(Record{1, "job.submit", JobPayload(1)}, Record{2, "job.cancel", ""},
                          Record{3, "node.state", binary}));
}

TEST(SqliteStoreTest, RecordsOfOneAppendAreContiguousAndInOrder) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  KindPayloads batch;
  for (int i = 0; i < 600; ++i) batch.emplace_back("k", std::to_string(i));  // > one read chunk
  std::vector<uint64_t> seqs = MustAppend(*store, batch);
  ASSERT_EQ(seqs.size(), 600u);
  std::vector<Record> records = ReadAll(*store);
  ASSERT_EQ(records.size(), 600u);
  for (int i = 0; i < 600; ++i) {
    EXPECT_EQ(seqs[i], static_cast<uint64_t>(i + 1));
    EXPECT_EQ(records[i].seq, seqs[i]);
    EXPECT_EQ(records[i].payload, std::to_string(i));
  }
}

TEST(SqliteStoreTest, EmptyAppendWritesNothing) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(MustAppend(*store, {}).empty());
  EXPECT_EQ(store->LastSeq(), 0u);
  EXPECT_EQ(store->Stats().transactions, 0u);
}

TEST(SqliteStoreTest, BatchWithAnEmptyKindIsRejectedWhole) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  auto seqs = store->Append({{"job.submit", "a"}, {"", "b"}});
  ASSERT_FALSE(seqs.ok());
  EXPECT_EQ(seqs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(seqs.status().message(), HasSubstr("record 1 of the batch has an empty kind"));
  EXPECT_EQ(store->LastSeq(), 0u);
  EXPECT_TRUE(ReadAll(*store).empty());
}

TEST(SqliteStoreTest, ReadFromSkipsRecordsUpToAfter) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  for (int i = 1; i <= 10; ++i) MustAppend(*store, {{"k", std::to_string(i)}});
  struct Case {
    uint64_t after;
    size_t count;
    uint64_t first;
  };
  for (const Case& c : {Case{0, 10, 1}, Case{1, 9, 2}, Case{7, 3, 8}, Case{9, 1, 10}}) {
    std::vector<Record> records = ReadAll(*store, c.after);
    ASSERT_EQ(records.size(), c.count) << "after " << c.after;
    EXPECT_EQ(records.front().seq, c.first);
    EXPECT_EQ(records.back().seq, 10u);
  }
  EXPECT_TRUE(ReadAll(*store, 10).empty());
  EXPECT_TRUE(ReadAll(*store, 1000).empty());
}

TEST(SqliteStoreTest, ReadFromStopsAtTheCallbacksFirstError) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  for (int i = 1; i <= 5; ++i) MustAppend(*store, {{"k", std::to_string(i)}});
  std::vector<uint64_t> seen;
  Status status = store->ReadFrom(0, [&seen](const Record& record) {
    seen.push_back(record.seq);
    return record.seq == 3 ? InvalidArgument("bad record 3") : Status::Ok();
  });
  EXPECT_EQ(status, InvalidArgument("bad record 3"));
  EXPECT_THAT(seen, ElementsAre(1u, 2u, 3u));
}

TEST(SqliteStoreTest, CallbackMayWriteToTheStore) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  MustAppend(*store, {{"k", "1"}, {"k", "2"}});
  Status status = store->ReadFrom(0, [&store](const Record& record) {
    return store->Put("last_replayed", std::to_string(record.seq));
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  auto value = store->Get("last_replayed");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, std::optional<std::string>("2"));
}

TEST(SqliteStoreTest, SnapshotCompactsRecordsUpToItsSeq) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  for (int i = 1; i <= 10; ++i) MustAppend(*store, {{"k", std::to_string(i)}});
  ASSERT_TRUE(store->SaveSnapshot({6, "state@6"}).ok());

  auto snapshot = store->LatestSnapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(*snapshot, std::optional<Snapshot>(Snapshot{6, "state@6"}));
  std::vector<Record> rest = ReadAll(*store, 6);
  ASSERT_EQ(rest.size(), 4u);
  EXPECT_EQ(rest.front().seq, 7u);

  // Reading from before the snapshot would silently skip the compacted records.
  Status stale = store->ReadFrom(2, [](const Record&) { return Status::Ok(); });
  EXPECT_EQ(stale.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.message(), HasSubstr("records up to 6 were compacted into the snapshot"));

  // A later snapshot replaces the earlier one; seqs go on after compacting everything.
  ASSERT_TRUE(store->SaveSnapshot({10, "state@10"}).ok());
  EXPECT_TRUE(ReadAll(*store, 10).empty());
  EXPECT_EQ(store->LastSeq(), 10u);
  EXPECT_THAT(MustAppend(*store, {{"k", "11"}}), ElementsAre(11u));
}

TEST(SqliteStoreTest, SnapshotSeqMustLieBetweenTheLatestSnapshotAndTheLastRecord) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveSnapshot({0, "empty"}).ok());  // the state before any record
  for (int i = 1; i <= 5; ++i) MustAppend(*store, {{"k", std::to_string(i)}});

  Status future = store->SaveSnapshot({6, "x"});
  EXPECT_EQ(future.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(future.message(), HasSubstr("snapshot at seq 6 is after the last record (5)"));

  ASSERT_TRUE(store->SaveSnapshot({4, "state@4"}).ok());
  Status older = store->SaveSnapshot({3, "x"});
  EXPECT_EQ(older.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(older.message(), HasSubstr("older than the latest snapshot (seq 4)"));
  ASSERT_TRUE(store->SaveSnapshot({4, "state@4 again"}).ok());  // same seq: replaces

  auto snapshot = store->LatestSnapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(*snapshot, std::optional<Snapshot>(Snapshot{4, "state@4 again"}));
  EXPECT_EQ(ReadAll(*store, 4).size(), 1u);
}

TEST(SqliteStoreTest, PutOverwritesAndGetReadsBack) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  auto missing = store->Get("next_job_id");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  ASSERT_TRUE(store->Put("next_job_id", "100").ok());
  ASSERT_TRUE(store->Put("next_job_id", "101").ok());
  ASSERT_TRUE(store->Put("empty", "").ok());
  auto value = store->Get("next_job_id");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, std::optional<std::string>("101"));
  auto empty = store->Get("empty");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, std::optional<std::string>(""));
  EXPECT_EQ(store->Put("", "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->LastSeq(), 0u);  // the side table takes no seqs
}

TEST(SqliteStoreTest, ReopenKeepsEverythingAndSeqsContinue) {
  TempDir dir;
  std::string path = dir.File("state.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    MustAppend(*store, {{"job.submit", JobPayload(1)}, {"job.submit", JobPayload(2)}});
    MustAppend(*store, {{"job.cancel", "1"}});
    ASSERT_TRUE(store->Put("next_job_id", "3").ok());
  }
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->LastSeq(), 3u);
    EXPECT_THAT(ReadAll(*store),
                ElementsAre(Record{1, "job.submit", JobPayload(1)},
                            Record{2, "job.submit", JobPayload(2)}, Record{3, "job.cancel", "1"}));
    auto value = store->Get("next_job_id");
    ASSERT_TRUE(value.ok());
    EXPECT_EQ(*value, std::optional<std::string>("3"));
    EXPECT_THAT(MustAppend(*store, {{"job.submit", JobPayload(3)}}), ElementsAre(4u));
    // Compact everything: the seqs must still not be reused after the next reopen.
    ASSERT_TRUE(store->SaveSnapshot({4, "state@4"}).ok());
  }
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->LastSeq(), 4u);
    auto snapshot = store->LatestSnapshot();
    ASSERT_TRUE(snapshot.ok());
    EXPECT_EQ(*snapshot, std::optional<Snapshot>(Snapshot{4, "state@4"}));
    EXPECT_TRUE(ReadAll(*store, 4).empty());
    EXPECT_THAT(MustAppend(*store, {{"job.submit", JobPayload(5)}}), ElementsAre(5u));
  }
}

TEST(SqliteStoreTest, ConcurrentAppendsGetDistinctContiguousSeqs) {
  TempDir dir;
  std::string path = dir.File("state.db");
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  std::vector<std::vector<uint64_t>> seqs(kThreads);
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    std::vector<std::thread> threads;
    threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&store, &seqs, t] {
        for (int i = 0; i < kPerThread; ++i) {
          auto got = store->Append({{"t" + std::to_string(t), std::to_string(i)}});
          if (!got.ok() || got->size() != 1) return;
          seqs[t].push_back(got->front());
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    StoreStats stats = store->Stats();
    EXPECT_EQ(stats.append_calls, uint64_t{kThreads * kPerThread});
    EXPECT_EQ(stats.records_appended, uint64_t{kThreads * kPerThread});
    EXPECT_EQ(stats.queued, 0u);
    EXPECT_EQ(store->LastSeq(), uint64_t{kThreads * kPerThread});
  }

  std::set<uint64_t> all;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(seqs[t].size(), size_t{kPerThread}) << "thread " << t;
    for (int i = 1; i < kPerThread; ++i) EXPECT_LT(seqs[t][i - 1], seqs[t][i]);
    all.insert(seqs[t].begin(), seqs[t].end());
  }
  ASSERT_EQ(all.size(), size_t{kThreads * kPerThread});
  EXPECT_EQ(*all.begin(), 1u);
  EXPECT_EQ(*all.rbegin(), uint64_t{kThreads * kPerThread});

  auto store = MustOpen(path);  // and every one of them is on disk, with its payload
  ASSERT_NE(store, nullptr);
  std::vector<Record> records = ReadAll(*store);
  ASSERT_EQ(records.size(), size_t{kThreads * kPerThread});
  std::map<uint64_t, std::pair<int, int>> owner;  // seq -> (thread, i)
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) owner[seqs[t][i]] = {t, i};
  }
  for (size_t n = 0; n < records.size(); ++n) {
    ASSERT_EQ(records[n].seq, n + 1);
    auto [t, i] = owner.at(records[n].seq);
    EXPECT_EQ(records[n].kind, "t" + std::to_string(t));
    EXPECT_EQ(records[n].payload, std::to_string(i));
  }
}

// Blocks the writer's first batch until released, so the test controls what queues behind it.
class WriterGate {
 public:
  void Hook() {
    std::unique_lock<std::mutex> lock(mu_);
    if (entered_++ > 0) return;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  // Waits until the writer holds its first batch at the gate.
  void WaitUntilHeld() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return entered_ > 0; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int entered_ = 0;
};

// Waits (without any deadline the test asserts on) until `n` writes are queued.
void WaitForQueued(Store& store, uint64_t n) {
  while (store.Stats().queued < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(SqliteStoreTest, CallsQueuedDuringACommitShareTheNextTransaction) {
  TempDir dir;
  auto gate = std::make_shared<WriterGate>();
  SqliteStoreOptions options;
  options.before_batch_for_testing = [gate] { gate->Hook(); };
  auto store = MustOpen(dir.File("state.db"), options);
  ASSERT_NE(store, nullptr);

  std::vector<std::thread> threads;

  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  threads.emplace_back([&store] { MustAppend(*store, {{"first", ""}}); });
  gate->WaitUntilHeld();
  for (int t = 0; t < 7; ++t) {
    threads.emplace_back([&store, t] { MustAppend(*store, {{"t", std::to_string(t)}}); });
  }
  threads.emplace_back([&store] { EXPECT_TRUE(store->Put("key", "value").ok()); });
  WaitForQueued(*store, 8);
  gate->Open();
  for (std::thread& thread : threads) thread.join();

  StoreStats stats = store->Stats();
  EXPECT_EQ(stats.append_calls, 8u);
  EXPECT_EQ(stats.write_calls, 9u);
  EXPECT_EQ(stats.transactions, 2u);  // the first call alone, then the 8 queued behind it
  EXPECT_EQ(stats.largest_batch, 8u);
  EXPECT_EQ(ReadAll(*store).size(), 8u);
}

TEST(SqliteStoreTest, GroupCommitBatchesAreBoundedByCallCount) {
  TempDir dir;
  auto gate = std::make_shared<WriterGate>();
  SqliteStoreOptions options;
  options.max_batch_calls = 3;
  options.before_batch_for_testing = [gate] { gate->Hook(); };
  auto store = MustOpen(dir.File("state.db"), options);
  ASSERT_NE(store, nullptr);

  std::vector<std::thread> threads;

  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  threads.emplace_back([&store] { MustAppend(*store, {{"first", ""}}); });
  gate->WaitUntilHeld();
  for (int t = 0; t < 7; ++t) {
    threads.emplace_back([&store] { MustAppend(*store, {{"k", "v"}, {"k", "w"}}); });
  }
  WaitForQueued(*store, 7);
  gate->Open();
  for (std::thread& thread : threads) thread.join();

  StoreStats stats = store->Stats();
  EXPECT_EQ(stats.transactions, 4u);  // 1, then 3 + 3 + 1
  EXPECT_EQ(stats.largest_batch, 3u);
  EXPECT_EQ(stats.records_appended, 15u);
}

TEST(SqliteStoreTest, GroupCommitBatchesAreBoundedByBytesButNeverSplitACall) {
  TempDir dir;
  auto gate = std::make_shared<WriterGate>();
  SqliteStoreOptions options;
  options.max_batch_bytes = 1000;
  options.before_batch_for_testing = [gate] { gate->Hook(); };
  auto store = MustOpen(dir.File("state.db"), options);
  ASSERT_NE(store, nullptr);

  std::vector<std::thread> threads;

  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  threads.emplace_back([&store] { MustAppend(*store, {{"first", ""}}); });
  gate->WaitUntilHeld();
  // Each call is 1 + 599 bytes: two never fit in 1000 bytes; a 3000-byte call runs alone.
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&store] { MustAppend(*store, {{"k", std::string(599, 'x')}}); });
  }
  WaitForQueued(*store, 3);
  threads.emplace_back([&store] { MustAppend(*store, {{"k", std::string(2999, 'y')}}); });
  WaitForQueued(*store, 4);
  gate->Open();
  for (std::thread& thread : threads) thread.join();

  StoreStats stats = store->Stats();
  EXPECT_EQ(stats.transactions, 5u);
  EXPECT_EQ(stats.largest_batch, 1u);
  EXPECT_EQ(ReadAll(*store).size(), 5u);
}

TEST(SqliteStoreTest, AnInvalidCallInABatchFailsAloneAndTheOthersCommit) {
  TempDir dir;
  auto gate = std::make_shared<WriterGate>();
  SqliteStoreOptions options;
  options.before_batch_for_testing = [gate] { gate->Hook(); };
  auto store = MustOpen(dir.File("state.db"), options);
  ASSERT_NE(store, nullptr);

  std::vector<std::thread> threads;

  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  threads.emplace_back([&store] { MustAppend(*store, {{"first", ""}}); });
  gate->WaitUntilHeld();
  Status bad_snapshot;
  threads.emplace_back([&store, &bad_snapshot] { bad_snapshot = store->SaveSnapshot({99, ""}); });
  WaitForQueued(*store, 1);
  threads.emplace_back([&store] { MustAppend(*store, {{"second", ""}}); });
  WaitForQueued(*store, 2);
  gate->Open();
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(bad_snapshot.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Stats().transactions, 2u);
  EXPECT_EQ(ReadAll(*store).size(), 2u);
}

TEST(SqliteStoreTest, DestructorFinishesQueuedWrites) {
  TempDir dir;
  std::string path = dir.File("state.db");
  auto gate = std::make_shared<WriterGate>();
  SqliteStoreOptions options;
  options.before_batch_for_testing = [gate] { gate->Hook(); };
  std::vector<std::thread> threads;
  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  {
    auto store = MustOpen(path, options);
    ASSERT_NE(store, nullptr);
    threads.emplace_back([&store] { MustAppend(*store, {{"first", ""}}); });
    gate->WaitUntilHeld();
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&store] { MustAppend(*store, {{"k", "v"}}); });
    }
    WaitForQueued(*store, 4);
    gate->Open();
    for (std::thread& thread : threads) thread.join();
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(ReadAll(*store).size(), 5u);
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

TEST(SqliteStoreEnqueueTest, BatchCommitsRecordsAndSideTableTogether) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("payload/1", "old").ok());
  WriteBatch batch;
  batch.records = {{"job.submit", JobPayload(2)}};
  batch.puts = {{"payload/2", "script 2"}};
  batch.erases = {"payload/1", "never-put"};
  auto seqs = store->EnqueueWrite(std::move(batch))->Wait();
  ASSERT_TRUE(seqs.ok()) << seqs.status().ToString();
  EXPECT_THAT(*seqs, ElementsAre(1u));
  EXPECT_EQ(*store->Get("payload/2"), std::optional<std::string>("script 2"));
  EXPECT_EQ(*store->Get("payload/1"), std::nullopt);
}

TEST(SqliteStoreEnqueueTest, LogKeepsTheOrderOfEnqueueCallsNotOfWaits) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  std::vector<std::unique_ptr<PendingWrite>> pending;
  for (int i = 0; i < 50; ++i) {
    WriteBatch batch;
    batch.records = {{"event", std::to_string(i)}};
    pending.push_back(store->EnqueueWrite(std::move(batch)));
  }
  for (int i = 49; i >= 0; --i) {
    auto seqs = pending[i]->Wait();
    ASSERT_TRUE(seqs.ok());
    EXPECT_THAT(*seqs, ElementsAre(static_cast<uint64_t>(i + 1)));
  }
  std::vector<Record> records = ReadAll(*store);
  ASSERT_EQ(records.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(records[i].payload, std::to_string(i));
}

TEST(SqliteStoreEnqueueTest, InvalidBatchFailsInWaitAndWritesNothing) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  WriteBatch batch;
  batch.records = {{"event", "x"}};
  batch.puts = {{"", "no key"}};
  auto seqs = store->EnqueueWrite(std::move(batch))->Wait();
  EXPECT_EQ(seqs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->LastSeq(), 0u);
}

// ---- job archive ------------------------------------------------------------------------------

ArchivedJob Archived(uint32_t id, int64_t submit, int64_t end, uint32_t uid) {
  return ArchivedJob{id, submit, end, uid, "job-" + std::to_string(id) + "-" + std::to_string(end),
                     0};
}

std::vector<uint32_t> ScanIds(Store& store, const ArchiveQuery& query) {
  std::vector<uint32_t> ids;
  Status status = store.ScanArchive(query, [&ids](const ArchivedJob& job) {
    ids.push_back(job.job_id);
    return Status::Ok();
  });
  EXPECT_TRUE(status.ok()) << status.ToString();
  return ids;
}

void MustArchive(Store& store, std::vector<ArchivedJob> jobs) {
  WriteBatch batch;
  batch.records = {{"job.ended", "x"}};
  batch.archive = std::move(jobs);
  auto written = store.EnqueueWrite(std::move(batch))->Wait();
  ASSERT_TRUE(written.ok()) << written.status().ToString();
}

TEST(SqliteStoreArchiveTest, JobsAreKeptOnePerIdAndFilteredByTimeUserAndId) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  MustArchive(*store, {Archived(3, 100, 200, 1001), Archived(1, 50, 60, 0)});
  MustArchive(*store, {Archived(2, 150, 400, 1002), Archived(3, 300, 500, 1001)});  // 3 again

  EXPECT_THAT(ScanIds(*store, {}), ElementsAre(1u, 2u, 3u));
  ArchiveQuery window;
  window.ended_at_or_after = 400;
  window.submitted_at_or_before = 250;
  EXPECT_THAT(ScanIds(*store, window), ElementsAre(2u));  // 3's last run was submitted at 300
  ArchiveQuery users;
  users.user_ids = {1001, 0};
  EXPECT_THAT(ScanIds(*store, users), ElementsAre(1u, 3u));
  ArchiveQuery ids;
  ids.job_ids = {3, 9, 1, 3};
  EXPECT_THAT(ScanIds(*store, ids), ElementsAre(1u, 3u));
  ids.ended_at_or_after = 100;
  EXPECT_THAT(ScanIds(*store, ids), ElementsAre(3u));

  std::vector<ArchivedJob> got;
  ids.job_ids = {3};
  ASSERT_TRUE(store
                  ->ScanArchive(ids,
                                [&got](const ArchivedJob& job) {
                                  got.push_back(job);
                                  return Status::Ok();
                                })
                  .ok());
  EXPECT_THAT(got, ElementsAre(Archived(3, 300, 500, 1001)));
}

TEST(SqliteStoreArchiveTest, LargeArchivesAreReadInChunksAndSurviveReopen) {
  TempDir dir;
  const std::string path = dir.File("state.db");
  {
    auto store = MustOpen(path);
    ASSERT_NE(store, nullptr);
    std::vector<ArchivedJob> jobs;
    for (uint32_t id = 1; id <= 1500; ++id) jobs.push_back(Archived(id, id, id + 10, id % 3));
    MustArchive(*store, std::move(jobs));
  }
  auto store = MustOpen(path);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(ScanIds(*store, {}).size(), 1500u);
  ArchiveQuery query;
  query.user_ids = {2};
  query.ended_at_or_after = 1000;
  const std::vector<uint32_t> ids = ScanIds(*store, query);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), 992u);  // 992 % 3 == 2, ended 1002
  EXPECT_EQ(ids.size(), 170u);   // 992, 995, ..., 1499
  int calls = 0;
  Status stopped = store->ScanArchive({}, [&calls](const ArchivedJob&) {
    return ++calls == 3 ? OutOfRange("enough") : Status::Ok();
  });
  EXPECT_EQ(stopped.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(calls, 3);
}

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

TEST(SqliteStoreArchiveTest, AnArrayIdNamesEveryTaskOfTheArray) {
  TempDir dir;
  auto store = MustOpen(dir.File("state.db"));
  ASSERT_NE(store, nullptr);
  std::vector<ArchivedJob> jobs = {Archived(10, 1, 5, 0), Archived(11, 1, 3, 0),
                                   Archived(12, 1, 4, 0), Archived(13, 2, 6, 0)};
  jobs[0].array_job_id = jobs[1].array_job_id = jobs[2].array_job_id = 10;
  MustArchive(*store, jobs);
  ArchiveQuery query;
  query.job_ids = {10, 11};
  EXPECT_THAT(ScanIds(*store, query), ElementsAre(10u, 11u, 12u));
  query.job_ids = {12};
  EXPECT_THAT(ScanIds(*store, query), ElementsAre(12u));
}

}  // namespace
}  // namespace gantry::store
