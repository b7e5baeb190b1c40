// The in-memory store's injected faults: a commit that fails, and one that is lost.
#include "store/memory_store.h"

#include <memory>

#include "gtest/gtest.h"

namespace gantry::store {
namespace {

std::unique_ptr<Store> MustOpen(const std::shared_ptr<MemoryDisk>& disk, FaultPlan faults = {}) {
  Result<std::unique_ptr<Store>> store = OpenMemoryStore(disk, {}, faults);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return std::move(store).value();
}

size_t Records(Store& store) {
  size_t n = 0;
  EXPECT_TRUE(store
                  .ReadFrom(0,
                            [&n](const Record&) {
                              ++n;
                              return Status::Ok();
                            })
                  .ok());
  return n;
}

TEST(MemoryStoreTest, AFailedCommitChangesNothingAndTheStoreRefusesWhatFollows) {
  auto disk = std::make_shared<MemoryDisk>();
  std::unique_ptr<Store> store = MustOpen(disk, FaultPlan{.fail_commit = 2});
  ASSERT_TRUE(store->Append({{"event", "one"}}).ok());
  const Result<std::vector<uint64_t>> failed = store->Append({{"event", "two"}});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("injected fault: commit 2 fails"), std::string::npos)
      << failed.status().message();
  EXPECT_FALSE(store->Append({{"event", "three"}}).ok());  // reopen first (store.h)
  store.reset();
  std::unique_ptr<Store> reopened = MustOpen(disk);
  EXPECT_EQ(Records(*reopened), 1u);
  EXPECT_EQ(reopened->LastSeq(), 1u);
}

TEST(MemoryStoreTest, ADroppedCommitIsSeenUntilARestartLosesIt) {
  auto disk = std::make_shared<MemoryDisk>();
  std::unique_ptr<Store> store = MustOpen(disk, FaultPlan{.drop_commit = 2});
  ASSERT_TRUE(store->Append({{"event", "one"}}).ok());
  ASSERT_TRUE(store->Put("key", "value").ok());  // commit 2: lost
  EXPECT_EQ(*store->Get("key").value(), "value");
  store.reset();
  std::unique_ptr<Store> reopened = MustOpen(disk);
  EXPECT_FALSE(reopened->Get("key").value().has_value());
  EXPECT_EQ(Records(*reopened), 1u);
}

}  // namespace
}  // namespace gantry::store
