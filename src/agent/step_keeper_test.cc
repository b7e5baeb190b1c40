#include "agent/step_keeper.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>
#include <thread>

#include "agent/fake_srun_test_util.h"
#include "agent/keeper.h"
#include "agent/script_runner.h"
#include "agent/test_support.h"
#include "proc/proc.h"
#include "sys/child_process.h"

namespace gantry::agent {
namespace {

using testing::DeadPid;
using testing::FakeSrun;
using testing::PlanFor;
using testing::TempDir;
using testing::WriteLease;

TEST(StepPlanCodec, RoundTrips) {
  FakeSrun srun;
  StepPlan plan = PlanFor(srun, {"echo a", "echo b"}, {3, 5});
  plan.sample_period = std::chrono::milliseconds(30000);
  plan.kill_wait = std::chrono::milliseconds(2000);
  plan.tasks[1].spawn.cgroup = "/sys/fs/cgroup/gantry/job_1";
  plan.control = "/var/spool/gantry/jobs/1.0.ctl";
  Result<StepPlan> decoded = DecodeStepPlan(EncodeStepPlan(plan));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->io_host, plan.io_host);
  EXPECT_EQ(decoded->io_port, plan.io_port);
  EXPECT_EQ(decoded->io_key, plan.io_key);
  EXPECT_EQ(decoded->node, "n1");
  EXPECT_EQ(decoded->what, "StepId=1.0");
  EXPECT_EQ(decoded->sample_period, std::chrono::milliseconds(30000));
  EXPECT_EQ(decoded->kill_wait, std::chrono::milliseconds(2000));
  EXPECT_EQ(decoded->control, plan.control);
  ASSERT_EQ(decoded->tasks.size(), 2u);
  EXPECT_EQ(decoded->tasks[1].rank, 5u);
  EXPECT_EQ(decoded->tasks[1].spawn.argv, plan.tasks[1].spawn.argv);
  EXPECT_EQ(decoded->tasks[1].spawn.env, plan.tasks[1].spawn.env);
  EXPECT_EQ(decoded->tasks[1].spawn.cgroup, plan.tasks[1].spawn.cgroup);
}

TEST(StepPlanCodec, RefusesDamagedPlansNamingTheField) {
  struct Case {
    std::string bytes;
    std::string error;
  } cases[] = {
      {"io_host 9\n127.0.0.1\n", "step plan: no srun address (io_host, io_port)"},
      {"io_host 9\n127.0.0.1\nio_port 2\n80\n", "step plan: no control FIFO"},
      {"io_port 2\nxy\n", "step plan: io_port: not a number: \"xy\""},
      {"color 3\nred\n", "step plan: unknown field \"color\""},
      {"task 0\n\n", "step plan: task without its rank"},
      {"rank 1\n1\n", "step plan: rank 1 without a task"},
      {"rank 1\n1\ntask 3\nabc\n",
       "step plan: task 1: spawn spec: expected \"<name> <length>\\n\" at \"abc\""},
      {"io_host 99\nx\n", "step plan: io_host: bad length"},
  };
  for (const Case& c : cases) {
    Result<StepPlan> decoded = DecodeStepPlan(c.bytes);
    ASSERT_FALSE(decoded.ok()) << c.bytes;
    EXPECT_EQ(decoded.status().message(), c.error);
  }
}

// gantry-stepd runs the step on a thread of its own: the tasks' output reaches srun, the agent's
// commands reach the tasks through the FIFO (a signal, then the job's end), and the FIFO goes as
// the step ends.
TEST(StepKeeper, RunsTheStepAndObeysTheFifo) {
  TempDir tmp;
  FakeSrun srun;
  const std::string trap = "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done";
  StepPlan plan = PlanFor(srun, {trap}, {0});
  const std::string control = tmp / "1.0.ctl";
  Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  StepServer stepd(GANTRY_STEPD_BINARY);
  Result<Spawned> runner = stepd.Launch(plan, control);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  EXPECT_EQ(runner->pid, stepd.pid());
  struct stat st {};
  ASSERT_EQ(stat(control.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  srun.Accept();
  std::string out;
  ASSERT_TRUE(srun.ReadStdoutUntil("ready\n", &out));
  (*step)->Signal(SIGUSR1);
  ASSERT_TRUE(srun.ReadStdoutUntil("got-usr1\n", &out));
  (*step)->Terminate(std::chrono::milliseconds(200));
  int status = -1;
  while (status < 0) {
    auto [kind, io] = srun.Read();
    ASSERT_NE(kind, -1);
    if (kind == v1::STEP_IO_EXIT) status = io.wait_status();
  }
  EXPECT_TRUE(WIFSIGNALED(status)) << status;
  WaitForKeptStep(control, runner->pid, runner->start_ticks);
  EXPECT_FALSE(std::filesystem::exists(control));  // gantry-stepd removed it as the step ended
  EXPECT_EQ(stepd.pid(), runner->pid);             // and serves on
}

// Two steps at once, each with its own FIFO: a command for one reaches only its tasks.
TEST(StepKeeper, RunsStepsSideBySide) {
  TempDir tmp;
  FakeSrun first_srun;
  FakeSrun second_srun;
  const std::string trap =
      "trap 'echo got-usr1; exit 0' USR1; echo ready; while :; do sleep 0.05; done";
  StepServer stepd(GANTRY_STEPD_BINARY);
  std::vector<std::shared_ptr<KeptStep>> steps;
  for (FakeSrun* srun : {&first_srun, &second_srun}) {
    const std::string control = tmp / ("1." + std::to_string(steps.size()) + ".ctl");
    Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
    ASSERT_TRUE(step.ok()) << step.status().ToString();
    ASSERT_TRUE(stepd.Launch(PlanFor(*srun, {trap}, {0}), control).ok());
    steps.push_back(*step);
    srun->Accept();
    std::string out;
    ASSERT_TRUE(srun->ReadStdoutUntil("ready\n", &out));
  }
  steps[1]->Signal(SIGUSR1);
  std::string out;
  ASSERT_TRUE(second_srun.ReadStdoutUntil("got-usr1\n", &out));
  WaitForKeptStep(steps[1]->control(), stepd.pid(), 0);
  EXPECT_FALSE(std::filesystem::exists(steps[1]->control()));
  EXPECT_TRUE(std::filesystem::exists(steps[0]->control()));  // the first runs on
  steps[0]->Signal(SIGUSR1);
  ASSERT_TRUE(first_srun.ReadStdoutUntil("got-usr1\n", &out));
  WaitForKeptStep(steps[0]->control(), stepd.pid(), 0);
}

// An agent that dies closes gantry-stepd's stdin: its steps run on and obey their FIFOs (the next
// agent takes them over), and gantry-stepd exits 0 once they have ended.
TEST(StepKeeper, StepsOutliveTheAgentThatStartedThem) {
  TempDir tmp;
  FakeSrun srun;
  const std::string trap = "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done";
  const std::string control = tmp / "1.0.ctl";
  Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  StepServer stepd(GANTRY_STEPD_BINARY);
  ASSERT_TRUE(stepd.Launch(PlanFor(srun, {trap}, {0}), control).ok());
  srun.Accept();
  std::string out;
  ASSERT_TRUE(srun.ReadStdoutUntil("ready\n", &out));
  const std::optional<Spawned> left = stepd.Release();
  ASSERT_TRUE(left.has_value());

  (*step)->Signal(SIGUSR1);
  ASSERT_TRUE(srun.ReadStdoutUntil("got-usr1\n", &out));
  EXPECT_TRUE(proc::IsStillRunning(left->pid, left->start_ticks));
  (*step)->Terminate(std::chrono::milliseconds(200));
  WaitForKeptStep(control, left->pid, left->start_ticks);
  EXPECT_EQ(sys::ReapChild(left->pid), 0);
}

// A gantry-stepd that died is started again at the next launch.
TEST(StepKeeper, AGantryStepdThatDiedIsStartedAgain) {
  TempDir tmp;
  StepServer stepd(GANTRY_STEPD_BINARY);
  ASSERT_TRUE(stepd.Start().ok());
  const pid_t first = stepd.pid();
  ASSERT_GT(first, 0);
  kill(first, SIGKILL);
  FakeSrun srun;
  const std::string control = tmp / "1.0.ctl";
  Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
  ASSERT_TRUE(step.ok());
  Result<Spawned> runner = stepd.Launch(PlanFor(srun, {"echo second"}, {0}), control);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  EXPECT_NE(runner->pid, first);
  srun.Accept();
  std::string out;
  ASSERT_TRUE(srun.ReadStdoutUntil("second\n", &out));
  WaitForKeptStep(control, runner->pid, runner->start_ticks);
}

// A plan gantry-stepd cannot decode is refused with the field named; gantry-stepd serves on.
TEST(StepKeeper, ARefusedPlanNamesItsFault) {
  TempDir tmp;
  FakeSrun srun;
  StepPlan plan = PlanFor(srun, {"true"}, {0});
  plan.io_port = 0;
  const std::string control = tmp / "1.0.ctl";
  StepServer stepd(GANTRY_STEPD_BINARY);
  Result<Spawned> runner = stepd.Launch(plan, control);
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(runner.status().message(), "step plan: no srun address (io_host, io_port)");
  // No FIFO: refused too, naming it.
  plan.io_port = srun.port();
  runner = stepd.Launch(plan, control);
  ASSERT_FALSE(runner.ok());
  EXPECT_EQ(runner.status().message(), control + ": No such file or directory");
  const pid_t served = stepd.pid();
  Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
  ASSERT_TRUE(step.ok());
  runner = stepd.Launch(plan, control);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  EXPECT_EQ(runner->pid, served);
  srun.Accept();
  WaitForKeptStep(control, runner->pid, runner->start_ticks);
}

// The agent died and its lease ran out: gantry-stepd ends the steps itself (SIGTERM, SIGKILL
// after the plan's kill wait), as a keeper ends its batch job.
TEST(StepKeeper, EndsItsStepsOnceTheLeaseRanOutAndTheAgentIsGone) {
  TempDir tmp;
  FakeSrun srun;
  const pid_t agent = DeadPid();
  // A lease running on until the step runs, then one that ran out long ago.
  const std::string lease = WriteLease(tmp, -600000, agent, 0);
  StepPlan plan = PlanFor(
      srun, {"trap 'echo got-term; exit 143' TERM; echo ready; while :; do sleep 0.05; done"}, {0});
  plan.kill_wait = std::chrono::milliseconds(1000);
  const std::string control = tmp / "1.0.ctl";
  Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  StepServer stepd(GANTRY_STEPD_BINARY, lease);
  Result<Spawned> runner = stepd.Launch(plan, control);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  srun.Accept();
  std::string out;
  ASSERT_TRUE(srun.ReadStdoutUntil("ready\n", &out));
  WriteLease(tmp, 5000, agent, 0);
  ASSERT_TRUE(srun.ReadStdoutUntil("got-term\n", &out));
  int status = -1;
  while (status < 0) {
    auto [kind, io] = srun.Read();
    ASSERT_NE(kind, -1);
    if (kind == v1::STEP_IO_EXIT) status = io.wait_status();
  }
  EXPECT_EQ(status, 143 << 8);
  WaitForKeptStep(control, runner->pid, runner->start_ticks);
}

TEST(StepKeeper, RefusesArguments) {
  char name[] = "gantry-stepd";
  char flag[] = "--lease-file";
  char other[] = "--control";
  char path[] = "/x";
  char* lease_without_path[] = {name, flag, nullptr};
  EXPECT_EQ(RunStepKeeper(2, lease_without_path), 2);
  char* unknown[] = {name, other, path, nullptr};
  EXPECT_EQ(RunStepKeeper(3, unknown), 2);
}

// A gantry-stepd let go (its stdin closed) with no step running exits 0.
TEST(StepKeeper, GantryStepdLetGoExitsQuietly) {
  StepServer stepd(GANTRY_STEPD_BINARY);
  ASSERT_TRUE(stepd.Start().ok());
  const std::optional<Spawned> left = stepd.Release();
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(sys::ReapChild(left->pid), 0);
  EXPECT_EQ(stepd.pid(), 0);
}

}  // namespace
}  // namespace gantry::agent
