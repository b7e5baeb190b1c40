#include "ha/leadership.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "etcd/testing.h"

namespace gantry::ha {
namespace {

using std::chrono::milliseconds;

class LeadershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::optional<std::string> member = etcd::testing::TestMember::Endpoint();
    if (!member) GTEST_SKIP() << etcd::testing::kEtcdBinary << " is not installed (etcd-server)";
    endpoint_ = *member;
  }
  LeadershipOptions Options(const std::string& prefix, const std::string& name) {
    LeadershipOptions options;
    options.endpoints = {endpoint_};
    options.prefix = prefix;
    options.name = name;
    options.address = "127.0.0.1:" + std::to_string(7000 + name.back());
    return options;
  }
  std::string endpoint_;
};

TEST(HolderTest, ValueNamesTheControllerAndItsAddress) {
  etcd::KeyValue kv;
  kv.value = HolderValue("ctl2", "10.0.0.2:6817");
  kv.create_revision = 42;
  std::optional<Holder> holder = ParseHolder(kv);
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->name, "ctl2");
  EXPECT_EQ(holder->address, "10.0.0.2:6817");
  EXPECT_EQ(holder->term, 42);
  kv.value = "garbage";
  EXPECT_FALSE(ParseHolder(kv));
}

TEST_F(LeadershipTest, OneLeadsTheOtherWaitsAndTakesOverWhenItResigns) {
  Leadership first(Options("lead1/", "c1"), nullptr);
  Result<int64_t> term1 = first.WaitToLead(nullptr);
  ASSERT_TRUE(term1.ok()) << term1.status().ToString();
  EXPECT_TRUE(first.leading());

  Leadership second(Options("lead1/", "c2"), nullptr);
  std::optional<Holder> seen;
  std::atomic<bool> told{false};
  Result<int64_t> term2 = Unavailable("not yet");
  std::thread waiter([&] {
    term2 = second.WaitToLead([&](const std::optional<Holder>& holder) {
      if (holder && !told) {
        seen = holder;
        told = true;
      }
    });
  });
  for (int i = 0; i < 100 && !told; ++i) std::this_thread::sleep_for(milliseconds(20));
  ASSERT_TRUE(told);
  EXPECT_EQ(seen->name, "c1");
  EXPECT_EQ(seen->term, *term1);
  EXPECT_FALSE(second.leading());

  first.Resign();
  waiter.join();
  ASSERT_TRUE(term2.ok()) << term2.status().ToString();
  EXPECT_GT(*term2, *term1);  // a new term: the first one's fenced commits now fail
  EXPECT_TRUE(second.leading());
  EXPECT_FALSE(first.leading());
}

TEST_F(LeadershipTest, ALeaderThatStopsRenewingLosesTheLeadWithinItsLease) {
  std::atomic<bool> lost{false};
  std::string why;
  {
    LeadershipOptions options = Options("lead2/", "c1");
    // Renewals far apart: the lease (2 s) ends before the first one.
    options.keepalive_every = milliseconds(4000);
    Leadership stalled(options, [&](const std::string& reason) {
      why = reason;
      lost = true;
    });
    ASSERT_TRUE(stalled.WaitToLead(nullptr).ok());

    Leadership standby(Options("lead2/", "c2"), nullptr);
    const auto start = std::chrono::steady_clock::now();
    Result<int64_t> term = standby.WaitToLead(nullptr);
    ASSERT_TRUE(term.ok());
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(4));  // the lease's end, not a timeout of ours
    for (int i = 0; i < 300 && !lost; ++i) std::this_thread::sleep_for(milliseconds(20));
    EXPECT_TRUE(lost);
    EXPECT_FALSE(stalled.leading());
  }
  EXPECT_NE(why.find("lease"), std::string::npos) << why;
}

TEST_F(LeadershipTest, CancelEndsAWaitingCampaign) {
  Leadership leader(Options("lead3/", "c1"), nullptr);
  ASSERT_TRUE(leader.WaitToLead(nullptr).ok());
  Leadership standby(Options("lead3/", "c2"), nullptr);
  std::thread canceller([&] {
    std::this_thread::sleep_for(milliseconds(300));
    standby.Cancel();
  });
  Result<int64_t> term = standby.WaitToLead(nullptr);
  canceller.join();
  EXPECT_EQ(term.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(leader.leading());
}

}  // namespace
}  // namespace gantry::ha
