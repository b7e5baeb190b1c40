#include "agent/keeper.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "agent/script_runner.h"
#include "agent/test_support.h"
#include "proc/proc.h"
#include "sys/child_process.h"
#include "sys/files.h"

namespace gantry::agent {
namespace {

using testing::DeadPid;
using testing::Eventually;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteExecutable;
using testing::WriteLease;

TEST(BatchExit, RoundTrips) {
  const BatchExit exit{3 << 8, 1500, 250, 2048};
  const std::string text = FormatBatchExit(exit);
  EXPECT_EQ(text, "wait_status=768\nuser_cpu_usec=1500\nsystem_cpu_usec=250\nmax_rss_kib=2048\n");
  Result<BatchExit> parsed = ParseBatchExit(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, exit);
}

TEST(BatchExit, RefusesDamagedFiles) {
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"", "no wait_status"},
      {"user_cpu_usec=1\n", "no wait_status"},
      {"wait_status=\n", "line 1: wait_status: not a number: \"\""},
      {"wait_status=0\nmax_rss_kib=1k\n", "line 2: max_rss_kib: not a number: \"1k\""},
      {"wait_status=0\nsoon=1\n", "line 2: unknown key \"soon\""},
      {"wait_status", "line 1: expected key=value"},
  };
  for (const Case& c : cases) {
    Result<BatchExit> parsed = ParseBatchExit(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(parsed.status().message(), c.error);
  }
}

SpawnSpec FullSpec() {
  SpawnSpec spec;
  spec.path = "/spool/job_7/slurm_script";
  spec.argv = {"/spool/job_7/slurm_script", "two words", "", "line\nbreak"};
  spec.env = {"A=1", "MULTI=x\ny", "EMPTY="};
  spec.task_pid_env = true;
  spec.identity = Identity{1000, 100, {100, 27, 44}};
  spec.umask = 022;
  spec.work_dir = "/home/alice";
  spec.stdin_path = "/dev/null";
  spec.stdout_path = "/home/alice/slurm-7.out";
  spec.stderr_path = "/home/alice/slurm-7.err";
  spec.append = true;
  spec.cgroup = "/sys/fs/cgroup/gantry.slice/n1/job_7";
  spec.extra_cgroups = {"/sys/fs/cgroup/memory/x/job_7", "/sys/fs/cgroup/pids/x/job_7"};
  return spec;
}

TEST(SpawnSpecCodec, RoundTripsEveryField) {
  const SpawnSpec spec = FullSpec();
  Result<SpawnSpec> decoded = DecodeSpawnSpec(EncodeSpawnSpec(spec));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->path, spec.path);
  EXPECT_EQ(decoded->argv, spec.argv);
  EXPECT_EQ(decoded->env, spec.env);
  EXPECT_TRUE(decoded->task_pid_env);
  ASSERT_TRUE(decoded->identity.has_value());
  EXPECT_EQ(decoded->identity->uid, 1000u);
  EXPECT_EQ(decoded->identity->gid, 100u);
  EXPECT_EQ(decoded->identity->groups, spec.identity->groups);
  EXPECT_EQ(decoded->umask, std::optional<mode_t>(022));
  EXPECT_EQ(decoded->work_dir, spec.work_dir);
  EXPECT_EQ(decoded->stdin_path, spec.stdin_path);
  EXPECT_EQ(decoded->stdout_path, spec.stdout_path);
  EXPECT_EQ(decoded->stderr_path, spec.stderr_path);
  EXPECT_TRUE(decoded->append);
  EXPECT_FALSE(decoded->stderr_to_agent);
  EXPECT_FALSE(decoded->keep_oom_score);
  EXPECT_EQ(decoded->cgroup, spec.cgroup);
  EXPECT_EQ(decoded->extra_cgroups, spec.extra_cgroups);
}

TEST(SpawnSpecCodec, KeepsTheAgentsIdentityWhenNoneIsGiven) {
  SpawnSpec spec;
  spec.path = "/bin/true";
  Result<SpawnSpec> decoded = DecodeSpawnSpec(EncodeSpawnSpec(spec));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_FALSE(decoded->identity.has_value());
  EXPECT_FALSE(decoded->umask.has_value());
  EXPECT_EQ(decoded->work_dir, "/");
  EXPECT_EQ(decoded->stdout_path, "/dev/null");
}

TEST(SpawnSpecCodec, RefusesDamagedInput) {
  const std::string good = EncodeSpawnSpec(FullSpec());
  struct Case {
    std::string bytes;
    std::string error;
  };
  const Case cases[] = {
      {"", "spawn spec: no path"},
      {"path 4\n/bin\n", "spawn spec: no work_dir"},
      {"path 40\n/bin\n", "spawn spec: path: bad length"},
      {"path 3\n/bin\n", "spawn spec: path: bad length"},
      {"path x\n/bin\n", "spawn spec: path: bad length"},
      {"path 4\n/bin", "spawn spec: path: bad length"},
      {"path\n", "spawn spec: expected \"<name> <length>\\n\" at \"path\n\""},
      {"shell 7\n/bin/sh\n", "spawn spec: unknown field \"shell\""},
      {"uid 1\n5\n", "spawn spec: uid and gid go together"},
      {"uid 2\n-1\n", "spawn spec: uid: not a number: \"-1\""},
      {"umask 4\n1000\n", "spawn spec: umask: above 0777: 1000"},
      {"append 3\nyes\n", "spawn spec: append: expected 1"},
      {good.substr(0, good.size() - 1), "spawn spec: extra_cgroup: bad length"},
      {good + "x", "spawn spec: expected \"<name> <length>\\n\" at \"x\""},
  };
  for (const Case& c : cases) {
    Result<SpawnSpec> decoded = DecodeSpawnSpec(c.bytes);
    ASSERT_FALSE(decoded.ok()) << c.bytes;
    EXPECT_EQ(decoded.status().message(), c.error) << c.bytes;
  }
}

TEST(LeaseRunOut, OnlyPastTheGraceAndWithTheAgentGone) {
  const LeaseRecord lease{10000, 42, 7};
  struct Case {
    int64_t now_ms;
    bool agent_running;
    bool run_out;
  } cases[] = {
      {9000, false, false},                         // before the deadline
      {10000 + kKeeperLeaseGraceMs, false, false},  // the agent's own fence comes first
      {10001 + kKeeperLeaseGraceMs, false, true},
      {10001 + kKeeperLeaseGraceMs, true, false},  // a living agent ends its jobs itself
  };
  for (const Case& c : cases) {
    EXPECT_EQ(LeaseRunOut(lease, c.now_ms, c.agent_running), c.run_out) << c.now_ms;
  }
  EXPECT_FALSE(LeaseRunOut(LeaseRecord{0, 42, 7}, 1000000, false));  // no lease held
}

// The agent died and its lease ran out: the keeper ends the job itself (SIGTERM to the whole
// job, which its script traps), so that it does not run on beside its requeued copy.
TEST(Keeper, EndsItsJobOnceTheLeaseRanOutAndTheAgentIsGone) {
  TempDir tmp;
  const std::string script = tmp / "job.sh";
  WriteExecutable(script, "#!/bin/sh\ntrap 'echo TERM > " + tmp / "term" +
                              "; exit 143' TERM\ntouch " + tmp / "ready" +
                              "\nwhile :; do sleep 0.05; done\n");
  SpawnSpec spec;
  spec.path = script;
  spec.argv = {script};
  const std::string exit_path = tmp / "1.exit";
  const pid_t agent = DeadPid();
  // A lease running on until the script has set its trap, then one that ran out long ago.
  const KeeperLease lease{WriteLease(tmp, -600000, agent, 0), 1};
  Result<KeptBatch> kept = SpawnKept(GANTRY_KEEPER_BINARY, spec, exit_path, lease);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(tmp / "ready"); }));
  WriteLease(tmp, 5000, agent, 0);
  EXPECT_EQ(sys::ReapChild(kept->keeper.pid), 0);
  EXPECT_EQ(ReadFile(tmp / "term"), "TERM\n");
  Result<std::string> text = sys::ReadText(exit_path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<BatchExit> ended = ParseBatchExit(*text);
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  EXPECT_EQ(ended->wait_status, 143 << 8);
}

// While the agent that holds the lease runs, its jobs are its own business, even past the
// deadline (it fences them itself): the script here runs to its end.
TEST(Keeper, LeavesTheJobToALivingAgent) {
  TempDir tmp;
  SpawnSpec spec;
  spec.path = "/bin/sh";
  spec.argv = {"sh", "-c", "sleep 1.5; exit 3"};
  std::optional<proc::ProcStat> self = proc::ReadProcStat(getpid());
  ASSERT_TRUE(self.has_value());
  const KeeperLease lease{WriteLease(tmp, 5000, getpid(), self->start_ticks), 1};
  Result<KeptBatch> kept = SpawnKept(GANTRY_KEEPER_BINARY, spec, tmp / "1.exit", lease);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(sys::ReapChild(kept->keeper.pid), 0);
  Result<std::string> text = sys::ReadText(tmp / "1.exit");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<BatchExit> ended = ParseBatchExit(*text);
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  EXPECT_EQ(ended->wait_status, 3 << 8);
}

TEST(Keeper, RefusesABadCommandLine) {
  char name[] = "gantry-keeper";
  char flag[] = "--exit";
  char* argv[] = {name, flag, nullptr};
  EXPECT_EQ(RunKeeper(2, argv), 2);
  // A lease file without its kill wait, or a kill wait that is not a number.
  char exit_flag[] = "--exit-file";
  char exit_path[] = "/tmp/x.exit";
  char lease_flag[] = "--lease-file";
  char lease_path[] = "/tmp/lease";
  char wait_flag[] = "--kill-wait";
  char bad_wait[] = "soon";
  char* no_wait[] = {name, exit_flag, exit_path, lease_flag, lease_path, nullptr};
  EXPECT_EQ(RunKeeper(5, no_wait), 2);
  char* bad[] = {name, exit_flag, exit_path, lease_flag, lease_path, wait_flag, bad_wait, nullptr};
  EXPECT_EQ(RunKeeper(7, bad), 2);
}

// The keeper binary starts the script, answers with its pid, and records how it ended once it
// does; the script runs on whatever happens to its agent.
TEST(Keeper, StartsTheScriptAndRecordsHowItEnded) {
  TempDir tmp;
  const std::string script = tmp / "job.sh";
  // It says who it is (whole, by rename) and waits to be told to end: the test looks meanwhile.
  WriteExecutable(script, "#!/bin/sh\necho \"$$ $1\" > " + tmp / "out.tmp" + "\nmv " +
                              tmp / "out.tmp" + " " + tmp / "out" + "\nwhile [ ! -e " + tmp / "go" +
                              " ]; do sleep 0.05; done\nexit 7\n");
  SpawnSpec spec;
  spec.path = script;
  spec.argv = {script, "arg"};
  const std::string exit_path = tmp / "7.exit";
  Result<KeptBatch> kept = SpawnKept(GANTRY_KEEPER_BINARY, spec, exit_path);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_NE(kept->script.pid, kept->keeper.pid);
  EXPECT_GT(kept->script.start_ticks, 0u);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(tmp / "out"); }));
  EXPECT_EQ(ReadFile(tmp / "out"), std::to_string(kept->script.pid) + " arg\n");
  // The script is the keeper's child, in a session of its own.
  EXPECT_EQ(getsid(kept->script.pid), kept->script.pid);
  std::ofstream(tmp / "go").close();
  EXPECT_EQ(sys::ReapChild(kept->keeper.pid), 0);
  Result<std::string> text = sys::ReadText(exit_path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<BatchExit> ended = ParseBatchExit(*text);
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  EXPECT_EQ(ended->wait_status, 7 << 8);
}

TEST(Keeper, PassesOnALaunchFailure) {
  TempDir tmp;
  SpawnSpec spec;
  spec.path = "/bin/true";
  spec.work_dir = tmp / "missing";
  Result<KeptBatch> kept = SpawnKept(GANTRY_KEEPER_BINARY, spec, tmp / "1.exit");
  ASSERT_FALSE(kept.ok());
  EXPECT_EQ(kept.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(kept.status().message(), "chdir(" + tmp / "missing" + "): No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(tmp / "1.exit"));
}

TEST(Keeper, SaysSoWhenTheKeeperCannotStart) {
  TempDir tmp;
  SpawnSpec spec;
  spec.path = "/bin/true";
  Result<KeptBatch> kept = SpawnKept(tmp / "no-keeper", spec, tmp / "1.exit");
  ASSERT_FALSE(kept.ok());
  EXPECT_EQ(kept.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(kept.status().message(), "cannot start " + tmp / "no-keeper" + ": execve(" +
                                         tmp / "no-keeper" + "): No such file or directory");
}

TEST(Keeper, WaitForKeeperReturnsWhenItEnds) {
  TempDir tmp;
  SpawnSpec spec;
  spec.path = "/bin/sleep";
  spec.argv = {"sleep", "0.3"};
  Result<KeptBatch> kept = SpawnKept(GANTRY_KEEPER_BINARY, spec, tmp / "1.exit");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  WaitForKeeper(kept->keeper.pid, kept->keeper.start_ticks);
  EXPECT_TRUE(std::filesystem::exists(tmp / "1.exit"));
  sys::ReapChild(kept->keeper.pid);
  // Gone, or another process under its pid: at once.
  WaitForKeeper(kept->keeper.pid, kept->keeper.start_ticks);
  WaitForKeeper(getpid(), 1);
}

}  // namespace
}  // namespace gantry::agent
