// The reference cluster's accounting (../shared/anchors/slurm) when its sprio and sshare were
// captured (tests/golden/cmd-anchor-sprio*.txt, cmd-anchor-sshare*.txt): accounts root,
// research and prod under root; root in root and prod, alice in research, bob in prod, each
// user with one association per partition (a4, then high); every share 1; QOS normal; the
// billing usage sshare -a showed; its pending jobs and priority settings. Test-only; header-only.
#ifndef GANTRY_STATE_ANCHOR_ACCOUNTING_TEST_UTIL_H_
#define GANTRY_STATE_ANCHOR_ACCOUNTING_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "state/accounting.h"
#include "state/testing.h"

namespace gantry::state::testing {

// The database above, its usage recorded as of `as_of` (no decay up to then).
inline AccountingDb AnchorAccounting(UnixTime as_of) {
  AccountingDb db;
  uint32_t next = 1;
  auto association = [&](const std::string& account, const std::string& user,
                         const std::string& partition) {
    v1::Association a;
    a.set_id(next++);
    a.set_account(account);
    a.set_user(user);
    a.set_partition(partition);
    a.set_shares(1);
    db.associations[a.id()] = a;
    return a.id();
  };
  for (const auto& [name, parent] : std::vector<std::pair<std::string, std::string>>{
           {"root", ""}, {"research", "root"}, {"prod", "root"}}) {
    db.accounts[name].set_name(name);
    db.accounts[name].set_parent(parent);
    association(name, "", "");
  }
  const uint32_t root_root = association("root", "root", "");
  std::map<std::string, uint32_t> ids;
  for (const char* p : {"a4", "high"}) {
    ids[std::string("root/") + p] = association("prod", "root", p);
    ids[std::string("alice/") + p] = association("research", "alice", p);
    ids[std::string("bob/") + p] = association("prod", "bob", p);
  }
  for (const auto& [user, account] : std::vector<std::pair<std::string, std::string>>{
           {"root", "root"}, {"alice", "research"}, {"bob", "prod"}}) {
    db.users[user].set_name(user);
    db.users[user].set_default_account(account);
  }
  db.qos["normal"].set_name("normal");
  auto use = [&db, as_of](uint32_t id, double billing_sec) {
    for (const v1::Association* a : AccountChain(db, db.associations.at(id).account())) {
      (*db.association_usage[a->id()].mutable_tres_sec())["billing"] += billing_sec;
      db.association_usage[a->id()].set_as_of(as_of);
    }
    (*db.association_usage[id].mutable_tres_sec())["billing"] += billing_sec;
    db.association_usage[id].set_as_of(as_of);
  };
  // sshare prints the whole part of each; the fractions are such that the sums are whole as it
  // printed them (prod 20823 of 19260 + 1336 + 226, root 272546).
  use(root_root, 77845.2);
  use(ids["bob/high"], 19260.5);
  use(ids["bob/a4"], 1336.5);
  use(ids["root/a4"], 226.5);
  use(ids["alice/a4"], 173878.2);
  return db;
}

// The jobs that were pending when sprio was captured, submitted (and accruing since) `submit`:
// 21442 (alice, 1 node, 32 CPUs) and 21448 (alice, 2 nodes, 128 CPUs) in a4 for research, 21449
// (root, 1 node, 64 CPUs) in high for root; 2000 MB per CPU, QOS normal.
inline std::vector<v1::Job> AnchorSprioJobs(UnixTime submit) {
  struct Spec {
    uint32_t id;
    const char* user;
    uint32_t uid;
    const char* account;
    const char* partition;
    uint32_t nodes;
    uint32_t cpus;
  };
  std::vector<v1::Job> jobs;
  for (const Spec& s : {Spec{21442, "alice", 1001, "research", "a4", 1, 32},
                        Spec{21448, "alice", 1001, "research", "a4", 2, 128},
                        Spec{21449, "root", 0, "root", "high", 1, 64}}) {
    v1::Job job = PendingJob(s.id, s.partition, s.nodes, submit);
    job.set_user_name(s.user);
    job.set_group_name(s.user);
    job.set_user_id(s.uid);
    job.set_group_id(s.uid);
    job.mutable_request()->set_account(s.account);
    job.mutable_request()->set_qos("normal");
    job.mutable_request()->set_num_tasks(s.cpus);
    job.mutable_request()->set_mem_per_cpu_mb(2000);
    job.set_num_cpus(s.cpus);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// The reference cluster's priority settings (its slurm.conf keys).
inline std::map<std::string, std::string> AnchorPriorityKeys() {
  return {{"PriorityType", "priority/multifactor"},  {"PriorityWeightAge", "1000"},
          {"PriorityWeightFairshare", "10000"},      {"PriorityWeightJobSize", "1000"},
          {"PriorityWeightPartition", "1000"},       {"PriorityWeightQOS", "1000"},
          {"PriorityWeightTRES", "cpu=100,mem=150"}, {"PriorityMaxAge", "7-0"}};
}

}  // namespace gantry::state::testing

#endif  // GANTRY_STATE_ANCHOR_ACCOUNTING_TEST_UTIL_H_
