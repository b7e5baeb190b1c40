#include "agent/job_manager.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "agent/fake_srun_test_util.h"
#include "agent/keeper.h"
#include "agent/launcher.h"
#include "agent/script_runner.h"
#include "agent/step_keeper.h"
#include "agent/test_support.h"
#include "sys/child_process.h"

namespace gantry::agent {
namespace {

using gantry::v1::JobReport;
using testing::Eventually;
using testing::MakeJob;
using testing::MakePayload;
using testing::ProcessGone;
using testing::ReadFile;
using testing::WriteExecutable;

// A process in a session of its own, as a job's script or task is.
Result<Spawned> SpawnSleeper() {
  SpawnSpec spec;
  spec.path = "/bin/sleep";
  spec.argv = {"sleep", "1000"};
  return Spawn(spec);
}

// What an earlier agent recorded for job `job_id` whose batch script is `script`.
JobRecord RecordOf(uint32_t job_id, uint64_t epoch, const Spawned& script) {
  JobRecord record;
  record.job_id = job_id;
  record.epoch = epoch;
  record.pid = script.pid;
  record.start_ticks = script.start_ticks;
  return record;
}

class JobManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = tmp_ / "work";
    std::filesystem::create_directories(work_);
    chmod(work_.c_str(), 0777);
  }
  void TearDown() override {
    manager_.reset();
    if (!cgroup_base_.empty()) rmdir(cgroup_base_.c_str());
  }

  // A manager on node "n1"; cgroup_root "none" tracks by process group, "" uses cgroups.
  JobManager& Start(const std::string& cgroup_root = "none", NodeSettings settings = {}) {
    JobManagerOptions options;
    options.node = node_;
    options.spool_dir = tmp_ / "spool";
    options.cgroup_root = cgroup_root;
    options.clock = &clock_;
    options.keeper_path = keeper_path_;
    options.stepd_path = stepd_path_;
    Result<std::unique_ptr<JobManager>> made = JobManager::Create(options, &sink_);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    manager_ = std::move(*made);
    if (settings.cluster_name.empty()) settings.cluster_name = "test";
    settings.kill_wait_sec = settings.kill_wait_sec == 30 ? 1 : settings.kill_wait_sec;
    manager_->SetSettings(settings);
    cgroup_base_ = manager_->cgroup_base();
    return *manager_;
  }

  // Launches `script` as job `job_id` and waits for it to end; its BATCH_ENDED report.
  JobReport RunToEnd(uint32_t job_id, const std::string& script,
                     gantry::v1::JobContext context = {}) {
    if (!context.has_job()) context = MakeJob(job_id, node_, work_);
    EXPECT_TRUE(manager_->LaunchBatch(context, MakePayload(script)).ok());
    std::optional<JobReport> ended = sink_.WaitFor(job_id, JobReport::BATCH_ENDED);
    EXPECT_TRUE(ended.has_value()) << "job " << job_id << " did not end";
    return ended.value_or(JobReport());
  }

  void Terminate(uint32_t job_id, uint64_t epoch = 1, uint32_t kill_wait = 1) {
    ASSERT_TRUE(manager_->TerminateJob(job_id, epoch, kill_wait, {}).ok());
    ASSERT_TRUE(sink_.WaitFor(job_id, JobReport::EPILOG_OK).has_value());
  }

  testing::TempDir tmp_;
  std::string keeper_path_;  // "" = scripts are the manager's own children
  std::string stepd_path_;   // "" = the manager runs srun's tasks itself
  testing::FixedClock clock_;
  testing::RecordingSink sink_;
  std::string node_ = "n1";
  std::string work_;
  std::string cgroup_base_;
  std::unique_ptr<JobManager> manager_;
};

TEST_F(JobManagerTest, BatchScriptWritesItsOutputAndErrorFilesByPattern) {
  Start();
  gantry::v1::JobContext context = MakeJob(5, node_, work_);
  context.mutable_job()->mutable_request()->set_std_out("out-%j-%N.txt");
  context.mutable_job()->mutable_request()->set_std_err("err-%x.txt");
  JobReport ended = RunToEnd(5,
                             "#!/bin/sh\n"
                             "echo \"hello $SLURM_JOB_ID $SLURMD_NODENAME $ENVIRONMENT\"\n"
                             "echo oops >&2\n"
                             "pwd\n"
                             "test \"$SLURM_TASK_PID\" = \"$$\" && echo pid-ok\n",
                             context);
  EXPECT_EQ(ended.wait_status(), 0);
  EXPECT_EQ(ended.node(), "n1");
  EXPECT_EQ(ended.epoch(), 1u);
  EXPECT_EQ(ended.time(), 1764675787);
  EXPECT_EQ(ReadFile(work_ + "/out-5-n1.txt"), "hello 5 n1 BATCH\n" + work_ + "\npid-ok\n");
  EXPECT_EQ(ReadFile(work_ + "/err-test-job.txt"), "oops\n");
  EXPECT_EQ(manager_->JobIds(), std::vector<uint32_t>{5});
  Terminate(5);
  EXPECT_EQ(manager_->JobIds(), std::vector<uint32_t>{});
  EXPECT_FALSE(std::filesystem::exists(tmp_ / "spool/job_5"));
  EXPECT_FALSE(std::filesystem::exists(tmp_ / "spool/jobs/5.rec"));
  EXPECT_EQ(sink_.KindsFor(5),
            (std::vector<JobReport::Kind>{JobReport::BATCH_ENDED, JobReport::EPILOG_OK}));
}

TEST_F(JobManagerTest, DefaultOutputIsSlurmJobIdOutWithStderrInIt) {
  Start();
  // An existing file is truncated, as Slurm does without --open-mode=append.
  std::ofstream(work_ + "/slurm-6.out") << "old content that must go\n";
  RunToEnd(6, "#!/bin/sh\necho out\necho err >&2\n");
  EXPECT_EQ(ReadFile(work_ + "/slurm-6.out"), "out\nerr\n");
}

TEST_F(JobManagerTest, ReportsRawWaitStatusOfExitAndSignal) {
  Start();
  struct Case {
    uint32_t job_id;
    std::string script;
    bool exited;
    int code;  // exit status or signal
  };
  const Case cases[] = {
      {10, "#!/bin/sh\nexit 0\n", true, 0},
      {11, "#!/bin/sh\nexit 3\n", true, 3},
      {12, "#!/bin/sh\nkill -USR1 $$\nsleep 5\n", false, SIGUSR1},
      {13, "#!/bin/sh\nkill -KILL $$\n", false, SIGKILL},
  };
  for (const Case& c : cases) {
    JobReport ended = RunToEnd(c.job_id, c.script);
    int status = ended.wait_status();
    if (c.exited) {
      ASSERT_TRUE(WIFEXITED(status)) << c.script;
      EXPECT_EQ(WEXITSTATUS(status), c.code) << c.script;
    } else {
      ASSERT_TRUE(WIFSIGNALED(status)) << c.script;
      EXPECT_EQ(WTERMSIG(status), c.code) << c.script;
    }
  }
}

TEST_F(JobManagerTest, ScriptWithoutShebangRunsWithSh) {
  Start();
  EXPECT_EQ(RunToEnd(14, "exit 4\n").wait_status(), 4 << 8);
}

TEST_F(JobManagerTest, ScriptGetsItsArguments) {
  Start();
  gantry::v1::JobPayload payload = MakePayload("#!/bin/sh\necho \"$# [$1] [$2]\"\n");
  payload.add_argv("a b");
  payload.add_argv("c");
  ASSERT_TRUE(manager_->LaunchBatch(MakeJob(15, node_, work_), payload).ok());
  ASSERT_TRUE(sink_.WaitFor(15, JobReport::BATCH_ENDED).has_value());
  EXPECT_EQ(ReadFile(work_ + "/slurm-15.out"), "2 [a b] [c]\n");
}

TEST_F(JobManagerTest, LaunchFailsWhenTheWorkDirIsMissing) {
  Start();
  gantry::v1::JobContext context = MakeJob(20, node_, "/nonexistent-gantry/dir");
  ASSERT_TRUE(manager_->LaunchBatch(context, MakePayload("#!/bin/sh\n")).ok());
  std::optional<JobReport> failed = sink_.WaitFor(20, JobReport::LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(), "chdir(/nonexistent-gantry/dir): No such file or directory");
  // The epilog still runs when the controller ends the job.
  Terminate(20);
  EXPECT_EQ(sink_.KindsFor(20),
            (std::vector<JobReport::Kind>{JobReport::LAUNCH_FAILED, JobReport::EPILOG_OK}));
}

TEST_F(JobManagerTest, LaunchFailsForAnUnknownUser) {
  Start();
  gantry::v1::JobContext context = MakeJob(21, node_, work_);
  context.mutable_job()->set_user_id(4123456789u);
  ASSERT_TRUE(manager_->LaunchBatch(context, MakePayload("#!/bin/sh\n")).ok());
  std::optional<JobReport> failed = sink_.WaitFor(21, JobReport::LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(), "uid 4123456789: no such user");
}

TEST_F(JobManagerTest, RunsTheScriptAsTheJobsUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody";
  Start();
  gantry::v1::JobContext context = MakeJob(30, node_, work_);
  context.mutable_job()->set_user_id(nobody->pw_uid);
  context.mutable_job()->set_group_id(nobody->pw_gid);
  context.mutable_job()->set_user_name("nobody");
  JobReport ended = RunToEnd(30,
                             "#!/bin/sh\n"
                             "id -u\n"
                             "id -g\n"
                             "echo $SLURM_JOB_USER $USER\n",
                             context);
  EXPECT_EQ(ended.wait_status(), 0);
  const std::string out = work_ + "/slurm-30.out";
  EXPECT_EQ(ReadFile(out), std::to_string(nobody->pw_uid) + "\n" + std::to_string(nobody->pw_gid) +
                               "\nnobody nobody\n");
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody->pw_uid);  // opened as the user, not as root
  EXPECT_EQ(st.st_gid, nobody->pw_gid);
}

TEST_F(JobManagerTest, OutputFileTheUserMayNotWriteFailsTheLaunch) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody";
  Start();
  const std::string closed = tmp_ / "root-only";
  std::filesystem::create_directories(closed);
  chmod(closed.c_str(), 0755);
  gantry::v1::JobContext context = MakeJob(31, node_, work_);
  context.mutable_job()->set_user_id(nobody->pw_uid);
  context.mutable_job()->set_group_id(nobody->pw_gid);
  context.mutable_job()->mutable_request()->set_std_out(closed + "/out-%j");
  ASSERT_TRUE(manager_->LaunchBatch(context, MakePayload("#!/bin/sh\n")).ok());
  std::optional<JobReport> failed = sink_.WaitFor(31, JobReport::LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(), "open(" + closed + "/out-31): Permission denied");
}

// The background child starts its own session and ignores SIGTERM: only the cgroup finds it.
TEST_F(JobManagerTest, TerminateKillsEveryProcessEvenOneInItsOwnSession) {
  if (!testing::CgroupsUsable()) GTEST_SKIP() << "no writable cgroup v2 hierarchy";
  Start("");
  ASSERT_FALSE(manager_->cgroup_base().empty());
  gantry::v1::JobContext context = MakeJob(40, node_, work_);
  ASSERT_TRUE(manager_
                  ->LaunchBatch(context, MakePayload("#!/bin/bash\n"
                                                     "setsid bash -c 'trap \"\" TERM; echo $$ > "
                                                     "bg.tmp; mv bg.tmp bg.pid; "
                                                     "while :; do sleep 0.1; done' &\n"
                                                     "sleep 1000\n"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/bg.pid"); }));
  const pid_t background = std::stoi(ReadFile(work_ + "/bg.pid"));
  ASSERT_FALSE(ProcessGone(background));
  ASSERT_NE(getsid(background), getsid(0));
  Terminate(40, 1, 1);
  EXPECT_TRUE(ProcessGone(background));
  EXPECT_FALSE(std::filesystem::exists(manager_->cgroup_base() + "/job_40"));
  EXPECT_EQ(sink_.KindsFor(40),
            (std::vector<JobReport::Kind>{JobReport::BATCH_ENDED, JobReport::EPILOG_OK}));
}

TEST_F(JobManagerTest, TerminateKillsAChildIgnoringSigtermByProcessGroup) {
  Start("none");
  gantry::v1::JobContext context = MakeJob(41, node_, work_);
  ASSERT_TRUE(manager_
                  ->LaunchBatch(context, MakePayload("#!/bin/bash\n"
                                                     "bash -c 'trap \"\" TERM; echo $$ > bg.tmp; "
                                                     "mv bg.tmp bg.pid; "
                                                     "while :; do sleep 0.1; done' &\n"
                                                     "wait\n"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/bg.pid"); }));
  const pid_t background = std::stoi(ReadFile(work_ + "/bg.pid"));
  Terminate(41, 1, 1);
  EXPECT_TRUE(ProcessGone(background));
}

TEST_F(JobManagerTest, WholeJobSignalReachesTheScriptAndItsChildren) {
  Start();
  gantry::v1::JobContext context = MakeJob(42, node_, work_);
  ASSERT_TRUE(
      manager_
          ->LaunchBatch(context, MakePayload("#!/bin/bash\n"
                                             "bash -c 'trap \"echo child >> got; exit 0\" USR1; "
                                             "touch child.ready; while :; do sleep 0.1; done' &\n"
                                             "trap 'echo script >> got' USR1\n"
                                             "touch script.ready\n"
                                             "while [ ! -s got ] || [ $(wc -l < got) -lt 2 ]; do "
                                             "sleep 0.1; done\n"
                                             "exit 0\n"))
          .ok());
  ASSERT_TRUE(Eventually([&] {
    return std::filesystem::exists(work_ + "/child.ready") &&
           std::filesystem::exists(work_ + "/script.ready");
  }));
  ASSERT_TRUE(manager_->SignalJob(42, 1, SIGUSR1, gantry::v1::SIGNAL_WHOLE_JOB).ok());
  std::optional<JobReport> ended = sink_.WaitFor(42, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->wait_status(), 0);
  std::string got = ReadFile(work_ + "/got");
  EXPECT_NE(got.find("child"), std::string::npos);
  EXPECT_NE(got.find("script"), std::string::npos);
  EXPECT_EQ(manager_->SignalJob(42, 2, SIGUSR1, gantry::v1::SIGNAL_WHOLE_JOB).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(manager_->SignalJob(99, 1, SIGUSR1, gantry::v1::SIGNAL_WHOLE_JOB).code(),
            StatusCode::kNotFound);
}

// scancel -s without -b/-f: the steps' tasks only; a job without steps keeps running untouched.
TEST_F(JobManagerTest, StepsSignalSparesTheBatchScript) {
  Start();
  gantry::v1::JobContext context = MakeJob(46, node_, work_);
  ASSERT_TRUE(manager_
                  ->LaunchBatch(context, MakePayload("#!/bin/bash\n"
                                                     "trap 'echo script >> got' USR1\n"
                                                     "touch script.ready\n"
                                                     "while [ ! -e stop ]; do sleep 0.1; done\n"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/script.ready"); }));
  ASSERT_TRUE(manager_->SignalJob(46, 1, SIGUSR1, gantry::v1::SIGNAL_STEPS).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ofstream(work_ + "/stop").close();
  std::optional<JobReport> ended = sink_.WaitFor(46, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->wait_status(), 0);
  EXPECT_FALSE(std::filesystem::exists(work_ + "/got"));
}

TEST_F(JobManagerTest, BatchOnlySignalSparesTheChildren) {
  Start();
  gantry::v1::JobContext context = MakeJob(43, node_, work_);
  ASSERT_TRUE(manager_
                  ->LaunchBatch(context, MakePayload("#!/bin/bash\n"
                                                     "bash -c 'echo $$ > child.tmp; mv child.tmp "
                                                     "child.pid; exec sleep 1000' &\n"
                                                     "wait\n"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/child.pid"); }));
  const pid_t child = std::stoi(ReadFile(work_ + "/child.pid"));
  ASSERT_TRUE(manager_->SignalJob(43, 1, SIGTERM, gantry::v1::SIGNAL_BATCH).ok());
  std::optional<JobReport> ended = sink_.WaitFor(43, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_TRUE(WIFSIGNALED(ended->wait_status()));
  EXPECT_FALSE(ProcessGone(child));
  Terminate(43);  // ends what the script left behind
  EXPECT_TRUE(ProcessGone(child));
}

TEST_F(JobManagerTest, PrologRunsInOrderWithTheJobsEnvironmentAndReportsFailure) {
  const std::string marker = tmp_ / "marker";
  const std::string first = tmp_ / "first.sh";
  const std::string second = tmp_ / "second.sh";
  WriteExecutable(first, "#!/bin/sh\necho \"$SLURM_JOB_ID $SLURM_JOB_USER $SLURMD_NODENAME\" > " +
                             marker + "\n");
  WriteExecutable(second, "#!/bin/sh\nexit 7\n");
  NodeSettings settings;
  settings.prolog = {first, second, "#!/bin/sh\necho never >> " + marker + "\n"};
  Start("none", settings);
  gantry::v1::JobContext context = MakeJob(50, node_, work_);
  ASSERT_TRUE(manager_->PrepareJob(context).ok());
  std::optional<JobReport> failed = sink_.WaitFor(50, JobReport::PROLOG_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(), "prolog " + second + ": exit status 7");
  EXPECT_EQ(ReadFile(marker), "50 " + context.job().user_name() + " n1\n");
  // A retried PrepareJob does not run the prolog again; a launch after a failed prolog is refused.
  EXPECT_TRUE(manager_->PrepareJob(context).ok());
  EXPECT_EQ(manager_->LaunchBatch(context, MakePayload("#!/bin/sh\n")).code(),
            StatusCode::kFailedPrecondition);
  Terminate(50);
  EXPECT_EQ(sink_.KindsFor(50),
            (std::vector<JobReport::Kind>{JobReport::PROLOG_FAILED, JobReport::EPILOG_OK}));
}

TEST_F(JobManagerTest, InlinePrologScriptRuns) {
  const std::string marker = tmp_ / "marker";
  NodeSettings settings;
  settings.prolog = {"#!/bin/sh\necho \"inline $SLURM_SCRIPT_CONTEXT\" > " + marker + "\n"};
  Start("none", settings);
  ASSERT_TRUE(manager_->PrepareJob(MakeJob(51, node_, work_)).ok());
  ASSERT_TRUE(sink_.WaitFor(51, JobReport::PROLOG_OK).has_value());
  EXPECT_EQ(ReadFile(marker), "inline prolog_slurmd\n");
  // The inline script's file is gone once it ran.
  EXPECT_TRUE(std::filesystem::is_empty(tmp_ / "spool/scripts"));
}

TEST_F(JobManagerTest, PrologTimesOut) {
  NodeSettings settings;
  settings.prolog = {"#!/bin/sh\nsleep 1000\n"};
  settings.script_timeout_sec = 1;
  Start("none", settings);
  ASSERT_TRUE(manager_->PrepareJob(MakeJob(52, node_, work_)).ok());
  std::optional<JobReport> failed = sink_.WaitFor(52, JobReport::PROLOG_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(), "prolog 1 (inline script): timed out after 1 s");
}

TEST_F(JobManagerTest, EpilogRunsForAJobNeverSeenAndReportsItsFailure) {
  const std::string marker = tmp_ / "epilog-ran";
  NodeSettings settings;
  settings.epilog = {"#!/bin/sh\necho \"$SLURM_JOB_ID\" >> " + marker + "\nexit 2\n"};
  Start("none", settings);
  ASSERT_TRUE(manager_->TerminateJob(60, 3, 0, {}).ok());
  std::optional<JobReport> failed = sink_.WaitFor(60, JobReport::EPILOG_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->epoch(), 3u);
  EXPECT_EQ(failed->message(), "epilog 1 (inline script): exit status 2");
  // Retries of the same (job, epoch) do nothing.
  EXPECT_TRUE(manager_->TerminateJob(60, 3, 0, {}).ok());
  EXPECT_TRUE(manager_->TerminateJob(60, 2, 0, {}).ok());
  manager_->Shutdown();
  EXPECT_EQ(ReadFile(marker), "60\n");
  EXPECT_EQ(sink_.KindsFor(60), std::vector<JobReport::Kind>{JobReport::EPILOG_FAILED});
}

TEST_F(JobManagerTest, RefusesOlderEpochsAndEndedJobs) {
  Start();
  ASSERT_TRUE(manager_->PrepareJob(MakeJob(70, node_, work_, 2)).ok());
  ASSERT_TRUE(sink_.WaitFor(70, JobReport::PROLOG_OK).has_value());
  EXPECT_EQ(manager_->PrepareJob(MakeJob(70, node_, work_, 1)).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(manager_->TerminateJob(70, 1, 0, {}).code(), StatusCode::kFailedPrecondition);
  Terminate(70, 2);
  EXPECT_EQ(manager_->LaunchBatch(MakeJob(70, node_, work_, 2), MakePayload("#!/bin/sh\n")).code(),
            StatusCode::kFailedPrecondition);
  // A requeued job (next epoch) runs again.
  EXPECT_EQ(RunToEnd(70, "#!/bin/sh\nexit 0\n", MakeJob(70, node_, work_, 3)).epoch(), 3u);
}

TEST_F(JobManagerTest, StaleJobsAreKilledWithoutReports) {
  Start();
  gantry::v1::JobContext context = MakeJob(80, node_, work_);
  ASSERT_TRUE(manager_
                  ->LaunchBatch(context, MakePayload("#!/bin/sh\necho $$ > pid.tmp; mv "
                                                     "pid.tmp script.pid; exec sleep 1000\n"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/script.pid"); }));
  const pid_t script = std::stoi(ReadFile(work_ + "/script.pid"));
  manager_->KillStaleJobs({80, 81});
  ASSERT_TRUE(Eventually([&] { return manager_->JobIds().empty(); }));
  EXPECT_TRUE(ProcessGone(script));
  EXPECT_TRUE(sink_.KindsFor(80).empty());
}

TEST_F(JobManagerTest, ShutdownEndsRunningJobsWithTheirEpilog) {
  Start();
  gantry::v1::JobContext context = MakeJob(90, node_, work_);
  ASSERT_TRUE(
      manager_->LaunchBatch(context, MakePayload("#!/bin/sh\ntouch started\nsleep 1000\n")).ok());
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/started"); }));
  manager_->Shutdown();
  EXPECT_EQ(sink_.KindsFor(90),
            (std::vector<JobReport::Kind>{JobReport::BATCH_ENDED, JobReport::EPILOG_OK}));
  EXPECT_EQ(manager_->PrepareJob(MakeJob(91, node_, work_)).code(), StatusCode::kUnavailable);
}

TEST_F(JobManagerTest, KillsAScriptThatWasThePreviousAgentsOwnChild) {
  // A "job" of a dead agent that ran its script without a keeper: nobody can tell how it ends.
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  Result<Spawned> leftover = SpawnSleeper();
  ASSERT_TRUE(leftover.ok()) << leftover.status().ToString();
  JobRecord record = RecordOf(100, 4, *leftover);
  ASSERT_TRUE(spool->SaveRecord(record).ok());
  ASSERT_TRUE(std::filesystem::create_directories(spool->JobDir(100)));

  Start();
  JobManager::Leftovers leftovers = manager_->TakeOverLeftovers();
  EXPECT_EQ(leftovers.killed, 1);
  EXPECT_EQ(leftovers.adopted, 0);
  EXPECT_TRUE(manager_->JobIds().empty());
  // The leftover was our child in this test: reap it to see how it ended.
  int status = 0;
  ASSERT_EQ(waitpid(leftover->pid, &status, 0), leftover->pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_TRUE(spool->LoadRecords(nullptr).empty());
  EXPECT_FALSE(std::filesystem::exists(spool->JobDir(100)));
  EXPECT_TRUE(sink_.reports().empty());
}

// A batch script an earlier agent started under a keeper (as SpawnKept does for LaunchBatch):
// its record names both.
Result<KeptBatch> KeepScript(const Spool& spool, uint32_t job_id, const std::string& text,
                             const std::string& work_dir) {
  const std::string script = work_dir + "/job" + std::to_string(job_id) + ".sh";
  WriteExecutable(script, text);
  SpawnSpec spec;
  spec.path = script;
  spec.work_dir = work_dir;
  Result<KeptBatch> kept = SpawnKept(GANTRY_KEEPER_BINARY, spec, spool.ExitPath(job_id));
  if (!kept.ok()) return kept;
  JobRecord record = RecordOf(job_id, 2, kept->script);
  record.keeper = RecordedProcess{kept->keeper.pid, kept->keeper.start_ticks};
  GANTRY_RETURN_IF_ERROR(spool.SaveRecord(record));
  return kept;
}

TEST_F(JobManagerTest, BatchScriptsRunUnderAKeeper) {
  keeper_path_ = GANTRY_KEEPER_BINARY;
  Start();
  const JobReport ended = RunToEnd(110, "#!/bin/sh\necho $PPID > ppid\nexit 4\n");
  EXPECT_EQ(ended.wait_status(), 4 << 8);
  // The script's parent was not this process (the agent) but its keeper.
  EXPECT_NE(ReadFile(work_ + "/ppid"), std::to_string(getpid()) + "\n");
  Terminate(110);
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  EXPECT_TRUE(spool->LoadRecords(nullptr).empty());
  EXPECT_FALSE(std::filesystem::exists(spool->ExitPath(110)));
  EXPECT_FALSE(std::filesystem::exists(spool->ReportedPath(110)));
}

TEST_F(JobManagerTest, TakesOverABatchScriptThatOutlivedItsAgent) {
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  Result<KeptBatch> kept = KeepScript(
      *spool, 120, "#!/bin/sh\ntouch started\nwhile [ ! -e go ]; do sleep 0.05; done\nexit 3\n",
      work_);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(work_ + "/started"); }));

  Start();
  const JobManager::Leftovers leftovers = manager_->TakeOverLeftovers();
  EXPECT_EQ(leftovers.adopted, 1);
  EXPECT_EQ(leftovers.killed, 0);
  EXPECT_EQ(manager_->JobIds(), std::vector<uint32_t>{120});
  EXPECT_EQ(manager_->LaunchedJobIds(), std::vector<uint32_t>{120});
  EXPECT_FALSE(ProcessGone(kept->script.pid));
  EXPECT_TRUE(sink_.KindsFor(120).empty());

  std::ofstream(work_ + "/go").close();
  std::optional<JobReport> ended = sink_.WaitFor(120, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->epoch(), 2u);
  EXPECT_EQ(ended->wait_status(), 3 << 8);
  EXPECT_EQ(ended->message(), "exit status 3");
  EXPECT_EQ(sys::ReapChild(kept->keeper.pid), 0);  // this test started it
  Terminate(120, 2);
  EXPECT_EQ(sink_.KindsFor(120),
            (std::vector<JobReport::Kind>{JobReport::BATCH_ENDED, JobReport::EPILOG_OK}));
  EXPECT_TRUE(spool->LoadRecords(nullptr).empty());
}

TEST_F(JobManagerTest, ReportsAnEndThatCameWhileNoAgentRanAndOnlyOnce) {
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  const std::string script = "#!/bin/sh\nexit 5\n";
  Result<KeptBatch> kept = KeepScript(*spool, 121, script, work_);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(sys::ReapChild(kept->keeper.pid), 0);
  // And job 122 ended too, its end already reported by the agent before.
  kept = KeepScript(*spool, 122, script, work_);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(sys::ReapChild(kept->keeper.pid), 0);
  ASSERT_EQ(rename(spool->ExitPath(122).c_str(), spool->ReportedPath(122).c_str()), 0);

  Start();
  EXPECT_EQ(manager_->TakeOverLeftovers().adopted, 2);
  std::optional<JobReport> ended = sink_.WaitFor(121, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->wait_status(), 5 << 8);
  Terminate(121, 2);
  Terminate(122, 2);
  EXPECT_EQ(sink_.KindsFor(122), std::vector<JobReport::Kind>{JobReport::EPILOG_OK});
}

TEST_F(JobManagerTest, SaysSoWhenAKeeperDiedWithoutTheStatus) {
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  Result<KeptBatch> kept = KeepScript(*spool, 123, "#!/bin/sh\nsleep 1000\n", work_);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  kill(kept->keeper.pid, SIGKILL);
  sys::ReapChild(kept->keeper.pid);

  Start();
  EXPECT_EQ(manager_->TakeOverLeftovers().adopted, 1);
  std::optional<JobReport> ended = sink_.WaitFor(123, JobReport::BATCH_ENDED);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->wait_status(), SIGKILL);
  EXPECT_EQ(ended->message().rfind("its keeper ended without recording how the script ended", 0),
            0u)
      << ended->message();
  Terminate(123, 2);  // the orphaned script ends with the job
  EXPECT_TRUE(ProcessGone(kept->script.pid));
}

TEST_F(JobManagerTest, EndsThePreviousAgentsSrunTasksButKeepsTheAllocation) {
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  Result<Spawned> task = SpawnSleeper();
  ASSERT_TRUE(task.ok());
  JobRecord record;
  record.job_id = 130;
  record.epoch = 1;
  record.tasks = {RecordedProcess{task->pid, task->start_ticks}};
  ASSERT_TRUE(spool->SaveRecord(record).ok());

  Start();
  const JobManager::Leftovers leftovers = manager_->TakeOverLeftovers();
  EXPECT_EQ(leftovers.adopted, 1);
  EXPECT_EQ(leftovers.killed, 1);
  int status = 0;
  ASSERT_EQ(waitpid(task->pid, &status, 0), task->pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(manager_->JobIds(), std::vector<uint32_t>{130});
  EXPECT_TRUE(manager_->LaunchedJobIds().empty());
  Terminate(130);
  EXPECT_EQ(sink_.KindsFor(130), std::vector<JobReport::Kind>{JobReport::EPILOG_OK});
}

// A step under gantry-stepd outlives its agent: the next one takes it over from the record,
// reaches its tasks through the FIFO (scancel -s) and ends them with the job.
TEST_F(JobManagerTest, TakesOverAnSrunStepThatOutlivedItsAgent) {
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  testing::FakeSrun srun;
  StepPlan plan = testing::PlanFor(
      srun, {"trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done"}, {0});
  const std::string control = spool->StepControlPath(131, 0);
  Spawned runner;
  {
    // The previous agent started it, then died.
    Result<std::shared_ptr<KeptStep>> kept = KeptStep::Open(control, /*create=*/true);
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    StepServer stepd(GANTRY_STEPD_BINARY);
    ASSERT_TRUE(stepd.Launch(plan, control).ok());
    runner = *stepd.Release();
    JobRecord record;
    record.job_id = 131;
    record.epoch = 1;
    record.steps = {RecordedStep{0, {runner.pid, runner.start_ticks}}};
    ASSERT_TRUE(spool->SaveRecord(record).ok());
  }
  srun.Accept();
  std::string out;
  ASSERT_TRUE(srun.ReadStdoutUntil("ready\n", &out));

  stepd_path_ = GANTRY_STEPD_BINARY;
  Start();
  const JobManager::Leftovers leftovers = manager_->TakeOverLeftovers();
  EXPECT_EQ(leftovers.adopted, 1);
  EXPECT_EQ(leftovers.killed, 0);
  ASSERT_TRUE(manager_->SignalJob(131, 1, SIGUSR1, gantry::v1::SIGNAL_STEPS).ok());
  ASSERT_TRUE(srun.ReadStdoutUntil("got-usr1\n", &out));
  Terminate(131);
  EXPECT_EQ(sys::ReapChild(runner.pid), 0);  // its gantry-stepd left once the step ended
  EXPECT_FALSE(std::filesystem::exists(control));
}

TEST_F(JobManagerTest, CleanUpLeavesAReusedPidAlone) {
  Result<Spool> spool = Spool::Open(tmp_ / "spool");
  ASSERT_TRUE(spool.ok());
  Result<Spawned> innocent = SpawnSleeper();
  ASSERT_TRUE(innocent.ok());
  // The record names the pid with another start time: the job's process is long gone.
  JobRecord record = RecordOf(101, 1, *innocent);
  ++record.start_ticks;
  ASSERT_TRUE(spool->SaveRecord(record).ok());
  Start();
  EXPECT_EQ(manager_->TakeOverLeftovers().killed, 1);
  EXPECT_FALSE(ProcessGone(innocent->pid));
  kill(innocent->pid, SIGKILL);
  waitpid(innocent->pid, nullptr, 0);
}

// scontrol suspend/resume reach the agent as SIGSTOP/SIGCONT for the whole job: the script and
// its children stop (cgroup freezer, else SIGSTOP) and continue; a suspended job still ends.
// `setsid`: the child leaves the job's session (only a cgroup still finds it).
void CheckSuspendAndResume(JobManager& manager, testing::RecordingSink& sink,
                           const std::string& work, uint32_t id, const std::string& node,
                           bool setsid) {
  gantry::v1::JobContext context = MakeJob(id, node, work);
  ASSERT_TRUE(manager.PrepareJob(context).ok());
  ASSERT_TRUE(sink.WaitFor(id, JobReport::PROLOG_OK).has_value());
  // Suspended while "configuring": the script starts stopped.
  ASSERT_TRUE(manager.SignalJob(id, 1, SIGSTOP, gantry::v1::SIGNAL_SUSPEND).ok());
  ASSERT_TRUE(manager
                  .LaunchBatch(context, MakePayload(std::string("#!/bin/bash\n") +
                                                    (setsid ? "setsid " : "") +
                                                    "bash -c 'i=0; while :; do "
                                                    "i=$((i+1)); echo $i > child.n; sleep 0.05; "
                                                    "done' &\n"
                                                    "i=0; while :; do i=$((i+1)); echo $i > "
                                                    "script.n; sleep 0.05; done\n"))
                  .ok());
  auto value = [&](const char* name) { return ReadFile(work + "/" + name); };
  auto still = [&](const char* name) {
    const std::string a = value(name);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return a == value(name);
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(still("script.n"));
  ASSERT_TRUE(manager.SignalJob(id, 1, SIGCONT, gantry::v1::SIGNAL_SUSPEND).ok());
  ASSERT_TRUE(Eventually([&] { return !value("child.n").empty() && !still("child.n"); }));
  // Running again: it advances (within Eventually's patience: a loaded machine may leave a
  // 400 ms window without a write).
  EXPECT_TRUE(Eventually([&] { return !still("script.n"); }));
  ASSERT_TRUE(manager.SignalJob(id, 1, SIGSTOP, gantry::v1::SIGNAL_SUSPEND).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(still("script.n"));
  EXPECT_TRUE(still("child.n"));
  // Only the controller's resume continues it: a user's CONT (any scope) is refused.
  for (auto scope :
       {gantry::v1::SIGNAL_STEPS, gantry::v1::SIGNAL_BATCH, gantry::v1::SIGNAL_WHOLE_JOB}) {
    EXPECT_EQ(manager.SignalJob(id, 1, SIGCONT, scope).code(), StatusCode::kFailedPrecondition);
  }
  EXPECT_TRUE(still("script.n"));
  // Terminating a suspended job: thaw/SIGCONT, SIGTERM, and everything goes.
  ASSERT_TRUE(manager.TerminateJob(id, 1, 1, {}).ok());
  ASSERT_TRUE(sink.WaitFor(id, JobReport::EPILOG_OK).has_value());
  EXPECT_TRUE(still("child.n"));
}

TEST_F(JobManagerTest, SuspendStopsEveryProcessBySignalAndResumeContinues) {
  Start("none");
  CheckSuspendAndResume(*manager_, sink_, work_, 44, node_, /*setsid=*/false);
}

TEST_F(JobManagerTest, SuspendFreezesTheJobsCgroup) {
  if (!testing::CgroupsUsable()) GTEST_SKIP() << "no writable cgroup v2 hierarchy";
  Start("");
  CheckSuspendAndResume(*manager_, sink_, work_, 45, node_, /*setsid=*/true);
}

}  // namespace

}  // namespace gantry::agent
