#include "agent/step_runner.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "agent/fake_srun_test_util.h"
#include "gantry/v1/job.pb.h"
#include "wire/frame.h"
#include "wire/step_auth.h"

namespace gantry::agent {
namespace {

using testing::FakeSrun;
using testing::kKey;
using testing::PlanFor;

// Each task's output reaches srun before its EXIT, with its wait status; stdin reaches every
// task; a task that cannot start gets an EXIT with the error and exit code 2.
TEST(StepRunnerTest, StreamsOutputThenEachTasksEnd) {
  FakeSrun srun;
  StepPlan plan =
      PlanFor(srun, {"read x; echo out$RANK $x; echo err$RANK >&2; exit $RANK", "true"}, {4, 7});
  plan.tasks[1].spawn.path = "/no/such/program";
  StepControl control;
  std::thread runner([&] { RunStep(plan, &control); });
  const v1::StepIo hello = srun.Accept();
  EXPECT_TRUE(wire::SameProof(
      hello.proof(), wire::StepProof(kKey, "agent", std::string(wire::kStepNonceBytes, 's'),
                                     hello.nonce(), "n1")));
  EXPECT_EQ(hello.node(), "n1");
  EXPECT_EQ(std::vector<uint32_t>(hello.task_ids().begin(), hello.task_ids().end()),
            (std::vector<uint32_t>{4, 7}));
  v1::StepIo in;
  in.set_data("hi\n");
  in.set_eof(true);
  srun.Send(v1::STEP_IO_STDIN, in);
  std::map<uint32_t, std::string> out, err;
  std::map<uint32_t, int> status;
  std::map<uint32_t, std::string> error;
  while (status.size() < 2) {
    auto [kind, io] = srun.Read();
    ASSERT_NE(kind, -1);
    if (kind == v1::STEP_IO_STDOUT) out[io.task_id()] += io.data();
    if (kind == v1::STEP_IO_STDERR) err[io.task_id()] += io.data();
    if (kind == v1::STEP_IO_EXIT) {
      EXPECT_FALSE(status.contains(io.task_id()));
      status[io.task_id()] = io.wait_status();
      error[io.task_id()] = io.error();
      if (io.task_id() == 4) {  // everything it wrote came first
        EXPECT_EQ(out[4], "out4 hi\n");
        EXPECT_EQ(err[4], "err4\n");
      }
    }
  }
  runner.join();
  EXPECT_EQ(status[4], 4 << 8);
  EXPECT_EQ(status[7], 2 << 8);
  EXPECT_NE(error[7].find("No such file or directory"), std::string::npos) << error[7];
}

// Whoever listens at srun's address without the step's key gets nothing: no task starts.
TEST(StepRunnerTest, StartsNoTaskForAListenerWithoutTheKey) {
  FakeSrun srun;
  const std::string marker =
      std::filesystem::temp_directory_path() / ("gantry-step-" + std::to_string(getpid()));
  StepPlan plan = PlanFor(srun, {"touch " + marker}, {0});
  std::vector<std::string> logged;
  plan.log = [&](const std::string& line) { logged.push_back(line); };
  StepControl control;
  std::thread runner([&] { RunStep(plan, &control); });
  srun.Accept("another key");
  runner.join();
  EXPECT_FALSE(std::filesystem::exists(marker));
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("does not hold the step's key: its tasks do not start"),
            std::string::npos)
      << logged[0];
}

// srun's SIGNAL reaches every task; when srun goes away the tasks are killed.
TEST(StepRunnerTest, ForwardsSignalsAndKillsTheTasksWhenSrunIsGone) {
  FakeSrun srun;
  const std::string trap = "trap 'echo got-usr1; exit 9' USR1; while :; do sleep 0.05; done";
  StepPlan plan = PlanFor(srun, {trap}, {0});
  StepControl control;
  std::thread runner([&] { RunStep(plan, &control); });
  srun.Accept();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the trap is set
  v1::StepIo signal;
  signal.set_signal(SIGUSR1);
  srun.Send(v1::STEP_IO_SIGNAL, signal);
  std::string out;
  int status = -1;
  while (status < 0) {
    auto [kind, io] = srun.Read();
    ASSERT_NE(kind, -1);
    if (kind == v1::STEP_IO_STDOUT) out += io.data();
    if (kind == v1::STEP_IO_EXIT) status = io.wait_status();
  }
  runner.join();
  EXPECT_EQ(out, "got-usr1\n");
  EXPECT_EQ(status, 9 << 8);

  FakeSrun gone;
  StepPlan forever = PlanFor(gone, {"sleep 60"}, {0});
  StepControl control2;
  const auto start = std::chrono::steady_clock::now();
  std::thread runner2([&] { RunStep(forever, &control2); });
  gone.Accept();
  gone.Hangup();
  runner2.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// The job's end: SIGTERM, then SIGKILL once the kill wait is over.
TEST(StepRunnerTest, TerminateEndsTheTasksAfterTheKillWait) {
  FakeSrun srun;
  StepPlan plan = PlanFor(srun, {"trap '' TERM; while :; do sleep 0.05; done"}, {0});
  StepControl control;
  std::thread runner([&] { RunStep(plan, &control); });
  srun.Accept();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  control.Terminate(std::chrono::milliseconds(300));
  int status = -1;
  while (status < 0) {
    auto [kind, io] = srun.Read();
    ASSERT_NE(kind, -1);
    if (kind == v1::STEP_IO_EXIT) status = io.wait_status();
  }
  runner.join();
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace
}  // namespace gantry::agent
