// The contract of store.h, run against every backend: SQLite and the in-memory store always,
// PostgreSQL when the test server runs (tests/store/postgres.sh; skipped otherwise), etcd where
// Debian's etcd-server is installed (one member for the whole binary; skipped otherwise).
#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "etcd/testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/etcd_store.h"
#include "store/memory_store.h"
#include "store/postgres_store.h"
#include "store/postgres_test_server.h"
#include "store/sqlite_store.h"
#include "store/store_test_util.h"

namespace gantry::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace testing;  // NOLINT(google-build-using-namespace): the store test helpers

// The group-commit options every backend has.
struct BatchKnobs {
  size_t max_batch_calls = 1024;
  size_t max_batch_bytes = size_t{16} << 20;
  std::function<void()> before_batch_for_testing;
};

class StoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "etcd") {
      etcd_ = etcd::testing::TestMember::Endpoint();
      if (!etcd_) GTEST_SKIP() << "no etcd for the tests (etcd-server)";
      // Each test's own keys; the same on every open within the test.
      etcd_prefix_ = std::string("contract/") +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
      return;
    }
    if (GetParam() != "postgresql") return;
    const std::optional<std::string> server = PostgresServer();
    if (!server) GTEST_SKIP() << "no PostgreSQL server for the tests (GANTRY_TEST_POSTGRES_FILE)";
    database_.emplace(*server);
  }

  // The test's store: the same file or database every time.
  std::unique_ptr<Store> Open(const BatchKnobs& knobs = {}) {
    PostgresStoreOptions postgres;
    postgres.max_batch_calls = knobs.max_batch_calls;
    postgres.max_batch_bytes = knobs.max_batch_bytes;
    postgres.before_batch_for_testing = knobs.before_batch_for_testing;
    SqliteStoreOptions sqlite;
    sqlite.max_batch_calls = knobs.max_batch_calls;
    sqlite.max_batch_bytes = knobs.max_batch_bytes;
    sqlite.before_batch_for_testing = knobs.before_batch_for_testing;
    BatchOptions memory;
    memory.max_batch_calls = knobs.max_batch_calls;
    memory.max_batch_bytes = knobs.max_batch_bytes;
    memory.before_batch_for_testing = knobs.before_batch_for_testing;
    EtcdStoreOptions etcd;
    if (etcd_) {
      etcd.endpoints = {*etcd_};
      etcd.prefix = etcd_prefix_;
      etcd.max_batch_calls = knobs.max_batch_calls;
      etcd.max_batch_bytes = knobs.max_batch_bytes;
      etcd.before_batch_for_testing = knobs.before_batch_for_testing;
    }
    Result<std::unique_ptr<Store>> store = etcd_                    ? OpenEtcdStore(etcd)
                                           : GetParam() == "memory" ? OpenMemoryStore(disk_, memory)
                                           : database_
                                               ? OpenPostgresStore(database_->Conninfo(), postgres)
                                               : OpenSqliteStore(dir_.File("state.db"), sqlite);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // The test's store, its writer holding its first batch (one call, made here on a thread of
  // `threads`) at `gate` until the test opens it: what the test queues meanwhile forms the
  // next batches.
  std::unique_ptr<Store> OpenHeld(const std::shared_ptr<WriterGate>& gate, BatchKnobs knobs,
                                  std::vector<std::thread>* threads) {
    knobs.before_batch_for_testing = [gate] { gate->Hook(); };
    std::unique_ptr<Store> store = Open(knobs);
    if (store == nullptr) return nullptr;
    threads->reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
    Store* raw = store.get();
    threads->emplace_back([raw] { MustAppend(*raw, {{"first", ""}}); });
    gate->WaitUntilHeld();
    return store;
  }

 private:
  TempDir dir_;
  std::optional<TestDatabase> database_;
  std::optional<std::string> etcd_;
  std::string etcd_prefix_;
  std::shared_ptr<MemoryDisk> disk_ = std::make_shared<MemoryDisk>();
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractTest,
                         ::testing::Values("sqlite", "memory", "postgresql", "etcd"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST_P(StoreContractTest, NewStoreIsEmpty) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LastSeq(), 0u);
  EXPECT_TRUE(ReadAll(*store).empty());
  auto snapshot = store->LatestSnapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_FALSE(snapshot->has_value());
}

TEST_P(StoreContractTest, AppendedRecordsReadBackExactly) {
  auto store = Open();
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

TEST_P(StoreContractTest, RecordsOfOneAppendAreContiguousAndInOrder) {
  auto store = Open();
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

TEST_P(StoreContractTest, EmptyAppendWritesNothing) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(MustAppend(*store, {}).empty());
  EXPECT_EQ(store->LastSeq(), 0u);
  EXPECT_EQ(store->Stats().transactions, 0u);
}

TEST_P(StoreContractTest, BatchWithAnEmptyKindIsRejectedWhole) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto seqs = store->Append({{"job.submit", "a"}, {"", "b"}});
  ASSERT_FALSE(seqs.ok());
  EXPECT_EQ(seqs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(seqs.status().message(), HasSubstr("record 1 of the batch has an empty kind"));
  EXPECT_EQ(store->LastSeq(), 0u);
  EXPECT_TRUE(ReadAll(*store).empty());
}

TEST_P(StoreContractTest, ReadFromSkipsRecordsUpToAfter) {
  auto store = Open();
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

TEST_P(StoreContractTest, ReadFromStopsAtTheCallbacksFirstError) {
  auto store = Open();
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

TEST_P(StoreContractTest, CallbackMayWriteToTheStore) {
  auto store = Open();
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

TEST_P(StoreContractTest, SnapshotCompactsRecordsUpToItsSeq) {
  auto store = Open();
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

TEST_P(StoreContractTest, SnapshotSeqMustLieBetweenTheLatestSnapshotAndTheLastRecord) {
  auto store = Open();
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

TEST_P(StoreContractTest, PutOverwritesAndGetReadsBack) {
  auto store = Open();
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

TEST_P(StoreContractTest, ReopenKeepsEverythingAndSeqsContinue) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    MustAppend(*store, {{"job.submit", JobPayload(1)}, {"job.submit", JobPayload(2)}});
    MustAppend(*store, {{"job.cancel", "1"}});
    ASSERT_TRUE(store->Put("next_job_id", "3").ok());
  }
  {
    auto store = Open();
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
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->LastSeq(), 4u);
    auto snapshot = store->LatestSnapshot();
    ASSERT_TRUE(snapshot.ok());
    EXPECT_EQ(*snapshot, std::optional<Snapshot>(Snapshot{4, "state@4"}));
    EXPECT_TRUE(ReadAll(*store, 4).empty());
    EXPECT_THAT(MustAppend(*store, {{"job.submit", JobPayload(5)}}), ElementsAre(5u));
  }
}

TEST_P(StoreContractTest, ConcurrentAppendsGetDistinctContiguousSeqs) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  std::vector<std::vector<uint64_t>> seqs(kThreads);
  {
    auto store = Open();
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

  auto store = Open();  // and every one of them is on disk, with its payload
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

TEST_P(StoreContractTest, CallsQueuedDuringACommitShareTheNextTransaction) {
  auto gate = std::make_shared<WriterGate>();
  BatchKnobs options;
  std::vector<std::thread> threads;
  auto store = OpenHeld(gate, options, &threads);
  ASSERT_NE(store, nullptr);
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

TEST_P(StoreContractTest, GroupCommitBatchesAreBoundedByCallCount) {
  auto gate = std::make_shared<WriterGate>();
  BatchKnobs options;
  options.max_batch_calls = 3;
  std::vector<std::thread> threads;
  auto store = OpenHeld(gate, options, &threads);
  ASSERT_NE(store, nullptr);
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

TEST_P(StoreContractTest, GroupCommitBatchesAreBoundedByBytesButNeverSplitACall) {
  auto gate = std::make_shared<WriterGate>();
  BatchKnobs options;
  options.max_batch_bytes = 1000;
  std::vector<std::thread> threads;
  auto store = OpenHeld(gate, options, &threads);
  ASSERT_NE(store, nullptr);
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

TEST_P(StoreContractTest, AnInvalidCallInABatchFailsAloneAndTheOthersCommit) {
  auto gate = std::make_shared<WriterGate>();
  BatchKnobs options;
  std::vector<std::thread> threads;
  auto store = OpenHeld(gate, options, &threads);
  ASSERT_NE(store, nullptr);
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

TEST_P(StoreContractTest, DestructorFinishesQueuedWrites) {
  auto gate = std::make_shared<WriterGate>();
  BatchKnobs options;
  options.before_batch_for_testing = [gate] { gate->Hook(); };
  std::vector<std::thread> threads;
  threads.reserve(16);  // also avoids a GCC 12 -Warray-bounds false positive
  {
    auto store = Open(options);
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
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(ReadAll(*store).size(), 5u);
}

TEST_P(StoreContractTest, BatchCommitsRecordsAndSideTableTogether) {
  auto store = Open();
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

TEST_P(StoreContractTest, LogKeepsTheOrderOfEnqueueCallsNotOfWaits) {
  auto store = Open();
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

TEST_P(StoreContractTest, InvalidBatchFailsInWaitAndWritesNothing) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  WriteBatch batch;
  batch.records = {{"event", "x"}};
  batch.puts = {{"", "no key"}};
  auto seqs = store->EnqueueWrite(std::move(batch))->Wait();
  EXPECT_EQ(seqs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->LastSeq(), 0u);
}

TEST_P(StoreContractTest, JobsAreKeptOnePerIdAndFilteredByTimeUserAndId) {
  auto store = Open();
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

TEST_P(StoreContractTest, LargeArchivesAreReadInChunksAndSurviveReopen) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    std::vector<ArchivedJob> jobs;
    for (uint32_t id = 1; id <= 1500; ++id) jobs.push_back(Archived(id, id, id + 10, id % 3));
    MustArchive(*store, std::move(jobs));
  }
  auto store = Open();
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

TEST_P(StoreContractTest, AnArrayIdNamesEveryTaskOfTheArray) {
  auto store = Open();
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
