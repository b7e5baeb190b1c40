#include "sched/fair_share.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "state/records.h"
#include "state/usage.h"

namespace gantry::sched {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Seconds `job` has run by `now` (suspended time left out).
int64_t RunSeconds(const v1::Job& job, int64_t now) {
  if (job.start_time() <= 0) return 0;
  const model::JobState state = state::JobStateOf(job);
  if (state.base == model::JobBaseState::kSuspended) return job.pre_suspend_secs();
  if (job.suspend_time() != 0) {
    return std::max<int64_t>(0, now - job.suspend_time()) + job.pre_suspend_secs();
  }
  return std::max<int64_t>(0, now - job.start_time());
}

double BillingSeconds(const v1::UsageTally& tally) {
  const auto billing = tally.tres_sec().find("billing");
  if (billing != tally.tres_sec().end()) return billing->second;
  const auto cpu = tally.tres_sec().find("cpu");
  return cpu != tally.tres_sec().end() ? cpu->second : 0.0;
}

// The association tree: each account's children (its users' associations, then its
// sub-accounts' own associations), as association ids in sshare's order.
struct Tree {
  std::map<uint32_t, std::vector<uint32_t>> children;  // account association -> children
  uint32_t root = 0;
};

Tree BuildTree(const state::AccountingDb& db) {
  std::map<std::string, uint32_t, std::less<>> own;  // account -> its own association
  for (const auto& [id, a] : db.associations) {
    if (a.user().empty()) own.emplace(a.account(), id);
  }
  Tree tree;
  if (auto root = own.find("root"); root != own.end()) tree.root = root->second;
  for (const auto& [name, id] : own) tree.children[id];
  // Users by name (a user's associations newest first, as sacctmgr lists them), then
  // sub-accounts by name.
  std::vector<const v1::Association*> users;
  for (const auto& [id, a] : db.associations) {
    if (!a.user().empty()) users.push_back(&a);
  }
  std::ranges::sort(users, [](const v1::Association* x, const v1::Association* y) {
    if (x->user() != y->user()) return x->user() < y->user();
    return x->id() > y->id();
  });
  for (const v1::Association* u : users) {
    if (auto parent = own.find(u->account()); parent != own.end()) {
      tree.children[parent->second].push_back(u->id());
    }
  }
  for (const auto& [name, account] : db.accounts) {  // by name
    if (account.parent().empty()) continue;
    auto self = own.find(name);
    auto parent = own.find(account.parent());
    if (self != own.end() && parent != own.end()) {
      tree.children[parent->second].push_back(self->second);
    }
  }
  return tree;
}

class Calculator {
 public:
  Calculator(const state::AccountingDb& db, FairShare* out) : db_(db), out_(out) {}

  void Run(std::span<const v1::Job* const> running, int64_t now, FairShareAlgorithm algorithm,
           double dampening) {
    tree_ = BuildTree(db_);
    if (tree_.root == 0) return;
    for (const auto& [id, tally] : db_.association_usage) {
      usage_[id] = BillingSeconds(state::DecayedUsage(tally, now, db_.usage_half_life_sec));
    }
    for (const v1::Job* job : running) AddRunning(*job, now);
    AddRow(tree_.root, "", 0);
    ShareRow& root = out_->rows.front();
    root.norm_shares = 0;
    root.effective_usage = 1.0;
    root.norm_usage = root.raw_usage > 0 ? 1.0 : 0.0;
    for (ShareRow& row : out_->rows) {
      if (!row.user.empty()) ++out_->user_associations;
    }
    if (algorithm == FairShareAlgorithm::kFairTree) {
      auto rank = static_cast<uint32_t>(out_->user_associations);
      uint32_t no_ties = rank;
      FairTree(tree_.children[tree_.root], root.raw_usage, false, &rank, &no_ties);
    } else {
      Classic(tree_.root, 1.0, root.raw_usage, dampening);
    }
  }

 private:
  void AddRunning(const v1::Job& job, int64_t now) {
    const auto qos = db_.qos.find(job.request().qos());
    const double factor =
        qos != db_.qos.end() && qos->second.has_usage_factor() ? qos->second.usage_factor() : 1.0;
    if (factor <= 0) return;
    const double used = static_cast<double>(RunSeconds(job, now)) * state::JobBilling(job) * factor;
    if (used <= 0) return;
    const std::string key =
        job.user_name() + "\n" + job.request().account() + "\n" + job.partition();
    auto ids = charged_.find(key);
    if (ids == charged_.end()) {
      ids = charged_.emplace(key, state::UsageAssociationsOf(db_, job)).first;
    }
    for (uint32_t id : ids->second) usage_[id] += used;
  }

  // Appends the rows of `id` and everything under it, depth first.
  void AddRow(uint32_t id, const std::string& parent, int depth) {
    const v1::Association& a = db_.associations.at(id);
    ShareRow row;
    row.association_id = id;
    row.account = a.account();
    row.user = a.user();
    row.partition = a.partition();
    row.parent = parent;
    row.depth = depth;
    row.raw_shares = a.shares();
    row.raw_usage = UsageOf(id);
    out_->row_of[id] = out_->rows.size();
    out_->rows.push_back(row);
    if (!a.user().empty()) return;
    for (uint32_t child : tree_.children[id]) AddRow(child, a.account(), depth + 1);
    const double root_usage = out_->rows.front().raw_usage;
    for (uint32_t child : tree_.children[id]) {
      ShareRow& r = Row(child);
      r.norm_usage = root_usage > 0 ? r.raw_usage / root_usage : 0.0;
    }
  }

  double UsageOf(uint32_t id) const {
    const auto it = usage_.find(id);
    return it == usage_.end() ? 0.0 : it->second;
  }
  ShareRow& Row(uint32_t id) { return out_->rows[out_->row_of.at(id)]; }

  // Shares of `siblings` together (each sibling's NormShares is its part of them).
  double SiblingShares(const std::vector<uint32_t>& siblings) {
    double total = 0;
    for (uint32_t id : siblings) total += Row(id).raw_shares;
    return total;
  }

  void FairTree(const std::vector<uint32_t>& siblings, double parent_usage, bool account_tied,
                uint32_t* rank, uint32_t* no_ties) {
    const double shares = SiblingShares(siblings);
    for (uint32_t id : siblings) {
      ShareRow& r = Row(id);
      r.norm_shares = shares > 0 ? r.raw_shares / shares : 0.0;
      r.effective_usage = parent_usage > 0 ? r.raw_usage / parent_usage : 0.0;
      if (r.norm_shares == 0) {
        r.level_fs = 0;
      } else {
        r.level_fs = r.effective_usage > 0 ? r.norm_shares / r.effective_usage : kInfinity;
      }
    }
    std::vector<uint32_t> order = siblings;
    std::ranges::stable_sort(order, [this](uint32_t x, uint32_t y) {
      const ShareRow& a = Row(x);
      const ShareRow& b = Row(y);
      if (a.level_fs != b.level_fs) return a.level_fs > b.level_fs;
      return !a.user.empty() && b.user.empty();
    });
    const uint32_t users = static_cast<uint32_t>(std::max<size_t>(out_->user_associations, 1));
    std::optional<double> previous;
    for (size_t i = 0; i < order.size(); ++i) {
      ShareRow& r = Row(order[i]);
      const bool tied = i == 0 ? account_tied : previous == r.level_fs;
      if (!r.user.empty()) {
        if (!tied) *rank = *no_ties;
        r.fair_share = static_cast<double>(*rank) / users;
        --*no_ties;
      } else {
        FairTree(tree_.children[order[i]], r.raw_usage, tied, rank, no_ties);
      }
      previous = r.level_fs;
    }
  }

  void Classic(uint32_t account, double account_norm_shares, double root_usage, double dampening) {
    const std::vector<uint32_t>& siblings = tree_.children[account];
    const double shares = SiblingShares(siblings);
    const bool top = account == tree_.root;
    const double parent_effective = Row(account).effective_usage;
    for (uint32_t id : siblings) {
      ShareRow& r = Row(id);
      const double level = shares > 0 ? r.raw_shares / shares : 0.0;
      r.norm_shares = account_norm_shares * level;
      r.effective_usage =
          top ? r.norm_usage : r.norm_usage + (parent_effective - r.norm_usage) * level;
      if (!r.user.empty()) {
        r.fair_share =
            r.norm_shares > 0 ? std::pow(2.0, -r.effective_usage / r.norm_shares / dampening) : 0.0;
      } else {
        Classic(id, r.norm_shares, root_usage, dampening);
      }
    }
  }

  const state::AccountingDb& db_;
  FairShare* out_;
  Tree tree_;
  std::map<uint32_t, double> usage_;
  // The associations a running job charges, by "user\naccount\npartition".
  std::map<std::string, std::vector<uint32_t>> charged_;
};

}  // namespace

double FairShare::FactorOf(uint32_t association_id) const {
  const auto it = row_of.find(association_id);
  return it == row_of.end() ? 0.0 : rows[it->second].fair_share;
}

FairShare ComputeFairShare(const state::AccountingDb& db, std::span<const v1::Job* const> running,
                           int64_t now, FairShareAlgorithm algorithm, double dampening) {
  FairShare out;
  Calculator(db, &out).Run(running, now, algorithm, dampening > 0 ? dampening : 1.0);
  return out;
}

}  // namespace gantry::sched
