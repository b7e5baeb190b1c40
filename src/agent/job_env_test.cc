#include "agent/job_env.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/task_layout.h"

namespace gantry::agent {
namespace {

using gantry::v1::JobContext;
using gantry::v1::JobPayload;

// The SLURM_*, CUDA and GPU variables of real Slurm 22.05 batch jobs
// (../shared/anchors/slurm/outputs/env-batch-2node-gpu-with-srun-steps.txt, batch part, and
// env-batch-1node-gpu.txt), SLURM_TASK_PID left out (the launcher sets it in the child).
constexpr char kAnchor2Node[] = R"(CUDA_VISIBLE_DEVICES=0,1
GPU_DEVICE_ORDINAL=0,1
SLURMD_NODENAME=gpu1
SLURM_CLUSTER_NAME=anchor
SLURM_CONF=/etc/slurm/slurm.conf
SLURM_CPUS_ON_NODE=4
SLURM_CPUS_PER_TASK=2
SLURM_GPUS_ON_NODE=2
SLURM_GTIDS=0
SLURM_JOBID=21425
SLURM_JOB_ACCOUNT=root
SLURM_JOB_CPUS_PER_NODE=4(x2)
SLURM_JOB_GID=0
SLURM_JOB_GPUS=0,1
SLURM_JOB_ID=21425
SLURM_JOB_NAME=env-2node
SLURM_JOB_NODELIST=gpu[1-2]
SLURM_JOB_NUM_NODES=2
SLURM_JOB_PARTITION=a4
SLURM_JOB_QOS=normal
SLURM_JOB_UID=0
SLURM_JOB_USER=root
SLURM_LOCALID=0
SLURM_MEM_PER_CPU=2000
SLURM_NNODES=2
SLURM_NODEID=0
SLURM_NODELIST=gpu[1-2]
SLURM_NODE_ALIASES=(null)
SLURM_NPROCS=4
SLURM_NTASKS=4
SLURM_NTASKS_PER_NODE=2
SLURM_PRIO_PROCESS=0
SLURM_PROCID=0
SLURM_SUBMIT_DIR=/tmp/anchor-verify
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=2(x2)
SLURM_TOPOLOGY_ADDR=gpu1
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_WORKING_CLUSTER=anchor:127.0.0.1:7810:9728:109
)";

// The 1-node job shared its node with others: Slurm gave it GPU 2.
constexpr char kAnchor1Node[] = R"(CUDA_VISIBLE_DEVICES=2
GPU_DEVICE_ORDINAL=2
SLURMD_NODENAME=gpu1
SLURM_CLUSTER_NAME=anchor
SLURM_CONF=/etc/slurm/slurm.conf
SLURM_CPUS_ON_NODE=1
SLURM_GPUS_ON_NODE=1
SLURM_GTIDS=0
SLURM_JOBID=21424
SLURM_JOB_ACCOUNT=research
SLURM_JOB_CPUS_PER_NODE=1
SLURM_JOB_GID=1001
SLURM_JOB_GPUS=2
SLURM_JOB_ID=21424
SLURM_JOB_NAME=env-1node
SLURM_JOB_NODELIST=gpu1
SLURM_JOB_NUM_NODES=1
SLURM_JOB_PARTITION=a4
SLURM_JOB_QOS=normal
SLURM_JOB_UID=1001
SLURM_JOB_USER=alice
SLURM_LOCALID=0
SLURM_MEM_PER_CPU=2000
SLURM_NNODES=1
SLURM_NODEID=0
SLURM_NODELIST=gpu1
SLURM_NODE_ALIASES=(null)
SLURM_NPROCS=1
SLURM_NTASKS=1
SLURM_PRIO_PROCESS=0
SLURM_PROCID=0
SLURM_SUBMIT_DIR=/tmp/anchor-verify
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=1
SLURM_TOPOLOGY_ADDR=gpu1
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_WORKING_CLUSTER=anchor:127.0.0.1:7810:9728:109
)";

// Task 1 of `srun` in that 2-node job, on gpu1 (the same file's step part), without
// SLURM_TASK_PID and Slurm's deprecated SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0.
constexpr char kAnchorStepTask1[] = R"(CUDA_VISIBLE_DEVICES=0,1
GPU_DEVICE_ORDINAL=0,1
SLURMD_NODENAME=gpu1
SLURM_CLUSTER_NAME=anchor
SLURM_CONF=/etc/slurm/slurm.conf
SLURM_CPUS_ON_NODE=4
SLURM_CPUS_PER_TASK=2
SLURM_DISTRIBUTION=block
SLURM_GPUS_ON_NODE=2
SLURM_GTIDS=0,1
SLURM_JOBID=21425
SLURM_JOB_ACCOUNT=root
SLURM_JOB_CPUS_PER_NODE=4(x2)
SLURM_JOB_GID=0
SLURM_JOB_GPUS=0,1
SLURM_JOB_ID=21425
SLURM_JOB_NAME=env-2node
SLURM_JOB_NODELIST=gpu[1-2]
SLURM_JOB_NUM_NODES=2
SLURM_JOB_PARTITION=a4
SLURM_JOB_QOS=normal
SLURM_JOB_UID=0
SLURM_JOB_USER=root
SLURM_LAUNCH_NODE_IPADDR=127.0.0.1
SLURM_LOCALID=1
SLURM_MEM_PER_CPU=2000
SLURM_NNODES=2
SLURM_NODEID=0
SLURM_NODELIST=gpu[1-2]
SLURM_NODE_ALIASES=(null)
SLURM_NPROCS=4
SLURM_NTASKS=4
SLURM_NTASKS_PER_NODE=2
SLURM_PRIO_PROCESS=0
SLURM_PROCID=1
SLURM_SRUN_COMM_HOST=127.0.0.1
SLURM_SRUN_COMM_PORT=41065
SLURM_STEPID=0
SLURM_STEP_GPUS=0,1
SLURM_STEP_ID=0
SLURM_STEP_LAUNCHER_PORT=41065
SLURM_STEP_NODELIST=gpu[1-2]
SLURM_STEP_NUM_NODES=2
SLURM_STEP_NUM_TASKS=4
SLURM_STEP_TASKS_PER_NODE=2(x2)
SLURM_SUBMIT_DIR=/tmp/anchor-verify
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=2(x2)
SLURM_TOPOLOGY_ADDR=gpu1
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_UMASK=0022
SLURM_WORKING_CLUSTER=anchor:127.0.0.1:7810:9728:109
)";

std::map<std::string, std::string> ParseLines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// The variables of `env` Slurm's anchor files show: SLURM*, CUDA_*, GPU_*.
std::map<std::string, std::string> SlurmPart(const std::vector<std::string>& env) {
  std::map<std::string, std::string> out;
  for (const std::string& entry : env) {
    size_t eq = entry.find('=');
    std::string name = entry.substr(0, eq);
    if (name.rfind("SLURM", 0) == 0 || name.rfind("CUDA_", 0) == 0 || name.rfind("GPU_", 0) == 0) {
      EXPECT_EQ(out.count(name), 0u) << "duplicate " << name;
      out[name] = entry.substr(eq + 1);
    }
  }
  return out;
}

NodeEnv AnchorNode() {
  NodeEnv node;
  node.node_name = "gpu1";
  node.cluster_name = "anchor";
  node.conf_path = "/etc/slurm/slurm.conf";
  node.controller_address = "127.0.0.1:7810";
  return node;
}

// sbatch -N 2 --ntasks-per-node=2 --cpus-per-task=2 --gres=gpu:2, as root, 4 CPUs per node.
JobContext TwoNodeJob() {
  JobContext context;
  gantry::v1::Job* job = context.mutable_job();
  job->set_job_id(21425);
  job->add_nodes("gpu1");
  job->add_nodes("gpu2");
  job->set_num_cpus(8);
  job->set_partition("a4");
  job->set_user_id(0);
  job->set_group_id(0);
  job->set_user_name("root");
  gantry::v1::JobRequest* req = job->mutable_request();
  req->set_name("env-2node");
  req->set_min_nodes(2);
  req->set_ntasks_per_node(2);
  req->set_cpus_per_task(2);
  req->set_mem_per_cpu_mb(2000);
  req->set_account("root");
  req->set_qos("normal");
  req->set_gres("gpu:2");
  req->set_work_dir("/tmp/anchor-verify");
  req->set_submit_dir("/tmp/anchor-verify");
  req->set_submit_host("vm");
  context.set_epoch(1);
  context.set_node_index(0);
  return context;
}

// sbatch -n 1 --gres=gpu:1 as alice.
JobContext OneNodeJob() {
  JobContext context;
  gantry::v1::Job* job = context.mutable_job();
  job->set_job_id(21424);
  job->add_nodes("gpu1");
  job->set_num_cpus(1);
  job->set_partition("a4");
  job->set_user_id(1001);
  job->set_group_id(1001);
  job->set_user_name("alice");
  gantry::v1::JobRequest* req = job->mutable_request();
  req->set_name("env-1node");
  req->set_num_tasks(1);
  req->set_mem_per_cpu_mb(2000);
  req->set_account("research");
  req->set_qos("normal");
  req->set_gres("gpu:1");
  req->set_work_dir("/tmp/anchor-verify");
  req->set_submit_dir("/tmp/anchor-verify");
  req->set_submit_host("vm");
  context.set_epoch(1);
  return context;
}

TEST(FormatCountsPerNode, CompressesRuns) {
  struct Case {
    std::vector<uint32_t> counts;
    std::string want;
  };
  const Case cases[] = {
      {{}, ""},
      {{1}, "1"},
      {{4, 4}, "4(x2)"},
      {{3, 2}, "3,2"},
      {{2, 2, 1}, "2(x2),1"},
      {{1, 2, 2, 2, 1}, "1,2(x3),1"},
  };
  for (const Case& c : cases) EXPECT_EQ(model::FormatCountsPerNode(c.counts), c.want);
}

TEST(BlockTaskLayout, FollowsSlurmsBlockDistribution) {
  struct Case {
    uint32_t tasks;
    std::vector<uint32_t> cpus;
    uint32_t cpus_per_task;
    std::vector<uint32_t> want;
  };
  const Case cases[] = {
      {4, {4, 4}, 2, {2, 2}},                           // -N2 --ntasks-per-node=2 -c2
      {1, {1}, 1, {1}},                                 // -n1
      {5, {4, 4}, 1, {3, 2}},                           // round by round, not node by node
      {8, {4, 4}, 1, {4, 4}}, {10, {4, 4}, 1, {5, 5}},  // over-subscribed evenly
      {3, {1, 4}, 1, {1, 2}},                           // a smaller node fills first
      {2, {8}, 0, {2}},                                 // cpus_per_task 0 counts as 1
  };
  for (const Case& c : cases) {
    EXPECT_EQ(model::BlockTaskLayout(c.tasks, c.cpus, c.cpus_per_task), c.want)
        << c.tasks << " tasks";
  }
}

TEST(BuildBatchEnvironment, MatchesSlurmTwoNodeBatchJob) {
  std::vector<std::string> env =
      BuildBatchEnvironment(TwoNodeJob(), JobPayload(), AnchorNode(), UserEnv{"root", "/root", ""});
  EXPECT_EQ(SlurmPart(env), ParseLines(kAnchor2Node));
  EXPECT_EQ(EnvValue(env, "ENVIRONMENT"), "BATCH");
  EXPECT_EQ(EnvValue(env, "HOSTNAME"), "gpu1");
  EXPECT_EQ(EnvValue(env, "GANTRY_CONF"), "/etc/slurm/slurm.conf");
}

// Slurm gave that job GPU 2 (two others were taken): the job's own indices, not the first ones.
TEST(BuildBatchEnvironment, MatchesSlurmOneNodeBatchJob) {
  JobContext context = OneNodeJob();
  context.mutable_job()->add_node_gpus()->add_idx(2);
  std::vector<std::string> env = BuildBatchEnvironment(context, JobPayload(), AnchorNode(),
                                                       UserEnv{"alice", "/home/alice", "/bin/sh"});
  EXPECT_EQ(SlurmPart(env), ParseLines(kAnchor1Node));
  EXPECT_EQ(EnvValue(env, "MASTER_PORT"), std::to_string(MasterPortOf(21424)));
  EXPECT_EQ(EnvValue(env, "MASTER_ADDR"), "gpu1");  // no registered address in this context
}

// A step task's environment: srun's (the batch script's) plus the step's and the task's.
TEST(BuildStepEnvironment, MatchesSlurmStepTask) {
  gantry::v1::LaunchTasksRequest request;
  *request.mutable_context() = TwoNodeJob();
  request.mutable_context()->set_first_node_host("10.0.0.1");
  gantry::v1::JobStep& step = *request.mutable_step();
  step.set_step_id(0);
  step.add_nodes("gpu1");
  step.add_nodes("gpu2");
  step.add_tasks_per_node(2);
  step.add_tasks_per_node(2);
  step.set_distribution("block");
  step.set_cpus_per_task(2);
  gantry::v1::StepLaunch& launch = *request.mutable_launch();
  for (const std::string& e : BuildBatchEnvironment(TwoNodeJob(), JobPayload(), AnchorNode(),
                                                    UserEnv{"root", "/root", ""})) {
    launch.add_environment(e);
  }
  launch.add_environment("SLURM_UMASK=0022");
  launch.set_io_host("127.0.0.1");
  launch.set_io_port(41065);
  request.set_step_node_index(0);
  request.add_task_ids(0);
  request.add_task_ids(1);
  const std::vector<std::string> env = BuildStepEnvironment(request, 1, 1, AnchorNode());
  EXPECT_EQ(SlurmPart(env), ParseLines(kAnchorStepTask1));
  // srun's environment came from the batch script, which had them already.
  EXPECT_EQ(EnvValue(env, "MASTER_ADDR"), "gpu1");
  EXPECT_EQ(EnvValue(env, "MASTER_PORT"), std::to_string(MasterPortOf(21425)));

  // --gpus-per-task=1: each task its own; MASTER_ADDR from the first node's address.
  launch.clear_environment();
  launch.set_gpus_per_task(1);
  const std::vector<std::string> own = BuildStepEnvironment(request, 1, 1, AnchorNode());
  EXPECT_EQ(EnvValue(own, "CUDA_VISIBLE_DEVICES"), "1");
  EXPECT_EQ(EnvValue(own, "SLURM_STEP_GPUS"), "0,1");
  EXPECT_EQ(EnvValue(own, "MASTER_ADDR"), "10.0.0.1");
}

TEST(BuildBatchEnvironment, WithoutTasksCountsOneTaskPerCpu) {
  JobContext context = TwoNodeJob();
  gantry::v1::JobRequest* req = context.mutable_job()->mutable_request();
  req->clear_ntasks_per_node();
  req->clear_cpus_per_task();
  req->clear_mem_per_cpu_mb();
  req->set_mem_per_node_mb(4096);
  req->clear_account();
  req->clear_gres();
  std::vector<std::string> env =
      BuildBatchEnvironment(context, JobPayload(), AnchorNode(), UserEnv{"root", "/root", ""});
  EXPECT_EQ(EnvValue(env, "SLURM_TASKS_PER_NODE"), "4(x2)");
  EXPECT_EQ(EnvValue(env, "SLURM_NTASKS"), std::nullopt);
  EXPECT_EQ(EnvValue(env, "SLURM_NPROCS"), std::nullopt);
  EXPECT_EQ(EnvValue(env, "SLURM_CPUS_PER_TASK"), std::nullopt);
  EXPECT_EQ(EnvValue(env, "SLURM_MEM_PER_CPU"), std::nullopt);
  EXPECT_EQ(EnvValue(env, "SLURM_MEM_PER_NODE"), "4096");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_ACCOUNT"), std::nullopt);
  EXPECT_EQ(EnvValue(env, "CUDA_VISIBLE_DEVICES"), std::nullopt);
  EXPECT_EQ(EnvValue(env, "SLURM_RESTART_COUNT"), std::nullopt);
}

TEST(BuildBatchEnvironment, ARequeuedJobGetsItsRestartCount) {
  JobContext context = TwoNodeJob();
  context.mutable_job()->set_restarts(2);
  std::vector<std::string> env =
      BuildBatchEnvironment(context, JobPayload(), AnchorNode(), UserEnv{"root", "/root", ""});
  EXPECT_EQ(EnvValue(env, "SLURM_RESTART_COUNT"), "2");
}

TEST(BuildBatchEnvironment, LayersPayloadPasswdJobAndExtraEnv) {
  JobContext context = OneNodeJob();
  context.add_extra_env("SLURM_CLUSTER_NAME=fromcontroller");
  context.add_extra_env("EXTRA=1");
  JobPayload payload;
  payload.add_environment("PATH=/usr/bin");
  payload.add_environment("SLURM_JOB_ID=999");  // stale value from the submit shell
  payload.add_environment("HOME=/custom");
  payload.add_environment("MULTI=a=b");
  std::vector<std::string> env = BuildBatchEnvironment(context, payload, AnchorNode(),
                                                       UserEnv{"alice", "/home/alice", "/bin/sh"});
  EXPECT_EQ(env[0], "PATH=/usr/bin");  // sbatch's order first
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_ID"), "21424");
  EXPECT_EQ(EnvValue(env, "HOME"), "/custom");  // passwd only fills what is missing
  EXPECT_EQ(EnvValue(env, "USER"), "alice");
  EXPECT_EQ(EnvValue(env, "LOGNAME"), "alice");
  EXPECT_EQ(EnvValue(env, "SHELL"), "/bin/sh");
  EXPECT_EQ(EnvValue(env, "MULTI"), "a=b");
  EXPECT_EQ(EnvValue(env, "SLURM_CLUSTER_NAME"), "fromcontroller");
  EXPECT_EQ(EnvValue(env, "EXTRA"), "1");
  EXPECT_EQ(EnvValue(env, "SLURM_TASK_PID"), std::nullopt);
}

TEST(BuildBatchEnvironment, ExportNoneGetsPasswdBasics) {
  JobPayload payload;
  payload.set_export_spec("NONE");
  std::vector<std::string> env = BuildBatchEnvironment(
      OneNodeJob(), payload, AnchorNode(), UserEnv{"alice", "/home/alice", "/bin/bash"});
  EXPECT_EQ(EnvValue(env, "HOME"), "/home/alice");
  EXPECT_EQ(EnvValue(env, "USER"), "alice");
  EXPECT_EQ(EnvValue(env, "LOGNAME"), "alice");
  EXPECT_EQ(EnvValue(env, "SHELL"), "/bin/bash");
}

TEST(BuildScriptEnvironment, PrologSeesTheJob) {
  std::vector<std::string> env =
      BuildScriptEnvironment(ScriptKind::kProlog, 21425, TwoNodeJob(), AnchorNode());
  EXPECT_EQ(EnvValue(env, "SLURM_SCRIPT_CONTEXT"), "prolog_slurmd");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_ID"), "21425");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_USER"), "root");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_UID"), "0");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_NODELIST"), "gpu[1-2]");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_PARTITION"), "a4");
  EXPECT_EQ(EnvValue(env, "SLURMD_NODENAME"), "gpu1");
  EXPECT_EQ(EnvValue(env, "SLURM_CLUSTER_NAME"), "anchor");
  EXPECT_TRUE(EnvValue(env, "PATH").has_value());
}

TEST(BuildScriptEnvironment, EpilogOfAnUnknownJobHasItsId) {
  std::vector<std::string> env =
      BuildScriptEnvironment(ScriptKind::kEpilog, 77, JobContext(), AnchorNode());
  EXPECT_EQ(EnvValue(env, "SLURM_SCRIPT_CONTEXT"), "epilog_slurmd");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_ID"), "77");
  EXPECT_EQ(EnvValue(env, "SLURM_JOB_USER"), std::nullopt);
}

}  // namespace
}  // namespace gantry::agent
