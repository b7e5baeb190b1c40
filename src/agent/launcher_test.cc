#include "agent/launcher.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include "agent/script_runner.h"
#include "agent/test_support.h"
#include "sys/child_process.h"

namespace gantry::agent {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WriteExecutable;

TEST(DescribeWaitStatus, NamesExitAndSignal) {
  EXPECT_EQ(DescribeWaitStatus(0), "exit status 0");
  EXPECT_EQ(DescribeWaitStatus(3 << 8), "exit status 3");
  EXPECT_EQ(DescribeWaitStatus(SIGKILL), "killed by signal 9 (Killed)");
  EXPECT_EQ(DescribeWaitStatus(SIGSEGV | 0x80),
            "killed by signal 11 (Segmentation fault), core dumped");
}

TEST(Spawn, RunsInItsOwnSessionWithTheGivenEnvironmentAndFiles) {
  TempDir tmp;
  const std::string script = tmp / "s.sh";
  WriteExecutable(script,
                  "#!/bin/sh\n"
                  "echo \"$FOO $SLURM_TASK_PID $$ $(pwd)\"\n"
                  "ps -o sid= -p $$ | tr -d ' '\n"
                  "cat\n"
                  "echo to-err >&2\n");
  std::ofstream(tmp / "in.txt") << "from stdin\n";
  SpawnSpec spec;
  spec.path = script;
  spec.env = {"FOO=bar", "SLURM_TASK_PID=stale", "PATH=/usr/bin:/bin"};
  spec.task_pid_env = true;
  spec.work_dir = tmp.path();
  spec.stdin_path = tmp / "in.txt";
  spec.stdout_path = tmp / "out.txt";
  spec.stderr_path = tmp / "err.txt";
  Result<Spawned> spawned = Spawn(spec);
  ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
  EXPECT_GT(spawned->start_ticks, 0u);
  EXPECT_EQ(sys::ReapChild(spawned->pid), 0);
  const std::string pid = std::to_string(spawned->pid);
  EXPECT_EQ(ReadFile(tmp / "out.txt"),
            "bar " + pid + " " + pid + " " + tmp.path() + "\n" + pid + "\nfrom stdin\n");
  EXPECT_EQ(ReadFile(tmp / "err.txt"), "to-err\n");
}

TEST(Spawn, NamesTheStepThatFailed) {
  TempDir tmp;
  const std::string script = tmp / "s.sh";
  WriteExecutable(script, "#!/bin/sh\n");
  struct Case {
    std::string work_dir, stdin_path, stdout_path, path;
    std::string want;
  };
  const Case cases[] = {
      {"/nonexistent-dir", "/dev/null", "/dev/null", script,
       "chdir(/nonexistent-dir): No such file or directory"},
      {"/", tmp / "missing-in", "/dev/null", script,
       "open(" + tmp / "missing-in" + "): No such file or directory"},
      {"/", "/dev/null", tmp / "no/such/dir/out", script,
       "open(" + tmp / "no/such/dir/out" + "): No such file or directory"},
      {"/", "/dev/null", "/dev/null", tmp / "missing.sh",
       "execve(" + tmp / "missing.sh" + "): No such file or directory"},
  };
  for (const Case& c : cases) {
    SpawnSpec spec;
    spec.path = c.path;
    spec.work_dir = c.work_dir;
    spec.stdin_path = c.stdin_path;
    spec.stdout_path = c.stdout_path;
    Result<Spawned> spawned = Spawn(spec);
    ASSERT_FALSE(spawned.ok()) << c.want;
    EXPECT_EQ(spawned.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(spawned.status().message(), c.want);
  }
}

// A command name is looked up in PATH as execvp does, by the child as the job's user (review
// L5): what the user cannot see answers alike whether it exists or not.
TEST(Spawn, SearchesThePathAsTheUser) {
  TempDir tmp;
  WriteExecutable(tmp / "tool", "#!/bin/sh\necho ran tool\n");
  WriteExecutable(tmp / "plain", "echo a script without a shebang\n");
  SpawnSpec spec;
  spec.search_path = "/nonexistent:" + tmp.path() + ":/bin";
  spec.path = "tool";
  spec.stdout_path = tmp / "out";
  Result<Spawned> spawned = Spawn(spec);
  ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
  EXPECT_EQ(sys::ReapChild(spawned->pid), 0);
  EXPECT_EQ(ReadFile(tmp / "out"), "ran tool\n");
  spec.path = "plain";  // ENOEXEC: run by /bin/sh, as execvp does
  spawned = Spawn(spec);
  ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
  EXPECT_EQ(sys::ReapChild(spawned->pid), 0);
  EXPECT_EQ(ReadFile(tmp / "out"), "a script without a shebang\n");
  spec.path = "no-such-tool";
  Result<Spawned> missing = Spawn(spec);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "execve(no-such-tool): No such file or directory");

  if (geteuid() != 0) return;
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) return;
  const std::string hidden = tmp / "hidden";
  std::filesystem::create_directories(hidden);
  WriteExecutable(hidden + "/secret", "#!/bin/sh\n");
  chmod(hidden.c_str(), 0700);
  spec.identity = Identity{nobody->pw_uid, nobody->pw_gid, {nobody->pw_gid}};
  spec.stdout_path = "/dev/null";
  spec.search_path = hidden;
  std::string answers[2];
  int i = 0;
  for (const char* name : {"secret", "absent"}) {
    spec.path = name;
    Result<Spawned> refused = Spawn(spec);
    ASSERT_FALSE(refused.ok()) << name;
    answers[i++] = refused.status().message().substr(refused.status().message().find(':'));
  }
  EXPECT_EQ(answers[0], ": Permission denied");
  EXPECT_EQ(answers[0], answers[1]);
}

TEST(Spawn, SwitchesToTheUserBeforeOpeningFiles) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody";
  TempDir tmp;
  const std::string open_dir = tmp / "open";
  std::filesystem::create_directories(open_dir);
  chmod(open_dir.c_str(), 0777);
  SpawnSpec spec;
  spec.path = "/bin/sh";
  spec.argv = {"/bin/sh", "-c", "id -u; id -G"};
  spec.identity = Identity{nobody->pw_uid, nobody->pw_gid, {nobody->pw_gid}};
  spec.umask = 027;
  spec.work_dir = open_dir;
  spec.stdout_path = "out";
  Result<Spawned> spawned = Spawn(spec);
  ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
  EXPECT_EQ(sys::ReapChild(spawned->pid), 0);
  EXPECT_EQ(ReadFile(open_dir + "/out"),
            std::to_string(nobody->pw_uid) + "\n" + std::to_string(nobody->pw_gid) + "\n");
  struct stat st {};
  ASSERT_EQ(stat((open_dir + "/out").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody->pw_uid);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // 0666 & ~umask

  spec.work_dir = tmp.path();  // 0755 root's: nobody may not create files there
  Result<Spawned> refused = Spawn(spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "open(out): Permission denied");
}

TEST(RunScripts, ReportsTheFirstFailureByName) {
  TempDir tmp;
  const std::string ok = tmp / "ok.sh";
  const std::string bad = tmp / "bad.sh";
  WriteExecutable(ok, "#!/bin/sh\necho \"$GREETING\" >> " + tmp / "log" + "\n");
  WriteExecutable(bad, "#!/bin/sh\nkill -TERM $$\n");
  struct Case {
    std::vector<std::string> entries;
    bool ok;
    std::string message;
  };
  const Case cases[] = {
      {{}, true, ""},
      {{ok}, true, ""},
      {{ok, bad, ok}, false, "prolog " + bad + ": killed by signal 15 (Terminated)"},
      {{tmp / "nope"},
       false,
       "prolog " + tmp / "nope" + ": no such file (and not an inline script starting with \"#!\")"},
      {{tmp.path()}, false, "prolog " + tmp.path() + ": not a regular file"},
      {{"#!/bin/sh\nexit 0\n", "#!/bin/sh\nexit 5\n"},
       false,
       "prolog 2 (inline script): exit status 5"},
  };
  for (const Case& c : cases) {
    ScriptBatch batch;
    batch.kind = "prolog";
    batch.entries = c.entries;
    batch.env = {"GREETING=hi", "PATH=/usr/bin:/bin"};
    batch.timeout = std::chrono::seconds(60);
    batch.scratch_dir = tmp.path();
    batch.tag = "t";
    ScriptOutcome outcome = RunScripts(batch);
    EXPECT_EQ(outcome.ok, c.ok) << c.message;
    EXPECT_EQ(outcome.message, c.message);
  }
  EXPECT_EQ(ReadFile(tmp / "log"), "hi\nhi\n");  // {ok} and the first of {ok, bad, ok}
}

TEST(RunScripts, KillsAScriptThatTimesOutWithItsChildren) {
  TempDir tmp;
  ScriptBatch batch;
  batch.kind = "epilog";
  batch.entries = {"#!/bin/sh\nsleep 1000 &\necho $! > " + tmp / "child" + "\nwait\n"};
  batch.timeout = std::chrono::milliseconds(300);
  batch.scratch_dir = tmp.path();
  batch.tag = "t";
  ScriptOutcome outcome = RunScripts(batch);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.message, "epilog 1 (inline script): timed out after 300 ms");
  const pid_t child = std::stoi(ReadFile(tmp / "child"));
  EXPECT_TRUE(testing::Eventually([&] { return testing::ProcessGone(child); }));
}

// Jobs sharing a node run their inline prologs at the same time: each is written and then
// exec'd while other threads start children. None may fail with "Text file busy" (a child
// started while another script was open for writing would hold it open until its own exec).
TEST(RunScripts, ConcurrentInlineScriptsNeverFindTheirFileBusy) {
  TempDir tmp;
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::vector<std::string> failures[kThreads];
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        ScriptBatch batch;
        batch.kind = "prolog";
        batch.entries = {"#!/bin/sh\nexit 0\n"};
        batch.env = {"PATH=/usr/bin:/bin"};
        batch.timeout = std::chrono::seconds(60);
        batch.scratch_dir = tmp.path();
        batch.tag = "job" + std::to_string(t * kRounds + round);
        const ScriptOutcome outcome = RunScripts(batch);
        if (!outcome.ok) failures[t].push_back(outcome.message);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(failures[t].empty()) << failures[t].front();
}

}  // namespace
}  // namespace gantry::agent
