// Test helpers (header only): job, node and partition records that mirror the Slurm 22.05
// reference cluster ("anchor", tests/golden/cmd-anchor-*.txt), so that formatters can be compared
// with what real Slurm printed for the same jobs. Times are UTC, as on the reference machine.
#ifndef GANTRY_SLURM_VIEW_ANCHOR_RECORDS_TEST_UTIL_H_
#define GANTRY_SLURM_VIEW_ANCHOR_RECORDS_TEST_UTIL_H_

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"
#include "model/job_state.h"
#include "model/node_state.h"

namespace gantry::slurm::testing {

// "2026-12-02T11:46:07" (UTC) as Unix seconds.
inline UnixTime At(const std::string& iso) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &s);
  return DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}

// scontrol show job/node/config were captured at 11:46:49; squeue and sinfo at 11:46:47.
inline UnixTime AnchorShowNow() { return At("2026-12-02T11:46:49"); }
inline UnixTime AnchorQueueNow() { return At("2026-12-02T11:46:47"); }

inline constexpr uint32_t kUnlimited = 0xFFFFFFFFu;

struct AnchorJobSpec {
  uint32_t id;
  const char* name;
  const char* user;
  uint32_t uid;
  const char* account;
  const char* partition;
  model::JobBaseState state;
  const char* reason;
  uint32_t priority;
  uint32_t limit_min;
  uint32_t cpus;
  uint32_t min_nodes;
  uint32_t max_nodes;
  std::vector<std::string> nodes;
  const char* submit;
  const char* eligible;  // "" = Unknown
  const char* start;     // "" = Unknown
  const char* suspend;   // "" = None
  int64_t pre_suspend;
  const char* sched_eval;
  bool gpus;
  bool preemptable;
};

inline v1::Job MakeJob(const AnchorJobSpec& s) {
  v1::Job job;
  job.set_job_id(s.id);
  v1::JobRequest* r = job.mutable_request();
  r->set_name(s.name);
  r->set_account(s.account);
  r->set_qos("normal");
  r->set_min_nodes(s.min_nodes);
  r->set_max_nodes(s.max_nodes);
  r->set_num_tasks(s.cpus);
  r->set_mem_per_cpu_mb(2000);
  r->set_work_dir("/tmp/anchor-verify");
  r->set_std_in("/dev/null");
  r->set_std_out("/dev/null");
  r->set_std_err("/dev/null");
  r->set_submit_host("localhost");
  r->set_alloc_sid(2742);
  r->add_partitions(s.partition);
  if (s.gpus) r->set_gres("gres:gpu:4");
  job.set_user_id(s.uid);
  job.set_group_id(s.uid);
  job.set_user_name(s.user);
  job.set_group_name(s.user);
  job.set_state(static_cast<uint32_t>(s.state));
  job.set_reason(s.reason);
  job.set_priority(s.priority);
  job.set_batch_flag(true);
  job.set_requeue(true);
  job.set_exit_status(-1);
  job.set_derived_exit_status(0);
  job.set_submit_time(At(s.submit));
  if (*s.eligible) job.set_eligible_time(At(s.eligible));
  if (*s.eligible) job.set_accrue_time(At(s.eligible));
  if (*s.start) {
    job.set_start_time(At(s.start));
    if (s.limit_min != kUnlimited) job.set_end_time(At(s.start) + s.limit_min * 60);
    job.set_alloc_mem_mb(2000ull * s.cpus);
    if (s.preemptable) job.set_preempt_eligible_time(At(s.start));
  }
  if (*s.suspend) job.set_suspend_time(At(s.suspend));
  job.set_pre_suspend_secs(s.pre_suspend);
  job.set_last_sched_eval(At(s.sched_eval));
  job.set_partition(s.partition);
  for (const std::string& n : s.nodes) job.add_nodes(n);
  job.set_num_cpus(s.cpus);
  job.set_time_limit_min(s.limit_min);
  return job;
}

inline v1::Job AnchorJob(uint32_t id) {
  using model::JobBaseState;
  const JobBaseState PD = JobBaseState::kPending, R = JobBaseState::kRunning,
                     S = JobBaseState::kSuspended;
  static const std::vector<AnchorJobSpec> specs = {
      {21430,
       "fill-a4-4",
       "alice",
       1001,
       "research",
       "a4",
       S,
       "None",
       2722,
       30,
       64,
       1,
       0,
       {"gpu1"},
       "2026-12-02T11:43:25",
       "2026-12-02T11:43:25",
       "2026-12-02T11:44:31",
       "2026-12-02T11:44:33",
       2,
       "2026-12-02T11:44:31",
       false,
       true},
      {21437,
       "train-llm-1",
       "alice",
       1001,
       "research",
       "a4",
       S,
       "None",
       2680,
       120,
       48,
       1,
       0,
       {"gpu1"},
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:08",
       "2026-12-02T11:46:21",
       13,
       "2026-12-02T11:46:08",
       true,
       true},
      {21438,
       "train-llm-2",
       "alice",
       1001,
       "research",
       "a4",
       R,
       "None",
       2680,
       120,
       48,
       1,
       0,
       {"gpu2"},
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:08",
       "",
       0,
       "2026-12-02T11:46:08",
       true,
       true},
      {21439,
       "train-llm-3",
       "alice",
       1001,
       "research",
       "a4",
       R,
       "None",
       2680,
       120,
       48,
       1,
       0,
       {"gpu3"},
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:08",
       "",
       0,
       "2026-12-02T11:46:08",
       true,
       true},
      {21440,
       "train-llm-4",
       "alice",
       1001,
       "research",
       "a4",
       R,
       "None",
       2680,
       120,
       48,
       1,
       0,
       {"gpu4"},
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:07",
       "2026-12-02T11:46:08",
       "",
       0,
       "2026-12-02T11:46:08",
       true,
       true},
      {21441,
       "urgent-eval",
       "bob",
       1002,
       "prod",
       "high",
       R,
       "None",
       6923,
       30,
       32,
       1,
       0,
       {"gpu1"},
       "2026-12-02T11:46:08",
       "2026-12-02T11:46:08",
       "2026-12-02T11:46:21",
       "",
       0,
       "2026-12-02T11:46:21",
       false,
       false},
      {21442,
       "finetune",
       "alice",
       1001,
       "research",
       "a4",
       PD,
       "Resources",
       2637,
       240,
       32,
       1,
       1,
       {},
       "2026-12-02T11:46:21",
       "2026-12-02T11:46:21",
       "",
       "",
       0,
       "2026-12-02T11:46:41",
       true,
       false},
      {21443,
       "sweep",
       "bob",
       1002,
       "prod",
       "a4",
       R,
       "None",
       2700,
       60,
       20,
       2,
       0,
       {"gpu1", "gpu2"},
       "2026-12-02T11:46:22",
       "2026-12-02T11:46:22",
       "2026-12-02T11:46:41",
       "",
       0,
       "2026-12-02T11:46:41",
       false,
       true},
      {21445,
       "held-job",
       "root",
       0,
       "root",
       "a4",
       PD,
       "JobHeldUser",
       0,
       kUnlimited,
       4,
       1,
       0,
       {},
       "2026-12-02T11:46:22",
       "",
       "",
       "",
       0,
       "2026-12-02T11:46:22",
       false,
       false},
      {21446,
       "after-train",
       "root",
       0,
       "root",
       "a4",
       PD,
       "Dependency",
       2690,
       kUnlimited,
       4,
       1,
       0,
       {},
       "2026-12-02T11:46:22",
       "",
       "",
       "",
       0,
       "2026-12-02T11:46:22",
       false,
       false},
      {21447, "nightly", "bob",       1002, "prod",
       "a4",  PD,        "BeginTime", 2700, kUnlimited,
       4,     1,         0,           {},   "2026-12-02T11:46:22",
       "",    "",        "",          0,    "2026-12-02T11:46:22",
       false, false},
      {21448,
       "too-big",
       "alice",
       1001,
       "research",
       "a4",
       PD,
       "Resources",
       2650,
       kUnlimited,
       128,
       2,
       0,
       {},
       "2026-12-02T11:46:22",
       "2026-12-02T11:46:22",
       "",
       "",
       0,
       "2026-12-02T11:46:41",
       false,
       false},
      {21449,
       "prio-high",
       "root",
       0,
       "root",
       "high",
       PD,
       "Resources",
       7000,
       10,
       4,
       1,
       0,
       {},
       "2026-12-02T11:46:23",
       "2026-12-02T11:46:23",
       "",
       "",
       0,
       "2026-12-02T11:46:41",
       false,
       false},
  };
  for (const AnchorJobSpec& s : specs) {
    if (s.id == id) {
      v1::Job job = MakeJob(s);
      if (id == 21445) job.set_priority(0);
      if (id == 21447) job.set_start_time(At("2026-12-02T12:46:22"));  // its --begin time
      if (job.nodes_size() > 0 && !job.request().gres().empty()) {     // "GRES=gpu:4(IDX:0-3)"
        v1::NodeGpus& gpus = *job.add_node_gpus();
        for (uint32_t i = 0; i < 4; ++i) gpus.add_idx(i);
        gpus.set_gres("gpu:4");
      }
      return job;
    }
  }
  return v1::Job();
}

// The job array 21444 (`sbatch -a 1-5%2 -N2 -n20 -t 30`) as scontrol show job 21444 printed
// it: its record with tasks 3-5 pending, task 2 as job 21451 on gpu[3-4], task 1 as job 21450
// on gpu[2-3].
inline std::vector<v1::Job> AnchorArrayJobs() {
  using model::JobBaseState;
  AnchorJobSpec spec{21444,
                     "hparam",
                     "alice",
                     1001,
                     "research",
                     "a4",
                     JobBaseState::kPending,
                     "JobArrayTaskLimit",
                     2606,
                     30,
                     20,
                     2,
                     0,
                     {},
                     "2026-12-02T11:46:22",
                     "",
                     "",
                     "",
                     0,
                     "2026-12-02T11:46:41",
                     false,
                     true};
  v1::Job array = MakeJob(spec);
  array.mutable_request()->set_array("1-5%2");
  array.set_array_job_id(21444);
  for (uint32_t task : {3u, 4u, 5u}) array.add_array_pending_tasks(task);
  array.set_array_task_throttle(2);
  array.set_accrue_time(At("2026-12-02T11:46:41"));
  array.set_tres("cpu=20,mem=40000M,node=1,billing=20");  // node=1: what slurmctld printed
  std::vector<v1::Job> jobs = {array};
  spec.state = JobBaseState::kRunning;
  spec.reason = "None";
  spec.eligible = spec.start = "2026-12-02T11:46:41";
  const std::pair<uint32_t, std::vector<std::string>> tasks[] = {{21450, {"gpu2", "gpu3"}},
                                                                 {21451, {"gpu3", "gpu4"}}};
  for (const auto& [id, nodes] : tasks) {
    spec.id = id;
    spec.nodes = nodes;
    v1::Job task = MakeJob(spec);
    task.mutable_request()->set_array("1-5%2");
    task.set_array_job_id(21444);
    task.set_array_task_id(id - 21449);
    task.set_array_task_throttle(2);
    jobs.push_back(task);
  }
  return jobs;
}

// The jobs squeue showed, in job id order.
inline std::vector<v1::Job> AnchorQueue() {
  std::vector<v1::Job> jobs;
  for (uint32_t id :
       {21437, 21438, 21439, 21440, 21441, 21442, 21443, 21445, 21446, 21447, 21448, 21449}) {
    jobs.push_back(AnchorJob(id));
  }
  for (v1::Job& job : AnchorArrayJobs()) jobs.push_back(std::move(job));
  std::sort(jobs.begin(), jobs.end(),
            [](const v1::Job& a, const v1::Job& b) { return a.job_id() < b.job_id(); });
  return jobs;
}

// gpu1..gpu4 (index 1..4) as scontrol show node printed them.
inline v1::Node AnchorNode(int index) {
  static const uint64_t kAllocMem[] = {0, 225536, 177536, 128000, 128000};
  v1::Node node;
  node.set_name("gpu" + std::to_string(index));
  node.set_pool("gpu");
  node.add_partitions("a4");
  node.add_partitions("high");
  node.set_state(static_cast<uint32_t>(model::NodeBaseState::kAllocated));
  node.set_cpus(64);
  node.set_real_memory_mb(256000);
  node.set_gres("gpu:8");
  node.set_address("127.0.0.1:" + std::to_string(6830 + index));
  node.set_hostname(node.name());
  node.set_version("22.05.8");
  node.set_os("Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0");
  node.set_arch("x86_64");
  node.set_alloc_cpus(64);
  node.set_alloc_mem_mb(kAllocMem[index]);
  node.set_alloc_gres("gpu:4");
  node.set_sockets(2);
  node.set_cores_per_socket(32);
  node.set_threads_per_core(1);
  node.set_cpu_load(193);
  node.set_free_mem_mb(23475);
  node.set_host_boot_time(At("2026-12-02T10:26:57"));
  node.set_boot_time(At("2026-12-02T11:38:01"));
  node.set_last_busy_time(At("2026-12-02T11:46:06"));
  return node;
}

inline std::vector<v1::Node> AnchorNodes() {
  return {AnchorNode(1), AnchorNode(2), AnchorNode(3), AnchorNode(4)};
}

inline std::vector<v1::Partition> AnchorPartitions() {
  std::vector<v1::Partition> parts(2);
  parts[0].set_name("a4");
  parts[0].set_is_default(true);
  parts[0].set_priority_tier(1);
  parts[0].set_preempt_mode("GANG,SUSPEND");
  parts[1].set_name("high");
  parts[1].set_priority_tier(10);
  parts[1].set_preempt_mode("OFF");
  for (v1::Partition& p : parts) {
    for (int i = 1; i <= 4; ++i) p.add_nodes("gpu" + std::to_string(i));
    p.set_state("UP");
    p.set_max_time_min(kUnlimited);
    p.set_max_nodes(kUnlimited);
    p.set_priority_job_factor(1);
    p.set_oversubscribe("NO");
  }
  return parts;
}

// Jobs mirroring nine that ran on the Slurm 22.05 reference cluster (2026-12-03, captured at
// 06:48:36 while 26304 and 26306 still ran), moved to the fake's clock: 06:48:36 there is
// AnchorQueueNow() (11:46:47) here, so every time is 19:01:49 earlier. Their sacct transcripts in
// tests/golden/cmd-sacct.txt are what the real sacct printed, with the times moved likewise
// (SacctCases in slurm/transcript_test_util.h).
inline std::vector<v1::Job> AnchorSacctHistory() {
  std::vector<v1::Job> jobs;
  using S = model::JobBaseState;
  struct Spec {
    uint32_t id;
    const char* name;
    uint32_t uid;
    S state;
    int32_t exit_status;
    const char* eligible;
    const char* start;
    const char* end;
    uint32_t limit;
    uint32_t priority;
    const char* reason;
    bool cancelled;
  };
  const char* t0 = "2026-12-02T11:46:30";
  const char* t1 = "2026-12-02T11:46:31";
  const char* cancel = "2026-12-02T11:46:38";
  const Spec specs[] = {
      {26301, "ok", 1001, S::kCompleted, 0, t0, t0, t1, 0, 11127, "None", false},
      {26302, "bad-exit", 1001, S::kFailed, 3 << 8, t0, t0, t1, 0, 11127, "None", false},
      {26303, "to-cancel", 1001, S::kCancelled, 15, t0, t0, cancel, 0, 11127, "None", true},
      {26304, "timeout", 1001, S::kRunning, -1, t0, t0, "2026-12-02T11:47:30", 1, 11127, "None",
       false},
      {26305, "killed", 1001, S::kFailed, 9, t0, t0, t1, 0, 11127, "None", false},
      {26306, "long-run", 1001, S::kRunning, -1, t0, t0, "", 0, 11127, "None", false},
      {26307, "held", 1001, S::kPending, -1, "", "", "", 0, 0, "JobHeldUser", false},
      {26308, "pend-cancel", 1001, S::kCancelled, -1, "2026-12-02T12:46:30", "", cancel, 0, 11127,
       "BeginTime", true},
      {26309, "two-nodes", 0, S::kCompleted, 0, t0, t0, "2026-12-02T11:46:33", 0, 2683, "None",
       false},
  };
  for (const Spec& s : specs) {
    const bool two = s.id == 26309;
    v1::Job job;
    job.set_job_id(s.id);
    v1::JobRequest* r = job.mutable_request();
    r->set_name(s.name);
    r->set_account(s.uid == 0 ? "root" : "research");
    r->set_qos("normal");
    r->add_partitions("a4");
    r->set_min_nodes(two ? 2 : 1);
    r->set_mem_per_cpu_mb(2000);
    r->set_work_dir("/tmp/sacct-anchor");
    r->set_time_limit_min(s.limit);
    job.set_user_id(s.uid);
    job.set_group_id(s.uid);
    job.set_user_name(s.uid == 0 ? "root" : "alice");
    job.set_group_name(s.uid == 0 ? "root" : "alice");
    job.set_state(static_cast<uint32_t>(s.state));
    job.set_batch_flag(true);
    job.set_exit_status(s.exit_status);
    job.set_submit_time(At(t0));
    if (*s.eligible) job.set_eligible_time(At(s.eligible));
    if (*s.start) {
      job.set_start_time(At(s.start));
      job.add_nodes("gpu1");
      if (two) job.add_nodes("gpu2");
      job.set_num_cpus(two ? 2 : 1);
      job.set_alloc_mem_mb(two ? 4000 : 2000);
      job.set_time_limit_min(s.limit == 0 ? kUnlimited : s.limit);
    }
    if (*s.end) job.set_end_time(At(s.end));
    job.set_partition("a4");
    job.set_priority(s.priority);
    job.set_reason(s.reason);
    if (s.cancelled) job.set_cancelled_by_uid(1001);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace gantry::slurm::testing

#endif  // GANTRY_SLURM_VIEW_ANCHOR_RECORDS_TEST_UTIL_H_
