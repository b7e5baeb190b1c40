#include "sched/fair_share.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/job_state.h"

namespace gantry::sched {
namespace {

constexpr int64_t kFairShareNow = 1'800'000'000;

// The reference cluster's tree (../shared/anchors/slurm, outputs/sshare-a-after.txt): accounts
// prod and research under root; root in root and prod, bob in prod, alice in research, each user
// with one association per partition (a4, high).
class Tree {
 public:
  Tree() {
    Account("root", "");
    Account("prod", "root");
    Account("research", "root");
  }
  void Account(const std::string& name, const std::string& parent) {
    v1::Account a;
    a.set_name(name);
    a.set_parent(parent);
    db_.accounts[name] = a;
    Association(name, "", "", 1);
  }
  uint32_t Association(const std::string& account, const std::string& user,
                       const std::string& partition, uint32_t shares) {
    v1::Association a;
    a.set_id(next_id_++);
    a.set_account(account);
    a.set_user(user);
    a.set_partition(partition);
    a.set_shares(shares);
    db_.associations[a.id()] = a;
    return a.id();
  }
  // Billing-seconds used by `id` and (as Slurm's tallies hold them) every account above it.
  void Use(uint32_t id, double billing_sec) {
    const std::string account = db_.associations.at(id).account();
    Add(id, billing_sec);
    for (const v1::Association* up : state::AccountChain(db_, account)) {
      if (up->id() != id) Add(up->id(), billing_sec);
    }
  }
  const state::AccountingDb& db() const { return db_; }

 private:
  void Add(uint32_t id, double billing_sec) {
    v1::UsageTally& t = db_.association_usage[id];
    t.set_as_of(kFairShareNow);
    (*t.mutable_tres_sec())["billing"] += billing_sec;
  }
  state::AccountingDb db_;
  uint32_t next_id_ = 1;
};

const ShareRow& RowOf(const FairShare& fs, const std::string& account, const std::string& user,
                      const std::string& partition = "") {
  for (const ShareRow& r : fs.rows) {
    if (r.account == account && r.user == user && r.partition == partition) return r;
  }
  ADD_FAILURE() << "no row " << account << "/" << user << "/" << partition;
  return fs.rows.front();
}

TEST(FairTreeTest, RanksUsersAsTheReferenceClusterDid) {
  Tree t;
  const uint32_t root_root = t.Association("root", "root", "", 1);
  const uint32_t bob_a4 = t.Association("prod", "bob", "a4", 1);
  const uint32_t bob_high = t.Association("prod", "bob", "high", 1);
  const uint32_t root_a4 = t.Association("prod", "root", "a4", 1);
  t.Association("prod", "root", "high", 1);
  const uint32_t alice_a4 = t.Association("research", "alice", "a4", 1);
  t.Association("research", "alice", "high", 1);
  t.Use(root_root, 77818);
  t.Use(bob_high, 20149);
  t.Use(bob_a4, 1527);
  t.Use(root_a4, 226);
  t.Use(alice_a4, 180731);

  const FairShare fs = ComputeFairShare(t.db(), {}, kFairShareNow, FairShareAlgorithm::kFairTree);
  EXPECT_EQ(fs.user_associations, 7u);
  // sshare -a's FairShare column, in sshare's row order.
  struct Want {
    const char* account;
    const char* user;
    const char* partition;
    double fair_share;
  };
  const Want wants[] = {
      {"root", "root", "", 3.0 / 7},        {"prod", "bob", "high", 4.0 / 7},
      {"prod", "bob", "a4", 5.0 / 7},       {"prod", "root", "high", 7.0 / 7},
      {"prod", "root", "a4", 6.0 / 7},      {"research", "alice", "high", 2.0 / 7},
      {"research", "alice", "a4", 1.0 / 7},
  };
  for (const Want& w : wants) {
    EXPECT_NEAR(RowOf(fs, w.account, w.user, w.partition).fair_share, w.fair_share, 1e-9)
        << w.account << "/" << w.user << "/" << w.partition;
  }
  std::vector<std::string> order;
  for (const ShareRow& r : fs.rows) {
    order.push_back(std::string(static_cast<size_t>(r.depth), ' ') + r.account + "/" + r.user);
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "root/", " root/root", " prod/", "  prod/bob", "  prod/bob", "  prod/root",
                       "  prod/root", " research/", "  research/alice", "  research/alice"}));
  const ShareRow& prod = RowOf(fs, "prod", "");
  EXPECT_NEAR(prod.norm_shares, 1.0 / 3, 1e-9);
  EXPECT_DOUBLE_EQ(prod.raw_usage, 20149 + 1527 + 226);
  EXPECT_NEAR(prod.effective_usage, prod.raw_usage / (77818 + 20149 + 1527 + 226 + 180731), 1e-12);
  EXPECT_NEAR(RowOf(fs, "prod", "bob", "a4").norm_shares, 0.25, 1e-12);
  EXPECT_TRUE(std::isinf(RowOf(fs, "prod", "root", "high").level_fs));
  // A user's associations are listed newest first, as sacctmgr and sshare list them.
  EXPECT_EQ(fs.rows[3].partition, "high");
  EXPECT_DOUBLE_EQ(fs.rows.front().effective_usage, 1.0);
}

TEST(FairTreeTest, TiedSiblingsShareARankAndUnusedSharesComeFirst) {
  Tree t;
  const uint32_t a = t.Association("research", "a", "", 1);
  const uint32_t b = t.Association("research", "b", "", 1);
  const uint32_t c = t.Association("prod", "c", "", 0);  // no shares: last
  t.Use(a, 100);
  t.Use(b, 100);
  const FairShare fs = ComputeFairShare(t.db(), {}, kFairShareNow, FairShareAlgorithm::kFairTree);
  // prod (no usage) ranks above research; its user has no shares (LevelFS 0) but is alone.
  EXPECT_DOUBLE_EQ(fs.FactorOf(c), 3.0 / 3);
  EXPECT_DOUBLE_EQ(fs.FactorOf(a), 2.0 / 3);
  EXPECT_DOUBLE_EQ(fs.FactorOf(b), 2.0 / 3);  // tied with a
}

TEST(FairTreeTest, RunningJobsCountTheirUsageSoFar) {
  Tree t;
  const uint32_t a = t.Association("research", "alice", "", 1);
  const uint32_t b = t.Association("prod", "bob", "", 1);
  t.Use(a, 1000);
  v1::Job job;
  job.set_user_name("bob");
  job.mutable_request()->set_account("prod");
  job.set_partition("a4");
  job.set_start_time(kFairShareNow - 100);
  job.add_nodes("n1");
  job.set_num_cpus(20);
  job.set_state(static_cast<uint32_t>(model::JobBaseState::kRunning));
  const v1::Job* running[] = {&job};
  const FairShare fs =
      ComputeFairShare(t.db(), running, kFairShareNow, FairShareAlgorithm::kFairTree);
  EXPECT_DOUBLE_EQ(RowOf(fs, "prod", "bob").raw_usage, 2000);  // 20 CPUs x 100 s
  EXPECT_DOUBLE_EQ(fs.rows.front().raw_usage, 3000);
  EXPECT_GT(fs.FactorOf(a), fs.FactorOf(b));
}

// Classic: F = 2^(-EffectvUsage / NormShares); top-level accounts' effective usage is their
// share of all usage, passed down to their only users. Four top-level accounts (prod,
// research, A, B) hold a quarter of the shares each.
TEST(ClassicFairShareTest, HalvesPerMultipleOfTheShareUsed) {
  Tree t;
  t.Account("A", "root");
  t.Account("B", "root");
  const uint32_t u1 = t.Association("A", "u1", "", 1);
  const uint32_t u2 = t.Association("B", "u2", "", 1);
  t.Use(u1, 30);
  t.Use(u2, 10);
  const FairShare fs = ComputeFairShare(t.db(), {}, kFairShareNow, FairShareAlgorithm::kClassic);
  EXPECT_NEAR(RowOf(fs, "A", "u1").norm_shares, 0.25, 1e-12);
  EXPECT_NEAR(RowOf(fs, "A", "u1").effective_usage, 0.75, 1e-12);
  EXPECT_NEAR(fs.FactorOf(u1), std::pow(2.0, -0.75 / 0.25), 1e-12);
  EXPECT_NEAR(fs.FactorOf(u2), std::pow(2.0, -0.25 / 0.25), 1e-12);
}

}  // namespace
}  // namespace gantry::sched
