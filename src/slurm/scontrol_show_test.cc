#include "slurm/scontrol_show.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "slurm_view/anchor_records_test_util.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using ::gantry::testing::ReadGolden;
using testing::AnchorJob;
using testing::AnchorNode;
using testing::AnchorNodes;
using testing::AnchorPartitions;
using testing::AnchorShowNow;
using testing::At;

struct JobCase {
  uint32_t id;
  const char* golden;
  bool details;
};

class ShowJobAnchorTest : public ::testing::TestWithParam<JobCase> {};

TEST_P(ShowJobAnchorTest, MatchesSlurm) {
  const JobCase& c = GetParam();
  ShowOptions options;
  options.details = c.details;
  std::string expected = ReadGolden(c.golden);
  // Gantry does not bind CPUs: the per-node line has no CPU_IDs= (documented).
  const size_t cpu_ids = expected.find(" CPU_IDs=");
  if (cpu_ids != std::string::npos) {
    expected.erase(cpu_ids, expected.find(' ', cpu_ids + 1) - cpu_ids);
  }
  EXPECT_EQ(FormatJobRecord(AnchorJob(c.id), AnchorShowNow(), TimeZone::Utc(), options), expected);
}

INSTANTIATE_TEST_SUITE_P(
    Anchor, ShowJobAnchorTest,
    ::testing::Values(JobCase{21437, "cmd-anchor-scontrol-show-job-running.txt", false},
                      JobCase{21441, "cmd-anchor-scontrol-show-job-running-high.txt", false},
                      JobCase{21442, "cmd-anchor-scontrol-show-job-pending.txt", false},
                      JobCase{21445, "cmd-anchor-scontrol-show-job-held.txt", false},
                      JobCase{21430, "cmd-anchor-scontrol-show-job-suspended.txt", false},
                      JobCase{21437, "cmd-anchor-scontrol-show-job-d-running.txt", true}));

TEST(ShowJobArrayTest, ArrayRecordThenTasksMatchSlurm) {
  std::vector<v1::Job> jobs = testing::AnchorArrayJobs();  // 21444, 21450, 21451
  std::string out;
  for (const v1::Job* job : {&jobs[0], &jobs[2], &jobs[1]}) {
    out += FormatJobRecord(*job, AnchorShowNow(), TimeZone::Utc(), ShowOptions{});
  }
  EXPECT_EQ(out, ReadGolden("cmd-anchor-scontrol-show-job-array.txt"));
}

TEST(ShowJobTest, OneLinerJoinsFieldsWithSpaces) {
  ShowOptions options;
  options.one_liner = true;
  const std::string line =
      FormatJobRecord(AnchorJob(21441), AnchorShowNow(), TimeZone::Utc(), options);
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_NE(line.find("JobName=urgent-eval UserId=bob(1002)"), std::string::npos);
  EXPECT_NE(line.find(" Power= \n"), std::string::npos);
}

TEST(ShowJobTest, OptionalLinesAppearWhenSet) {
  v1::Job job = AnchorJob(21441);
  job.mutable_request()->set_comment("nightly eval");
  job.mutable_request()->set_mail_type("END,FAIL");
  job.mutable_request()->set_mail_user("bob@example.com");
  job.mutable_request()->set_std_out("logs/%x-%j.out");
  job.mutable_request()->clear_std_err();
  job.set_state_desc("launch failed requeued held");
  const std::string text = FormatJobRecord(job, AnchorShowNow(), TimeZone::Utc(), {});
  EXPECT_NE(text.find("   WorkDir=/tmp/anchor-verify\n   Comment=nightly eval \n"),
            std::string::npos);
  EXPECT_NE(text.find("Reason=launch_failed_requeued_held "), std::string::npos);
  EXPECT_NE(text.find("StdErr=/tmp/anchor-verify/logs/urgent-eval-21441.out\n"), std::string::npos);
  EXPECT_NE(text.find("StdOut=/tmp/anchor-verify/logs/urgent-eval-21441.out\n"), std::string::npos);
  EXPECT_NE(text.find("   MailUser=bob@example.com MailType=END,FAIL\n   \n\n"), std::string::npos);
}

TEST(ShowJobTest, DefaultOutputPathsAndUnsetValues) {
  v1::Job job;
  job.set_job_id(7);
  job.set_batch_flag(true);
  job.set_exit_status(256);  // exit 1
  job.mutable_request()->set_work_dir("/home/u");
  job.mutable_request()->set_name("wrap");
  job.set_time_limit_min(0);
  const std::string text = FormatJobRecord(job, 1000, TimeZone::Utc(), {});
  EXPECT_NE(text.find("ExitCode=1:0\n"), std::string::npos);
  EXPECT_NE(text.find("TimeLimit=Partition_Limit"), std::string::npos);
  EXPECT_NE(text.find("Account=(null) QOS=(null)"), std::string::npos);
  EXPECT_NE(text.find("StdErr=/home/u/slurm-7.out\n   StdIn=/dev/null\n   StdOut=/home/u/"
                      "slurm-7.out\n"),
            std::string::npos);
  EXPECT_NE(text.find("MinMemoryNode=0 "), std::string::npos);
}

TEST(ShowNodeTest, MatchesSlurmForGpu1) {
  EXPECT_EQ(FormatNodeRecord(AnchorNode(1), TimeZone::Utc(), {}, nullptr),
            ReadGolden("cmd-anchor-scontrol-show-node-gpu1.txt"));
}

TEST(ShowNodeTest, MatchesSlurmForAllNodesExceptPorts) {
  std::string all;
  for (const v1::Node& n : AnchorNodes()) all += FormatNodeRecord(n, TimeZone::Utc(), {}, nullptr);
  std::string expected = ReadGolden("cmd-anchor-scontrol-show-node.txt");
  // Slurm prints Port= for slurmd ports other than SlurmdPort; Gantry never does.
  for (const char* port : {" Port=6832", " Port=6833", " Port=6834"}) {
    expected.erase(expected.find(port), std::string(port).size());
  }
  EXPECT_EQ(all, expected);
}

TEST(ShowNodeTest, DrainedNodeShowsReasonWithUserAndTime) {
  v1::Node node = AnchorNode(2);
  node.set_state(static_cast<uint32_t>(model::NodeBaseState::kIdle));
  node.set_state_flags(static_cast<uint32_t>(model::NodeFlag::kDrain));
  node.set_alloc_cpus(0);
  node.set_alloc_mem_mb(0);
  node.clear_alloc_gres();
  node.set_reason("disk errors");
  node.set_reason_uid(0);
  node.set_reason_time(At("2026-12-02T12:00:00"));
  const std::string text = FormatNodeRecord(node, TimeZone::Utc(), {}, [](uint32_t uid) {
    return uid == 0 ? std::optional<std::string>("root") : std::nullopt;
  });
  EXPECT_NE(text.find("State=IDLE+DRAIN "), std::string::npos);
  EXPECT_NE(text.find("   AllocTRES=\n"), std::string::npos);
  EXPECT_NE(text.find("ExtSensorsTemp=n/s\n   Reason=disk errors [root@2026-12-02T12:00:00]\n\n"),
            std::string::npos);
}

TEST(ShowNodeTest, PartlyAllocatedNodeIsMixedAndTopologyDefaultsFromCpus) {
  v1::Node node;
  node.set_name("demo-cpu-0");
  node.set_cpus(32);
  node.set_real_memory_mb(131072);
  node.set_state(static_cast<uint32_t>(model::NodeBaseState::kAllocated));
  node.set_alloc_cpus(8);
  const std::string text = FormatNodeRecord(node, TimeZone::Utc(), {}, nullptr);
  EXPECT_NE(text.find("NodeName=demo-cpu-0 CoresPerSocket=1 \n"), std::string::npos);
  EXPECT_NE(text.find("CPULoad=N/A"), std::string::npos);
  EXPECT_NE(text.find("FreeMem=N/A Sockets=32 Boards=1"), std::string::npos);
  EXPECT_NE(text.find("State=MIXED ThreadsPerCore=1"), std::string::npos);
  EXPECT_NE(text.find("Gres=(null)"), std::string::npos);
  EXPECT_NE(text.find("NodeAddr=demo-cpu-0 NodeHostName=demo-cpu-0 \n"), std::string::npos);
}

TEST(ShowPartitionTest, MatchesSlurm) {
  const std::vector<v1::Node> nodes = AnchorNodes();
  std::vector<const v1::Node*> ptrs;
  for (const v1::Node& n : nodes) ptrs.push_back(&n);
  std::string all;
  for (const v1::Partition& p : AnchorPartitions()) all += FormatPartitionRecord(p, ptrs, {});
  EXPECT_EQ(all, ReadGolden("cmd-anchor-scontrol-show-partition.txt"));
}

TEST(ShowPartitionTest, MemoryDefaultsAndBillingWeights) {
  v1::Partition p = AnchorPartitions()[0];
  p.set_def_mem_per_cpu_mb(2000);
  p.set_max_mem_per_node_mb(128000);
  p.set_tres_billing_weights("CPU=0.5,Mem=0.25G");
  p.set_default_time_min(60);
  const std::vector<v1::Node> nodes = AnchorNodes();
  const std::string text = FormatPartitionRecord(p, {&nodes[0]}, {});
  EXPECT_NE(text.find("DefaultTime=01:00:00 "), std::string::npos);
  EXPECT_NE(text.find("DefMemPerCPU=2000 MaxMemPerNode=128000\n"), std::string::npos);
  // 0.5 * 64 CPUs + 0.25 per GiB * 250 GiB = 94.
  EXPECT_NE(text.find("TRES=cpu=64,mem=250G,node=1,billing=94,gres/gpu=8\n"
                      "   TRESBillingWeights=CPU=0.5,Mem=0.25G\n\n"),
            std::string::npos);
}

TEST(ShowConfigTest, PrintsEntriesInScontrolLayout) {
  v1::GetConfigReply reply;
  auto add = [&](const char* k, const char* v) {
    v1::ConfigEntry* e = reply.add_entries();
    e->set_key(k);
    e->set_value(v);
  };
  add("AccountingStorageBackupHost", "(null)");
  add("ClusterName", "anchor");
  add("AccountingStorageExternalHost", "(null)");
  EXPECT_EQ(FormatConfig(reply, At("2026-12-02T11:46:49"), TimeZone::Utc(), "vm"),
            "Configuration data as of 2026-12-02T11:46:49\n"
            "AccountingStorageBackupHost = (null)\n"
            "ClusterName             = anchor\n"
            "AccountingStorageExternalHost = (null)\n"
            "\n"
            "Slurmctld(primary) at vm is UP\n");
}

}  // namespace
}  // namespace gantry::slurm
