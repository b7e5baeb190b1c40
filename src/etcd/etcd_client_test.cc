#include "etcd/etcd_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "etcd/testing.h"

namespace gantry::etcd {
namespace {

using testing::FreePort;

class EtcdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<std::string> member = testing::TestMember::Endpoint();
    if (!member) GTEST_SKIP() << testing::kEtcdBinary << " is not installed (etcd-server)";
    endpoint_ = *member;
  }
  std::string endpoint_;
};

TEST(EtcdKeysTest, PrefixEndIsThePrefixPlusOne) {
  EXPECT_EQ(PrefixEnd("gantry/log/"), "gantry/log0");
  EXPECT_EQ(PrefixEnd(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixEnd(""), std::string(1, '\0'));
}

TEST_F(EtcdTest, KeysAreReadAsWritten) {
  EtcdClient etcd({endpoint_});
  Result<int64_t> first = etcd.Put("t1/a", "one");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(etcd.Put("t1/b", "two").ok());
  Result<std::optional<KeyValue>> a = etcd.Get("t1/a");
  ASSERT_TRUE(a.ok() && *a);
  EXPECT_EQ((*a)->value, "one");
  EXPECT_EQ((*a)->create_revision, *first);
  EXPECT_FALSE(*etcd.Get("t1/none"));
  Result<std::vector<KeyValue>> all = etcd.GetPrefix("t1/");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].key, "t1/b");
  EXPECT_EQ(etcd.GetPrefix("t1/", 1, "t1/b")->at(0).value, "two");
  EXPECT_EQ(*etcd.DeletePrefix("t1/"), 2);
  EXPECT_TRUE(etcd.GetPrefix("t1/")->empty());
}

// The controllers' fencing: an append guarded by the leader key's create revision (the term)
// fails once another leader took the key, atomically.
TEST_F(EtcdTest, AFencedWriteFailsForADeposedLeader) {
  EtcdClient etcd({endpoint_});
  const Result<int64_t> lease = etcd.GrantLease(10);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  const Result<std::optional<int64_t>> term = Campaign(etcd, "t2/leader", "c1", *lease);
  ASSERT_TRUE(term.ok() && *term) << term.status().ToString();
  KeyValue holder;
  const Result<std::optional<int64_t>> lost = Campaign(etcd, "t2/leader", "c2", *lease, &holder);
  ASSERT_TRUE(lost.ok());
  EXPECT_FALSE(*lost);
  EXPECT_EQ(holder.value, "c1");
  Result<TxnResult> append =
      etcd.Txn({CreatedAt("t2/leader", **term)}, {Op{"t2/log/1", "event", 0, ""}});
  ASSERT_TRUE(append.ok());
  EXPECT_TRUE(append->succeeded);
  // c1 loses the key (its lease revoked); c2 wins with a later term; c1's append is refused.
  ASSERT_TRUE(etcd.RevokeLease(*lease).ok());
  const int64_t lease2 = *etcd.GrantLease(10);
  const Result<std::optional<int64_t>> term2 = Campaign(etcd, "t2/leader", "c2", lease2);
  ASSERT_TRUE(term2.ok() && *term2);
  EXPECT_GT(**term2, **term);
  append = etcd.Txn({CreatedAt("t2/leader", **term)}, {Op{"t2/log/2", "stale", 0, ""}});
  ASSERT_TRUE(append.ok());
  EXPECT_FALSE(append->succeeded);
  EXPECT_FALSE(*etcd.Get("t2/log/2"));
}

TEST_F(EtcdTest, ALeaseNotKeptAliveEndsAndTakesItsKeys) {
  EtcdClient etcd({endpoint_});
  const int64_t lease = *etcd.GrantLease(2);
  ASSERT_TRUE(etcd.Put("t3/leader", "c1", lease).ok());
  for (int i = 0; i < 3; ++i) {  // kept alive past its TTL
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    Result<int64_t> left = etcd.KeepAlive(lease);
    ASSERT_TRUE(left.ok()) << left.status().ToString();
    EXPECT_GT(*left, 0);
  }
  ASSERT_TRUE(*etcd.Get("t3/leader"));
  // Left alone, it ends (etcd checks leases about every 500 ms).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (*etcd.Get("t3/leader") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(*etcd.Get("t3/leader"));
  EXPECT_EQ(*etcd.KeepAlive(lease), 0);
}

TEST_F(EtcdTest, AWatchSeesEveryChangeInOrderFromItsRevision) {
  EtcdClient etcd({endpoint_});
  const int64_t before = *etcd.Put("t4/log/0", "e0");
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> seen;
  auto watch = etcd.WatchPrefix("t4/log/", before, [&](const std::vector<Event>& events, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    for (const Event& e : events) seen.push_back((e.deleted ? "-" : "+") + e.kv.key);
    cv.notify_all();
  });
  ASSERT_TRUE(etcd.Put("t4/log/1", "e1").ok());
  ASSERT_TRUE(etcd.Put("t4/other", "x").ok());  // outside the prefix
  ASSERT_TRUE(etcd.DeletePrefix("t4/log/0").ok());
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return seen.size() >= 3; }));
  EXPECT_EQ(seen, (std::vector<std::string>{"+t4/log/0", "+t4/log/1", "-t4/log/0"}));
}

TEST(EtcdUnreachableTest, NoMemberAnsweringIsUnavailable) {
  EtcdClient etcd({"127.0.0.1:" + std::to_string(FreePort())}, std::chrono::milliseconds(300));
  const Result<int64_t> put = etcd.Put("k", "v");
  EXPECT_EQ(put.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(put.status().message().find("etcd put k: no member answered"), std::string::npos)
      << put.status().ToString();
}

}  // namespace
}  // namespace gantry::etcd

namespace gantry::etcd {
namespace {

// A member that takes connections and never speaks (a host cut off looks the same to gRPC):
// calls go to the members that answer without waiting out the call timeout.
TEST_F(EtcdTest, AMemberThatNeverAnswersIsPassedOver) {
  const int silent = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(silent, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(silent, 16), 0);
  socklen_t length = sizeof(addr);
  getsockname(silent, reinterpret_cast<sockaddr*>(&addr), &length);
  const std::string dead = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  EtcdClient etcd({dead, endpoint_}, std::chrono::seconds(5));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(etcd.Put("t-silent/a", "1").ok());
  Result<std::optional<KeyValue>> got = etcd.Get("t-silent/a");
  ASSERT_TRUE(got.ok() && *got) << got.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  close(silent);
}

}  // namespace
}  // namespace gantry::etcd
