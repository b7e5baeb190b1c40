#include "state/admission.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "model/job_state.h"
#include "state/priority.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): the builders

const Caller kAlice{1001, 1001, "alice", "alice", false, {}};
const Caller kRoot{0, 0, "root", "root", false, {}};

// n1..n4: 64 CPUs, 256000 MiB, gpu:8; n3 and n4 also have feature "ib".
// batch (default, all nodes, no limits); short (n1-n2, MaxTime 60, DefaultTime 10,
// DefMemPerCPU 2000, MaxNodes 2); drained (DRAIN); rootonly; admins (AllowGroups=admins);
// small (MaxMemPerNode 1000, MaxMemPerCPU 100).
ClusterState Cluster() {
  ClusterState s;
  std::vector<v1::Node> nodes = {MakeNode("n1"), MakeNode("n2"),
                                 MakeNode("n3", 64, 256000, "gpu:8", "ib"),
                                 MakeNode("n4", 64, 256000, "gpu:8", "ib")};
  v1::Partition batch = MakePartition("batch", NodeNames(4), true);
  v1::Partition short_part = MakePartition("short", {"n1", "n2"});
  short_part.set_max_time_min(60);
  short_part.set_default_time_min(10);
  short_part.set_def_mem_per_cpu_mb(2000);
  short_part.set_max_nodes(2);
  v1::Partition drained = MakePartition("drained", NodeNames(4));
  drained.set_state("DRAIN");
  v1::Partition root_only = MakePartition("rootonly", NodeNames(4));
  root_only.set_root_only(true);
  v1::Partition admins = MakePartition("admins", NodeNames(4));
  admins.set_allow_groups("wheel,admins");
  v1::Partition small = MakePartition("small", NodeNames(4));
  small.set_max_mem_per_node_mb(1000);
  small.set_max_mem_per_cpu_mb(100);
  EXPECT_TRUE(
      Apply(&s, ConfigEvent(nodes, {batch, short_part, drained, root_only, admins, small})).ok());
  for (const std::string& n : NodeNames(4)) EXPECT_TRUE(Apply(&s, RegisterEvent(n)).ok());
  return s;
}

v1::JobRequest Request() {
  v1::JobRequest r;
  r.set_work_dir("/home/alice");
  r.set_wrap(true);
  return r;
}

TEST(AdmitJobTest, FillsDefaults) {
  const ClusterState s = Cluster();
  auto job = AdmitJob(s, Request(), kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->job_id(), 0u);
  EXPECT_EQ(job->request().name(), "sbatch");
  EXPECT_EQ(std::vector<std::string>(job->request().partitions().begin(),
                                     job->request().partitions().end()),
            std::vector<std::string>{"batch"});
  EXPECT_EQ(job->partition(), "batch");
  EXPECT_EQ(job->request().min_nodes(), 1u);
  EXPECT_EQ(job->time_limit_min(), kUnlimited);    // batch has neither DefaultTime nor MaxTime
  EXPECT_EQ(job->request().time_limit_min(), 0u);  // the request stays as given
  EXPECT_EQ(job->state(), static_cast<uint32_t>(model::JobBaseState::kPending));
  EXPECT_EQ(job->state_flags(), 0u);
  EXPECT_EQ(job->reason(), "None");
  EXPECT_EQ(job->priority(), kBasePriority);
  EXPECT_EQ(job->user_id(), 1001u);
  EXPECT_EQ(job->user_name(), "alice");
  EXPECT_EQ(job->group_name(), "alice");
  EXPECT_EQ(job->submit_time(), kNow);
  EXPECT_EQ(job->eligible_time(), kNow);
  EXPECT_EQ(job->accrue_time(), kNow);
  EXPECT_EQ(job->exit_status(), -1);
  EXPECT_TRUE(job->batch_flag());
  EXPECT_TRUE(job->requeue());
  EXPECT_EQ(job->num_cpus(), 1u);
  EXPECT_EQ(job->alloc_mem_mb(), 0u);
}

TEST(AdmitJobTest, PartitionDefaults) {
  const ClusterState s = Cluster();
  v1::JobRequest r = Request();
  r.add_partitions("short");
  r.set_num_tasks(4);
  auto job = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->time_limit_min(), 10u);              // DefaultTime
  EXPECT_EQ(job->request().mem_per_cpu_mb(), 2000u);  // DefMemPerCPU, as MinMemoryCPU=2000M
  EXPECT_EQ(job->num_cpus(), 4u);
  r.set_time_limit_min(30);
  job = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->time_limit_min(), 30u);
}

TEST(AdmitJobTest, NodeCounts) {
  struct Case {
    std::string name;
    std::function<void(v1::JobRequest*)> set;
    uint32_t min_nodes;
  };
  const std::vector<Case> cases = {
      {"default", [](v1::JobRequest*) {}, 1},
      {"-N 3", [](v1::JobRequest* r) { r->set_min_nodes(3); }, 3},
      {"tasks per node",
       [](v1::JobRequest* r) {
         r->set_num_tasks(8);
         r->set_ntasks_per_node(2);
       },
       4},
      {"-n 1000 on 64-CPU nodes", [](v1::JobRequest* r) { r->set_num_tasks(1000); }, 16},
      {"-n 100 -c 2",
       [](v1::JobRequest* r) {
         r->set_num_tasks(100);
         r->set_cpus_per_task(2);
       },
       4},
      {"-n 64", [](v1::JobRequest* r) { r->set_num_tasks(64); }, 1},
      {"-w two nodes", [](v1::JobRequest* r) { r->set_req_nodes("n[1-2]"); }, 2},
      {"-N 10 (accepted: PartitionConfig later)", [](v1::JobRequest* r) { r->set_min_nodes(10); },
       10},
  };
  const ClusterState s = Cluster();
  for (const Case& c : cases) {
    v1::JobRequest r = Request();
    c.set(&r);
    auto job = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
    ASSERT_TRUE(job.ok()) << c.name << ": " << job.status().ToString();
    EXPECT_EQ(job->request().min_nodes(), c.min_nodes) << c.name;
  }
}

TEST(AdmitJobTest, HoldBeginRequeueNice) {
  const ClusterState s = Cluster();
  v1::JobRequest r = Request();
  r.set_hold(true);
  auto held = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(held->priority(), 0u);
  EXPECT_EQ(held->reason(), "JobHeldUser");
  EXPECT_EQ(held->eligible_time(), 0);
  EXPECT_EQ(held->accrue_time(), 0);

  r = Request();
  r.set_begin_time(kNow + 3600);
  auto later = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->reason(), "BeginTime");
  EXPECT_EQ(later->eligible_time(), kNow + 3600);
  EXPECT_EQ(later->accrue_time(), 0);

  r = Request();
  r.set_requeue(2);
  EXPECT_FALSE(AdmitJob(s, r, kAlice, kNow, AdmitOptions{})->requeue());
  r.set_requeue(0);
  EXPECT_FALSE(AdmitJob(s, r, kAlice, kNow, AdmitOptions{.job_requeue_default = false})->requeue());
  r.set_requeue(1);
  EXPECT_TRUE(AdmitJob(s, r, kAlice, kNow, AdmitOptions{.job_requeue_default = false})->requeue());

  r = Request();
  r.set_nice(50);
  EXPECT_EQ(AdmitJob(s, r, kAlice, kNow, AdmitOptions{})->priority(), kBasePriority - 50);
  r.set_nice(-50);
  EXPECT_EQ(AdmitJob(s, r, kRoot, kNow, AdmitOptions{})->priority(), kBasePriority + 50);
}

TEST(AdmitJobTest, FirstValidPartitionWins) {
  const ClusterState s = Cluster();
  v1::JobRequest r = Request();
  r.add_partitions("drained");
  r.add_partitions("short");
  auto job = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->partition(), "short");
  EXPECT_EQ(job->request().partitions_size(), 2);
}

TEST(AdmitJobTest, PartitionLimitsOnlyWhenEnforced) {
  const ClusterState s = Cluster();
  v1::JobRequest over_time = Request();
  over_time.add_partitions("short");
  over_time.set_time_limit_min(120);
  v1::JobRequest over_nodes = Request();
  over_nodes.set_min_nodes(10);
  v1::JobRequest over_max_nodes = Request();
  over_max_nodes.add_partitions("short");
  over_max_nodes.set_min_nodes(2);
  over_max_nodes.set_max_nodes(3);
  for (const v1::JobRequest& r : {over_time, over_nodes}) {
    EXPECT_TRUE(AdmitJob(s, r, kAlice, kNow, AdmitOptions{}).ok());
  }
  const AdmitOptions enforce{.enforce_part_limits = true};
  EXPECT_EQ(AdmitJob(s, over_time, kAlice, kNow, enforce).status().message(),
            "Requested time limit is invalid (missing or exceeds some limit)");
  EXPECT_EQ(AdmitJob(s, over_nodes, kAlice, kNow, enforce).status().message(),
            "Node count specification invalid");
  EXPECT_TRUE(AdmitJob(s, over_max_nodes, kAlice, kNow, enforce).ok());
}

TEST(AdmitJobTest, Errors) {
  struct Case {
    std::string name;
    std::function<void(v1::JobRequest*)> set;
    std::string message;
    Caller caller = kAlice;
    StatusCode code = StatusCode::kInvalidArgument;
  };
  const std::vector<Case> cases = {
      {"unknown partition", [](v1::JobRequest* r) { r->add_partitions("nosuchpart"); },
       "Invalid partition name specified"},
      {"one unknown partition of two",
       [](v1::JobRequest* r) {
         r->add_partitions("batch");
         r->add_partitions("nosuchpart");
       },
       "Invalid partition name specified"},
      {"drained partition", [](v1::JobRequest* r) { r->add_partitions("drained"); },
       "Required partition not available (inactive or drain)"},
      {"root-only partition", [](v1::JobRequest* r) { r->add_partitions("rootonly"); },
       "Access/permission denied", kAlice, StatusCode::kPermissionDenied},
      {"group not allowed", [](v1::JobRequest* r) { r->add_partitions("admins"); },
       "User's group not permitted to use this partition", kAlice, StatusCode::kPermissionDenied},
      {"negative nice", [](v1::JobRequest* r) { r->set_nice(-5); }, "Invalid --nice value"},
      {"min above max",
       [](v1::JobRequest* r) {
         r->set_min_nodes(3);
         r->set_max_nodes(2);
       },
       "Node count specification invalid"},
      {"more -w nodes than max",
       [](v1::JobRequest* r) {
         r->set_req_nodes("n[1-3]");
         r->set_max_nodes(2);
       },
       "Node count specification invalid"},
      {"bad hostlist", [](v1::JobRequest* r) { r->set_req_nodes("n[1-"); },
       "Invalid node name specified"},
      {"unknown -w node", [](v1::JobRequest* r) { r->set_req_nodes("n9"); },
       "Invalid node name specified"},
      {"unknown -x node", [](v1::JobRequest* r) { r->set_exc_nodes("n9"); },
       "Invalid node name specified"},
      {"-w outside partition",
       [](v1::JobRequest* r) {
         r->add_partitions("short");
         r->set_req_nodes("n3");
       },
       "Requested nodes not in this partition"},
      {"-w and -x the same node",
       [](v1::JobRequest* r) {
         r->set_req_nodes("n1");
         r->set_exc_nodes("n1");
       },
       "Requested node configuration is not available"},
      {"every node excluded", [](v1::JobRequest* r) { r->set_exc_nodes("n[1-4]"); },
       "Requested node configuration is not available"},
      {"unknown gres", [](v1::JobRequest* r) { r->set_gres("tpu:1"); },
       "Invalid generic resource (gres) specification"},
      {"malformed gres", [](v1::JobRequest* r) { r->set_gres("gpu::2"); },
       "Invalid generic resource (gres) specification"},
      {"too many gpus", [](v1::JobRequest* r) { r->set_gres("gpu:9"); },
       "Requested node configuration is not available"},
      {"unknown feature", [](v1::JobRequest* r) { r->set_features("nosuchfeature"); },
       "Invalid feature specification"},
      {"malformed feature", [](v1::JobRequest* r) { r->set_features("ib&"); },
       "Invalid feature specification"},
      {"feature outside partition",
       [](v1::JobRequest* r) {
         r->add_partitions("short");
         r->set_features("ib");
       },
       "Invalid feature specification"},
      {"huge memory", [](v1::JobRequest* r) { r->set_mem_per_node_mb(999999999); },
       "Requested node configuration is not available"},
      {"too many cpus per task", [](v1::JobRequest* r) { r->set_cpus_per_task(65); },
       "Requested node configuration is not available"},
      {"above MaxMemPerNode",
       [](v1::JobRequest* r) {
         r->add_partitions("small");
         r->set_mem_per_node_mb(2000);
       },
       "Memory required by task is not available"},
      {"above MaxMemPerCPU",
       [](v1::JobRequest* r) {
         r->add_partitions("small");
         r->set_mem_per_cpu_mb(200);
       },
       "Memory required by task is not available"},
      {"time-min above time",
       [](v1::JobRequest* r) {
         r->set_time_limit_min(60);
         r->set_time_min_min(100);
       },
       "Invalid time-min specification (exceeds job's time or other limits)"},
      {"array too large", [](v1::JobRequest* r) { r->set_array("0-5000"); },
       "Invalid job array specification"},
      {"array malformed", [](v1::JobRequest* r) { r->set_array("3-1"); },
       "Invalid job array specification"},
      {"dependency syntax", [](v1::JobRequest* r) { r->set_dependency("afterok:abc"); },
       "Job dependency problem"},
      {"dependency type", [](v1::JobRequest* r) { r->set_dependency("later:5"); },
       "Job dependency problem"},
  };
  const ClusterState s = Cluster();
  for (const Case& c : cases) {
    v1::JobRequest r = Request();
    c.set(&r);
    auto job = AdmitJob(s, r, c.caller, kNow, AdmitOptions{});
    ASSERT_FALSE(job.ok()) << c.name;
    EXPECT_EQ(job.status().message(), c.message) << c.name;
    EXPECT_EQ(job.status().code(), c.code) << c.name;
  }
}

TEST(AdmitJobTest, RootPassesAccessChecks) {
  const ClusterState s = Cluster();
  for (const char* part : {"rootonly", "admins"}) {
    v1::JobRequest r = Request();
    r.add_partitions(part);
    EXPECT_TRUE(AdmitJob(s, r, kRoot, kNow, AdmitOptions{}).ok()) << part;
  }
  v1::JobRequest r = Request();
  r.add_partitions("admins");
  EXPECT_TRUE(
      AdmitJob(s, r, Caller{1002, 50, "bob", "admins", false, {}}, kNow, AdmitOptions{}).ok());
}

TEST(AdmitJobTest, NoPartitionAtAll) {
  auto job = AdmitJob(ClusterState{}, Request(), kAlice, kNow, AdmitOptions{});
  EXPECT_EQ(job.status().message(), "No partition specified or system default partition");
}

TEST(AdmitJobTest, ArrayGivesOneRecordWithItsPendingTasks) {
  v1::JobRequest r = Request();
  r.set_array("1-7:2,20%3");
  auto job = AdmitJob(Cluster(), r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(
      std::vector<uint32_t>(job->array_pending_tasks().begin(), job->array_pending_tasks().end()),
      (std::vector<uint32_t>{1, 3, 5, 7, 20}));
  EXPECT_EQ(job->array_task_throttle(), 3u);
  EXPECT_FALSE(job->has_array_task_id());
}

}  // namespace
}  // namespace gantry::state

namespace gantry::state {
namespace {

// alice has research on partition short only; bob is in the database without that association.
ClusterState ClusterWithAccounting() {
  ClusterState s = Cluster();
  ApplyAccountingChange(DefaultAccounting(), &s.accounting);
  v1::AccountingChange change;
  v1::Account* research = change.add_accounts();
  research->set_name("research");
  research->set_parent("root");
  v1::Qos* fast = change.add_qos();
  fast->set_id(2);
  fast->set_name("fast");
  v1::AccountingUser* alice = change.add_users();
  alice->set_name("alice");
  alice->set_default_account("research");
  v1::AccountingUser* carol = change.add_users();
  carol->set_name("carol");
  carol->set_default_account("research");
  uint32_t id = 10;
  for (const auto& [user, partition] : std::vector<std::pair<std::string, std::string>>{
           {"", ""}, {"alice", "short"}, {"carol", ""}}) {
    v1::Association* a = change.add_associations();
    a->set_id(++id);
    a->set_account("research");
    a->set_user(user);
    a->set_partition(partition);
    a->add_qos("normal");
  }
  ApplyAccountingChange(change, &s.accounting);
  EXPECT_TRUE(CheckAccounting(s.accounting).ok()) << CheckAccounting(s.accounting).ToString();
  return s;
}

TEST(AdmitJobTest, AssociationsDecideAccountPartitionAndQosWhenEnforced) {
  const ClusterState s = ClusterWithAccounting();
  const AdmitOptions enforce{.enforce_associations = true, .enforce_qos = true};
  const std::string kInvalidAccount = "Invalid account or account/partition combination specified";
  struct Case {
    std::string name;
    Caller caller;
    std::vector<std::string> partitions;
    std::string account, qos;
    std::string error;  // "" = accepted
    std::string partition = "short";
  };
  const Caller kBob{1002, 1002, "bob", "bob", false, {}};
  const Caller kCarol{1003, 1003, "carol", "carol", false, {}};
  const std::string kPartitionAssoc =
      "Multiple partition job request not supported when a partition is set in the association";
  const std::vector<Case> cases = {
      {"default account, its partition", kAlice, {"short"}, "", "", ""},
      {"the default partition has no association", kAlice, {}, "", "", kInvalidAccount},
      // Slurm: the first partition's association, and every other partition must have it too.
      {"the first partition has no association",
       kAlice,
       {"batch", "short"},
       "",
       "",
       kInvalidAccount},
      {"another partition has another association",
       kAlice,
       {"short", "batch"},
       "",
       "",
       kPartitionAssoc},
      {"one association for every partition", kCarol, {"batch", "short"}, "", "", "", "batch"},
      {"an account without association", kAlice, {"short"}, "root", "", kInvalidAccount},
      {"an unknown account", kAlice, {"short"}, "nosuch", "", kInvalidAccount},
      {"a user accounting does not know", kBob, {"short"}, "", "", kInvalidAccount},
      {"an unknown QOS", kAlice, {"short"}, "", "nosuch", "Invalid qos specification"},
      {"a QOS the association lacks", kAlice, {"short"}, "", "fast", "Invalid qos specification"},
      {"root everywhere", kRoot, {"batch"}, "", "", ""},
  };
  for (const Case& c : cases) {
    v1::JobRequest r = Request();
    for (const std::string& p : c.partitions) r.add_partitions(p);
    r.set_account(c.account);
    r.set_qos(c.qos);
    auto job = AdmitJob(s, r, c.caller, kNow, enforce);
    if (c.error.empty()) {
      ASSERT_TRUE(job.ok()) << c.name << ": " << job.status().ToString();
      EXPECT_EQ(job->request().account(), c.caller.uid == 0 ? "root" : "research") << c.name;
      EXPECT_EQ(job->request().qos(), "normal") << c.name;
      if (c.caller.uid != 0) {
        EXPECT_EQ(job->partition(), c.partition) << c.name;
      }
    } else {
      EXPECT_EQ(job.status().message(), c.error) << c.name;
    }
  }
  // Not enforced: the same submissions pass, and a known user still gets its default account.
  v1::JobRequest r = Request();
  auto job = AdmitJob(s, r, kAlice, kNow, AdmitOptions{});
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->request().account(), "research");
  EXPECT_TRUE(AdmitJob(s, r, kBob, kNow, AdmitOptions{}).ok());
}

// M3: AllowGroups counts supplementary groups; AllowAccounts and AllowQos are enforced.
TEST(AdmitJobTest, PartitionAllowListsSeeEveryGroupTheAccountAndTheQos) {
  ClusterState s = Cluster();
  v1::Partition* admins = nullptr;
  for (v1::Partition& p : s.partitions) {
    if (p.name() == "admins") admins = &p;
  }
  ASSERT_NE(admins, nullptr);
  v1::JobRequest r = Request();
  r.add_partitions("admins");
  Caller alice = kAlice;
  EXPECT_EQ(AdmitJob(s, r, alice, kNow, AdmitOptions{}).status().message(),
            "User's group not permitted to use this partition");
  alice.group_names = {"alice", "admins"};  // a supplementary group
  EXPECT_TRUE(AdmitJob(s, r, alice, kNow, AdmitOptions{}).ok());
  admins->set_allow_accounts("vip,ops");
  r.set_account("other");
  EXPECT_EQ(AdmitJob(s, r, alice, kNow, AdmitOptions{}).status().message(),
            "Invalid account or account/partition combination specified");
  r.set_account("ops");
  EXPECT_TRUE(AdmitJob(s, r, alice, kNow, AdmitOptions{}).ok());
  admins->set_allow_qos("high");
  r.set_qos("normal");
  EXPECT_EQ(AdmitJob(s, r, alice, kNow, AdmitOptions{}).status().message(),
            "Invalid qos specification");
  r.set_qos("high");
  EXPECT_TRUE(AdmitJob(s, r, alice, kNow, AdmitOptions{}).ok());
}

// H4: scontrol update of a partition, account or QOS admits the job again as its owner.
TEST(AdmitJobTest, AnUpdatedJobIsAdmittedAgainAsItsOwner) {
  const ClusterState s = ClusterWithAccounting();
  const AdmitOptions enforce{.enforce_associations = true, .enforce_qos = true};
  v1::JobRequest r = Request();
  r.add_partitions("short");
  auto before = AdmitJob(s, r, kAlice, kNow, enforce);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  struct Case {
    std::string name;
    std::function<void(v1::JobRequest*)> edit;
    std::string error;  // "" = accepted
  };
  const std::vector<Case> cases = {
      {"nothing that admission decides", [](v1::JobRequest* q) { q->set_comment("x"); }, ""},
      {"into a partition without an association",
       [](v1::JobRequest* q) {
         q->clear_partitions();
         q->add_partitions("rootonly");
       },
       "Invalid account or account/partition combination specified"},
      {"an unknown QOS", [](v1::JobRequest* q) { q->set_qos("zzz"); }, "Invalid qos specification"},
      {"a QOS the association lacks", [](v1::JobRequest* q) { q->set_qos("fast"); },
       "Invalid qos specification"},
      {"an unknown account", [](v1::JobRequest* q) { q->set_account("zzz"); },
       "Invalid account or account/partition combination specified"},
  };
  for (const Case& c : cases) {
    v1::Job after = *before;
    c.edit(after.mutable_request());
    auto readmitted = ReadmitUpdatedJob(s, *before, after, kAlice, kNow, enforce);
    if (c.error.empty()) {
      EXPECT_TRUE(readmitted.ok()) << c.name << ": " << readmitted.status().ToString();
    } else {
      EXPECT_EQ(readmitted.status().message(), c.error) << c.name;
    }
  }
  // Without accounting: RootOnly and AllowGroups still hold.
  for (const char* part : {"rootonly", "admins"}) {
    v1::Job moved = *before;
    moved.mutable_request()->clear_partitions();
    moved.mutable_request()->add_partitions(part);
    EXPECT_FALSE(ReadmitUpdatedJob(s, *before, moved, kAlice, kNow, AdmitOptions{}).ok()) << part;
  }
  // A full queue (MaxJobCount) does not stop a job that is already in it from moving.
  {
    ClusterState full = s;
    full.jobs[1] = *before;
    AdmitOptions tight = enforce;
    tight.max_job_count = 1;
    v1::Job renamed = *before;
    renamed.mutable_request()->set_account("");  // back to the default: admitted again
    EXPECT_TRUE(ReadmitUpdatedJob(full, *before, renamed, kAlice, kNow, tight).ok());
  }
  // Root's job may go where root may.
  auto root_job = AdmitJob(s, r, kRoot, kNow, enforce);
  ASSERT_TRUE(root_job.ok());
  v1::Job moved = *root_job;
  moved.mutable_request()->clear_partitions();
  moved.mutable_request()->add_partitions("rootonly");
  auto readmitted = ReadmitUpdatedJob(s, *root_job, moved, kRoot, kNow, enforce);
  ASSERT_TRUE(readmitted.ok()) << readmitted.status().ToString();
  EXPECT_EQ(readmitted->partition(), "rootonly");
}

// H9: Slurm's text limits, script size and MaxJobCount, with its errors.
TEST(AdmitJobTest, LengthsScriptSizeAndJobCountHaveSlurmsLimits) {
  const std::string kTooLong = "Pathname of a file, directory or other parameter too long";
  ClusterState s = Cluster();
  struct Case {
    std::string name;
    std::function<void(v1::JobRequest*, size_t)> set;
    size_t limit;
  };
  const std::vector<Case> cases = {
      {"name", [](v1::JobRequest* q, size_t n) { q->set_name(std::string(n, 'x')); }, 1024},
      {"comment", [](v1::JobRequest* q, size_t n) { q->set_comment(std::string(n, 'x')); }, 1024},
      {"work_dir",
       [](v1::JobRequest* q, size_t n) { q->set_work_dir("/" + std::string(n - 1, 'x')); }, 4096},
      {"dependency", [](v1::JobRequest* q, size_t n) { q->set_dependency(std::string(n, 'x')); },
       128 << 10},
      {"partitions",
       [](v1::JobRequest* q, size_t n) {
         q->add_partitions(std::string(n - 6, 'x'));
         q->add_partitions("batch");
       },
       1024},
  };
  for (const Case& c : cases) {
    v1::JobRequest r = Request();
    c.set(&r, c.limit + 1);
    EXPECT_EQ(AdmitJob(s, r, kAlice, kNow, AdmitOptions{}).status().message(), kTooLong) << c.name;
    EXPECT_EQ(FieldTooLong(r), c.name + ": " + std::to_string(c.limit + 1) + " bytes, at most " +
                                   std::to_string(c.limit));
    r = Request();
    c.set(&r, c.limit);
    EXPECT_EQ(FieldTooLong(r), "") << c.name;
  }
  // Texts others see hold no control characters (a terminal escape in a job name).
  v1::JobRequest escape = Request();
  escape.set_name("ok\x1b[2J");
  EXPECT_EQ(AdmitJob(s, escape, kAlice, kNow, AdmitOptions{}).status().message(),
            "name: holds the control character 0x1b; texts other users see may hold none");
  escape = Request();
  escape.add_partitions("batch\n");
  EXPECT_EQ(CheckRequestTexts(escape).message(),
            "partitions: holds the control character 0x0a; texts other users see may hold none");
  escape = Request();
  escape.set_export_env("ALL,X=a\tb");  // the job's own environment: anything goes
  EXPECT_TRUE(CheckRequestTexts(escape).ok());
  v1::JobPayload payload;
  payload.set_script(std::string(AdmitOptions{}.max_script_bytes + 1, 'x'));
  EXPECT_EQ(CheckPayloadSize(payload, AdmitOptions{}).message(), kTooLong);
  payload.mutable_script()->pop_back();
  EXPECT_TRUE(CheckPayloadSize(payload, AdmitOptions{}).ok());
  // MaxJobCount 3: two records kept, a third refused (ResourceExhausted: sbatch retries), and an
  // array counts each task.
  AdmitOptions options;
  options.max_job_count = 3;
  for (uint32_t id = 1; id <= 2; ++id) {
    auto job = AdmitJob(s, Request(), kAlice, kNow, options);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    job->set_job_id(id);
    s.jobs[id] = *job;
  }
  auto full = AdmitJob(s, Request(), kAlice, kNow, options);
  EXPECT_EQ(full.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(full.status().message(), kQueueFull);
  s.jobs.erase(2);
  v1::JobRequest array = Request();
  array.set_array("1-2");
  EXPECT_EQ(AdmitJob(s, array, kAlice, kNow, options).status().message(), kQueueFull);
  EXPECT_TRUE(AdmitJob(s, Request(), kAlice, kNow, options).ok());
}

// Admits alice's `r` and keeps it in the state as job `id` (a pending job that counts).
void AdmitAndKeep(ClusterState* s, const v1::JobRequest& r, uint32_t id,
                  const AdmitOptions& options) {
  auto job = AdmitJob(*s, r, kAlice, kNow, options);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  job->set_job_id(id);
  s->jobs[id] = *job;
}

TEST(AdmitJobTest, QosMaxSubmitJobsPerUserCountsTheUsersJobsInTheQos) {
  ClusterState s = ClusterWithAccounting();
  s.accounting.qos["normal"].set_max_submit_jobs_per_user(1);
  const AdmitOptions enforce{.enforce_associations = true, .enforce_limits = true};
  v1::JobRequest r = Request();
  r.add_partitions("short");
  ASSERT_NO_FATAL_FAILURE(AdmitAndKeep(&s, r, 100, enforce));
  EXPECT_EQ(AdmitJob(s, r, kAlice, kNow, enforce).status().message(),
            "QOSMaxSubmitJobPerUserLimit\nJob violates accounting/QOS policy (job submit limit, "
            "user's size and/or time limits)");
  EXPECT_TRUE(AdmitJob(s, r, kAlice, kNow, AdmitOptions{.enforce_associations = true}).ok());
}

TEST(AdmitJobTest, SubmitLimitsCountJobsNotFinishedAndArrayTasks) {
  const AdmitOptions enforce{.enforce_associations = true, .enforce_limits = true};
  const std::string kPolicy =
      "\nJob violates accounting/QOS policy (job submit limit, user's size and/or time limits)";
  for (const bool group : {false, true}) {
    ClusterState s = ClusterWithAccounting();
    for (auto& [id, a] : s.accounting.associations) {
      if (group && a.user().empty() && a.account() == "research") a.set_grp_submit_jobs(3);
      if (!group && a.user() == "alice") a.set_max_submit_jobs(3);
    }
    v1::JobRequest r = Request();
    r.add_partitions("short");
    ASSERT_NO_FATAL_FAILURE(AdmitAndKeep(&s, r, 100, enforce));
    v1::JobRequest array = r;
    array.set_array("1-3");  // three more: one too many
    EXPECT_EQ(AdmitJob(s, array, kAlice, kNow, enforce).status().message(),
              std::string(group ? "AssocGrpSubmitJobsLimit" : "AssocMaxSubmitJobLimit") + kPolicy);
    array.set_array("1-2");
    EXPECT_TRUE(AdmitJob(s, array, kAlice, kNow, enforce).ok());
    SetJobState(&s.jobs[100], model::JobState{model::JobBaseState::kCompleted});
    array.set_array("1-3");  // a finished job no longer counts
    EXPECT_TRUE(AdmitJob(s, array, kAlice, kNow, enforce).ok());
  }
}

}  // namespace
}  // namespace gantry::state
