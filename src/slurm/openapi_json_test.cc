// squeue --json / sinfo --json against what Slurm 22.05 printed on the reference cluster
// (2026-12-03, tests/golden/cmd-anchor-{squeue,sinfo}-json.txt) for the same jobs and nodes,
// and the squeue -O / sinfo -O listings captured at the same time.
#include "slurm/openapi_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "slurm/sinfo_format.h"
#include "slurm_view/anchor_records_test_util.h"
#include "slurm_view/job_view.h"
#include "slurm_view/squeue_format.h"
#include "slurm_view/squeue_sort.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using ::gantry::testing::ReadGolden;
using testing::At;

// squeue -O and sinfo -O were captured at 08:42:58 UTC.
UnixTime CaptureNow() { return At("2026-12-03T08:42:58"); }

// The reference jobs: 26332 and 26342 held (sbatch -H --wrap), 26333 running on gpu1.
v1::Job MirrorJob(uint32_t id) {
  v1::Job job;
  job.set_job_id(id);
  v1::JobRequest* r = job.mutable_request();
  r->set_name(id == 26332 ? "wrap" : (id == 26333 ? "runner" : "other"));
  r->set_account("root");
  r->set_qos("normal");
  r->set_mem_per_cpu_mb(2000);
  r->set_work_dir("/tmp");
  r->set_submit_host("localhost");
  r->add_partitions("a4");
  r->set_wrap(true);
  job.set_user_name("root");
  job.set_group_name("root");
  job.set_batch_flag(true);
  job.set_requeue(true);
  job.set_exit_status(-1);
  job.set_partition("a4");
  if (id == 26333) {
    job.set_state(static_cast<uint32_t>(model::JobBaseState::kRunning));
    job.set_reason("None");
    job.set_priority(2556);
    job.set_submit_time(At("2026-12-03T08:39:36"));
    job.set_eligible_time(At("2026-12-03T08:39:36"));
    job.set_accrue_time(At("2026-12-03T08:39:36"));
    job.set_start_time(At("2026-12-03T08:39:46"));
    job.set_end_time(At("2026-12-03T09:09:46"));
    job.set_last_sched_eval(At("2026-12-03T08:39:46"));
    job.add_nodes("gpu1");
    job.set_num_cpus(1);
    job.set_alloc_mem_mb(2000);
    job.set_time_limit_min(30);
  } else {
    job.set_state(static_cast<uint32_t>(model::JobBaseState::kPending));
    job.set_reason("JobHeldUser");
    const char* submit = id == 26332 ? "2026-12-03T08:39:36" : "2026-12-03T08:42:50";
    job.set_submit_time(At(submit));
    job.set_last_sched_eval(At(submit));
    job.set_time_limit_min(kInfiniteMinutes);
  }
  return job;
}

std::vector<v1::Job> MirrorJobs() { return {MirrorJob(26332), MirrorJob(26333), MirrorJob(26342)}; }

v1::Node MirrorNode(int i) {
  v1::Node n;
  n.set_name("gpu" + std::to_string(i));
  n.set_hostname(n.name());
  n.set_address("127.0.0.1:" + std::to_string(6830 + i));
  n.add_partitions("a4");
  n.add_partitions("high");
  n.set_state(static_cast<uint32_t>(i == 1 ? model::NodeBaseState::kAllocated
                                           : model::NodeBaseState::kIdle));
  n.set_cpus(64);
  n.set_sockets(2);
  n.set_cores_per_socket(32);
  n.set_threads_per_core(1);
  n.set_real_memory_mb(256000);
  n.set_gres("gpu:8");
  n.set_arch("x86_64");
  n.set_os("Linux 6.18.44-fc-v1098 #1 SMP PREEMPT_DYNAMIC @0");
  n.set_version("22.05.8");
  n.set_host_boot_time(1796269992);
  n.set_boot_time(1796287126);
  n.set_last_busy_time(i == 1 ? 1796287166 : 1796287164);
  n.set_cpu_load(28);
  n.set_free_mem_mb(22007);
  if (i == 1) {
    n.set_alloc_cpus(1);
    n.set_alloc_mem_mb(2000);
  }
  return n;
}

std::vector<v1::Node> MirrorNodes() {
  return {MirrorNode(1), MirrorNode(2), MirrorNode(3), MirrorNode(4)};
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

TEST(OpenapiJsonTest, SqueueJsonMatchesSlurm) {
  const std::vector<v1::Node> nodes = MirrorNodes();
  OpenapiJobContext ctx;
  ctx.cluster = "anchor";
  for (const v1::Node& n : nodes) ctx.nodes.push_back(&n);
  nlohmann::ordered_json doc = OpenapiDocument();
  doc["jobs"] = nlohmann::ordered_json::array();
  for (const v1::Job& job : MirrorJobs()) doc["jobs"].push_back(JobToOpenapi(job, ctx));
  // Gantry has no associations yet: association_id is 0.
  const std::string expected = Replace(ReadGolden("cmd-anchor-squeue-json.txt"),
                                       "\"association_id\": 2,", "\"association_id\": 0,");
  EXPECT_EQ(DumpSlurmJson(doc), expected);
}

TEST(OpenapiJsonTest, SinfoJsonMatchesSlurm) {
  nlohmann::ordered_json doc = OpenapiDocument();
  doc["nodes"] = nlohmann::ordered_json::array();
  for (const v1::Node& node : MirrorNodes()) doc["nodes"].push_back(NodeToOpenapi(node, {}));
  // The reference had each node's own free memory; the mirror nodes share gpu1's.
  std::string expected = ReadGolden("cmd-anchor-sinfo-json.txt");
  for (const char* free : {"23560", "23559", "23558"}) {
    expected = Replace(expected, std::string("\"free_memory\": ") + free, "\"free_memory\": 22007");
  }
  expected = Replace(expected, "\"cpu_load\": 2,", "\"cpu_load\": 28,");
  EXPECT_EQ(DumpSlurmJson(doc), expected);
}

TEST(OpenapiJsonTest, WriterEscapesAndKeepsEmptyContainersOpen) {
  nlohmann::ordered_json v = nlohmann::ordered_json::object();
  v["path"] = "/a\"b\\\n\x01";
  v["empty"] = nlohmann::ordered_json::array();
  v["obj"] = nlohmann::ordered_json::object();
  v["real"] = 2.0;
  v["half"] = 0.5;
  v["list"] = {1, true, nullptr};
  EXPECT_EQ(DumpSlurmJson(v),
            "{\n  \"path\": \"\\/a\\\"b\\\\\\n\\u0001\",\n  \"empty\": [\n  ],\n"
            "  \"obj\": {\n  },\n  \"real\": 2.0,\n  \"half\": 0.5,\n  \"list\": [\n"
            "    1,\n    true,\n    null\n  ]\n}");
}

std::string RenderJobs(const std::string& format_long) {
  std::vector<v1::Job> all = MirrorJobs();
  std::vector<const v1::Job*> jobs;
  for (const v1::Job& j : all) jobs.push_back(&j);
  EXPECT_TRUE(SortJobs(&jobs, "i", CaptureNow()).ok());
  const JobFormat f = ParseJobLongFormat(format_long);
  EXPECT_TRUE(f.errors.empty());
  const JobPrintContext ctx{CaptureNow(), &TimeZone::Utc(), "anchor"};
  std::string out = RenderJobHeader(f);
  for (const v1::Job* j : jobs) out += RenderJobLine(f, *j, ctx);
  return out;
}

TEST(SqueueLongFormatAnchorTest, MatchesSlurm) {
  EXPECT_EQ(RenderJobs("JobID:10,Name:.20,UserName,State,ReasonList"),
            ReadGolden("cmd-anchor-squeue-O.txt"));
  EXPECT_EQ(RenderJobs("SubmitTime,StartTime,TimeLimit:.10,TimeLeft:.10,NumCPUs:5,MinMemory:.10,"
                       "Partition:4,PriorityLong:.8,STDOUT:30,WorkDir:10"),
            ReadGolden("cmd-anchor-squeue-O-times.txt"));
}

TEST(SinfoLongFormatAnchorTest, MatchesSlurm) {
  v1::GetNodesReply reply;
  for (const v1::Node& n : MirrorNodes()) *reply.add_nodes() = n;
  for (const char* name : {"a4", "high"}) {
    v1::Partition* p = reply.add_partitions();
    p->set_name(name);
    p->add_nodes("gpu[1-4]");
    p->set_is_default(std::string(name) == "a4");
    p->set_state("UP");
    p->set_max_time_min(kInfiniteMinutes);
  }
  const SinfoFormat f =
      ParseSinfoLongFormat("partition,available,time,nodes,statecompact,nodelist");
  std::vector<SinfoRecord> records = BuildSinfoRecords(reply, {}, f);
  SortSinfoRecords(&records, "#P,-t");
  EXPECT_EQ(RenderSinfo(f, records, false, {}), ReadGolden("cmd-anchor-sinfo-O.txt"));
}

}  // namespace
}  // namespace gantry::slurm
