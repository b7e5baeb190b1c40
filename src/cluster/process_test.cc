#include "cluster/process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cluster/environment.h"

namespace gantry::cluster {
namespace {

using std::chrono::milliseconds;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-process-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (pid_t pid : started_) kill(pid, SIGKILL);
    std::filesystem::remove_all(dir_);
  }

  pid_t Spawn(const std::string& program, std::vector<std::string> args) {
    Result<pid_t> pid = SpawnDetached({program, std::move(args), dir_ + "/out.log", dir_});
    EXPECT_TRUE(pid.ok()) << pid.status().message();
    if (!pid.ok()) return -1;
    started_.push_back(*pid);
    return *pid;
  }

  // Waits (bounded) until the file holds `text`; the spawned process writes it.
  static bool WaitForFileContent(const std::string& path, const std::string& text) {
    for (int i = 0; i < 500; ++i) {
      std::ifstream in(path);
      std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (s == text) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }

  std::string dir_;
  std::vector<pid_t> started_;
};

TEST_F(ProcessTest, SpawnedSleepIsAliveMatchesAndStopsOnSigterm) {
  const pid_t pid = Spawn("/bin/sleep", {"30"});
  ASSERT_GT(pid, 0);
  EXPECT_NE(pid, getpid());
  EXPECT_TRUE(ProcessAlive(pid));
  const std::vector<std::string> argv = ProcessArgv(pid);
  ASSERT_EQ(argv.size(), 2u);
  EXPECT_EQ(argv[0], "/bin/sleep");
  EXPECT_TRUE(ArgvMatches(argv, "sleep", {"30"}));
  EXPECT_FALSE(ArgvMatches(argv, "sleep", {"31"}));
  EXPECT_FALSE(ArgvMatches(argv, "gantryd", {}));

  Result<std::vector<StopResult>> stopped = StopProcesses({pid}, std::chrono::seconds(10));
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  ASSERT_EQ(stopped->size(), 1u);
  EXPECT_TRUE((*stopped)[0].was_running);
  EXPECT_FALSE((*stopped)[0].killed);
  EXPECT_FALSE(ProcessAlive(pid));
}

TEST_F(ProcessTest, DaemonRunsInItsOwnSessionWithRedirectedOutputAndWorkingDir) {
  const pid_t pid = Spawn("/bin/sh", {"-c",
                                      "pwd -P; echo to-stderr >&2; read x; echo read=$?; "
                                      "cut -d' ' -f6 /proc/$$/stat; echo end"});
  ASSERT_GT(pid, 0);
  // stdin is /dev/null, so `read` fails at once (status 1); the session id is the daemon's own
  // (setsid ran in the intermediate child, whose pid is not the daemon's).
  const std::string log = dir_ + "/out.log";
  for (int i = 0; i < 500 && ProcessAlive(pid); ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_FALSE(ProcessAlive(pid));
  std::ifstream in(log);
  std::string pwd;
  std::string err_line;
  std::string read_line;
  std::string sid;
  std::string end;
  std::getline(in, pwd);
  std::getline(in, err_line);
  std::getline(in, read_line);
  std::getline(in, sid);
  std::getline(in, end);
  EXPECT_EQ(pwd, NormalizePath(dir_));
  EXPECT_EQ(err_line, "to-stderr");
  EXPECT_EQ(read_line, "read=1");
  EXPECT_NE(sid, std::to_string(getsid(0)));
  EXPECT_EQ(end, "end");
}

TEST_F(ProcessTest, MissingProgramIsAnErrorNamingExec) {
  Result<pid_t> pid = SpawnDetached({dir_ + "/no-such-program", {}, dir_ + "/out.log", ""});
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().message(),
            "cannot start " + dir_ + "/no-such-program: exec: No such file or directory");
}

TEST_F(ProcessTest, UnwritableLogIsAnError) {
  Result<pid_t> pid = SpawnDetached({"/bin/true", {}, dir_ + "/missing/out.log", ""});
  ASSERT_FALSE(pid.ok());
  EXPECT_TRUE(
      pid.status().message().starts_with("cannot open log file " + dir_ + "/missing/out.log"));
}

TEST_F(ProcessTest, ProcessThatIgnoresSigtermIsKilled) {
  const std::string ready = dir_ + "/ready";
  const pid_t pid = Spawn(
      "/bin/sh", {"-c", "trap '' TERM; echo x > " + ready + "; while :; do sleep 0.05; done"});
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(WaitForFileContent(ready, "x\n"));  // the trap is set
  Result<std::vector<StopResult>> stopped = StopProcesses({pid}, milliseconds(200));
  ASSERT_TRUE(stopped.ok()) << stopped.status().message();
  EXPECT_TRUE((*stopped)[0].was_running);
  EXPECT_TRUE((*stopped)[0].killed);
  EXPECT_FALSE(ProcessAlive(pid));
}

TEST_F(ProcessTest, StoppingADeadProcessReportsNotRunning) {
  const pid_t pid = Spawn("/bin/true", {});
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 500 && ProcessAlive(pid); ++i) std::this_thread::sleep_for(milliseconds(10));
  Result<std::vector<StopResult>> stopped = StopProcesses({pid, 0}, milliseconds(100));
  ASSERT_TRUE(stopped.ok());
  EXPECT_FALSE((*stopped)[0].was_running);
  EXPECT_FALSE((*stopped)[1].was_running);
}

TEST_F(ProcessTest, LiveDaemonChecksThePidFileProcessAndItsArguments) {
  const std::string pid_file = dir_ + "/sleep.pid";
  EXPECT_EQ(LiveDaemon(pid_file, "sleep", {}), std::nullopt);  // no file
  const pid_t pid = Spawn("/bin/sleep", {"29"});
  ASSERT_TRUE(WritePidFile(pid_file, pid).ok());
  EXPECT_EQ(ReadPidFile(pid_file), pid);
  EXPECT_EQ(LiveDaemon(pid_file, "sleep", {"29"}), pid);
  // Alive but not the expected daemon (a reused pid): dead.
  EXPECT_EQ(LiveDaemon(pid_file, "gantryd", {}), std::nullopt);
  EXPECT_EQ(LiveDaemon(pid_file, "sleep", {"28"}), std::nullopt);
  kill(pid, SIGKILL);
  for (int i = 0; i < 500 && ProcessAlive(pid); ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(LiveDaemon(pid_file, "sleep", {"29"}), std::nullopt);
}

TEST(ProcessAliveTest, SelfIsAliveAndNonPositivePidsAreNot) {
  EXPECT_TRUE(ProcessAlive(getpid()));
  EXPECT_FALSE(ProcessAlive(0));
  EXPECT_FALSE(ProcessAlive(-1));
}

TEST(ArgvMatchesTest, Table) {
  struct Case {
    std::vector<std::string> argv;
    std::string program;
    std::vector<std::string> required;
    bool want;
  };
  const Case cases[] = {
      {{"/opt/bin/gantryd", "--state-dir", "/s", "--listen", "x"},
       "gantryd",
       {"--state-dir", "/s"},
       true},
      {{"/bin/sh", "/t/gantryd", "--state-dir", "/s"}, "gantryd", {"--state-dir", "/s"}, true},
      {{"gantryd", "--state-dir", "/other"}, "gantryd", {"--state-dir", "/s"}, false},
      {{"gantryd", "--listen", "/s"}, "gantryd", {"--state-dir", "/s"}, false},
      {{"/bin/gantryd2", "--state-dir", "/s"}, "gantryd", {"--state-dir", "/s"}, false},
      {{"gantry-agent", "--spool", "/s/spool/n1"},
       "gantry-agent",
       {"--spool", "/s/spool/n1"},
       true},
      {{"gantry-agent", "--spool", "/s/spool/n10"},
       "gantry-agent",
       {"--spool", "/s/spool/n1"},
       false},
      {{}, "gantryd", {}, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ArgvMatches(c.argv, c.program, c.required), c.want)
        << (c.argv.empty() ? "" : c.argv[0]);
  }
}

TEST(ArgvFlagValueTest, SeparateAndJoinedValues) {
  const std::vector<std::string> argv = {"a", "--controller", "h:1", "--spool=/x", "--last"};
  EXPECT_EQ(ArgvFlagValue(argv, "--controller"), "h:1");
  EXPECT_EQ(ArgvFlagValue(argv, "--spool"), "/x");
  EXPECT_EQ(ArgvFlagValue(argv, "--last"), std::nullopt);
  EXPECT_EQ(ArgvFlagValue(argv, "--node"), std::nullopt);
}

TEST_F(ProcessTest, PidFilesHoldOnePositiveNumber) {
  const struct {
    std::string text;
    std::optional<pid_t> want;
  } cases[] = {
      {"123\n", 123},          {"123", 123},       {"0\n", std::nullopt}, {"-5\n", std::nullopt},
      {"12x\n", std::nullopt}, {"", std::nullopt},
  };
  const std::string path = dir_ + "/p.pid";
  for (const auto& c : cases) {
    std::ofstream(path, std::ios::trunc) << c.text;
    EXPECT_EQ(ReadPidFile(path), c.want) << c.text;
  }
  EXPECT_EQ(ReadPidFile(dir_ + "/missing.pid"), std::nullopt);
}

TEST_F(ProcessTest, TailOfFileShowsTheLastLinesAfterAnOffset) {
  const std::string path = dir_ + "/log";
  std::ofstream(path) << "old 1\nold 2\n";
  const uint64_t from = FileSize(path);
  std::ofstream(path, std::ios::app) << "new 1\nnew 2\nnew 3\n";
  EXPECT_EQ(TailOfFile(path, 2, from), "new 2\nnew 3\n");
  EXPECT_EQ(TailOfFile(path, 10, from), "new 1\nnew 2\nnew 3\n");
  EXPECT_EQ(TailOfFile(path, 1), "new 3\n");
  EXPECT_EQ(TailOfFile(dir_ + "/missing", 5), "");
  EXPECT_EQ(FileSize(dir_ + "/missing"), 0u);
}

}  // namespace
}  // namespace gantry::cluster
