// What only the etcd store does: its fence. A controller deposed (another one holds the leader
// key now) commits nothing, and its store refuses every later call.
#include "store/etcd_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "etcd/etcd_client.h"
#include "etcd/testing.h"

namespace gantry::store {
namespace {

using ::testing::HasSubstr;

TEST(EtcdStoreTest, ADeposedLeaderCommitsNothing) {
  const std::optional<std::string> member = etcd::testing::TestMember::Endpoint();
  if (!member) GTEST_SKIP() << "no etcd for the tests (etcd-server)";
  etcd::EtcdClient client({*member});
  const int64_t lease = *client.GrantLease(30);
  const Result<std::optional<int64_t>> term =
      etcd::Campaign(client, "fence-test/leader", "ctld-a", lease);
  ASSERT_TRUE(term.ok() && *term) << term.status().ToString();

  EtcdStoreOptions options;
  options.endpoints = {*member};
  options.prefix = "fence-test/";
  options.fence_key = "fence-test/leader";
  options.fence_revision = **term;
  Result<std::unique_ptr<Store>> store = OpenEtcdStore(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Append({{"event", "one"}}).ok());

  // ctld-a's lease ends; ctld-b leads with a later term.
  ASSERT_TRUE(client.RevokeLease(lease).ok());
  const Result<std::optional<int64_t>> next =
      etcd::Campaign(client, "fence-test/leader", "ctld-b", *client.GrantLease(30));
  ASSERT_TRUE(next.ok() && *next);

  const Result<std::vector<uint64_t>> late = (*store)->Append({{"event", "two"}});
  EXPECT_EQ(late.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.status().message(), HasSubstr("the lead passed to another controller"));
  EXPECT_FALSE((*store)->Append({{"event", "three"}}).ok());
  // Nothing of it reached etcd: ctld-b, opening the log, finds one record.
  options.fence_revision = **next;
  Result<std::unique_ptr<Store>> successor = OpenEtcdStore(options);
  ASSERT_TRUE(successor.ok());
  EXPECT_EQ((*successor)->LastSeq(), 1u);
  ASSERT_TRUE((*successor)->Append({{"event", "two"}}).ok());
  EXPECT_EQ((*successor)->LastSeq(), 2u);
}

}  // namespace
}  // namespace gantry::store
