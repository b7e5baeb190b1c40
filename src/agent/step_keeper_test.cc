#include "agent/step_keeper.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>
#include <thread>

#include "agent/fake_srun_test_util.h"
#include "agent/script_runner.h"
#include "agent/test_support.h"

namespace gantry::agent {
namespace {

using testing::FakeSrun;
using testing::PlanFor;
using testing::TempDir;

TEST(StepPlanCodec, RoundTrips) {
  FakeSrun srun;
  StepPlan plan = PlanFor(srun, {"echo a", "echo b"}, {3, 5});
  plan.sample_period = std::chrono::milliseconds(30000);
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

// gantry-stepd runs the step in a process of its own: the tasks' output reaches srun, the
// agent's commands reach the tasks through the FIFO (a signal, then the job's end), and it
// exits once they have ended, removing the FIFO.
TEST(StepKeeper, RunsTheStepAndObeysTheFifo) {
  TempDir tmp;
  FakeSrun srun;
  const std::string trap = "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done";
  StepPlan plan = PlanFor(srun, {trap}, {0});
  const std::string control = tmp / "1.0.ctl";
  Result<std::shared_ptr<KeptStep>> step = KeptStep::Open(control, /*create=*/true);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  Result<Spawned> stepd = SpawnStepKeeper(GANTRY_STEPD_BINARY, plan, control);
  ASSERT_TRUE(stepd.ok()) << stepd.status().ToString();
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
  EXPECT_EQ(ReapChild(stepd->pid), 0);
  EXPECT_FALSE(std::filesystem::exists(control));  // gantry-stepd removed it as it left
}

TEST(StepKeeper, RefusesArguments) {
  char name[] = "gantry-stepd";
  char flag[] = "--control";
  char* argv[] = {name, flag, nullptr};
  EXPECT_EQ(RunStepKeeper(2, argv), 2);
}

// A gantry-stepd started ahead of its step and let go without one exits 0.
TEST(StepKeeper, AnIdleOneLetGoExitsQuietly) {
  Result<IdleStepKeeper> idle = StartIdleStepKeeper(GANTRY_STEPD_BINARY);
  ASSERT_TRUE(idle.ok()) << idle.status().ToString();
  EXPECT_EQ(ReapChild(DismissStepKeeper(*idle).pid), 0);
}

}  // namespace
}  // namespace gantry::agent
