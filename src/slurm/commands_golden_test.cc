// Whole command runs against the fake controller, compared with transcripts in
// tests/golden/cmd-*.txt (stdout, stderr and exit code of each run, in the layout of the
// reference errors.txt). Run with GANTRY_UPDATE_GOLDEN=1 to rewrite the transcripts after an
// intended change, then review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "slurm/commands.h"
#include "slurm/fake_controller_test_util.h"
#include "slurm/transcript_test_util.h"
#include "slurm_remote/grpc_transport.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using testing::Case;
using testing::CheckGolden;
using testing::FakeController;
using testing::Replace;
using testing::SacctCases;
using testing::ScancelCases;
using testing::ScontrolCases;
using testing::SinfoCases;
using testing::SqueueCases;
using testing::StdoutOf;
using testing::Transcript;

TEST(CommandsGoldenTest, Squeue) {
  FakeController fake;
  CheckGolden("cmd-squeue.txt", Transcript(fake, SqueueCases()));
}

// The listings squeue makes itself from the records (GANTRY_SQUEUE_IN_CLIENT) are those the
// controller makes.
TEST(CommandsGoldenTest, SqueueMadeInTheCommandIsTheSame) {
  FakeController fake;
  std::vector<Case> in_client = SqueueCases();
  for (Case& c : in_client) c.line = "GANTRY_SQUEUE_IN_CLIENT=1 " + c.line;
  const std::string made_in_client = Transcript(fake, in_client);
  EXPECT_EQ(Replace(made_in_client, "GANTRY_SQUEUE_IN_CLIENT=1 ", ""),
            Transcript(fake, SqueueCases()));

  // Which side made them: the controller unless told otherwise or a column prints a time of day.
  Transcript(fake, {{"root", "squeue -l"}});
  EXPECT_TRUE(fake.last_get_jobs().has_squeue());
  Transcript(fake, {{"root", "squeue -o %V"}});
  EXPECT_FALSE(fake.last_get_jobs().has_squeue());
  Transcript(fake, {{"root", "GANTRY_SQUEUE_IN_CLIENT=1 squeue -l"}});
  EXPECT_FALSE(fake.last_get_jobs().has_squeue());
}

TEST(CommandsGoldenTest, Sinfo) {
  FakeController fake;
  CheckGolden("cmd-sinfo.txt", Transcript(fake, SinfoCases()));
}

TEST(CommandsGoldenTest, Scontrol) {
  FakeController fake;
  CheckGolden("cmd-scontrol.txt", Transcript(fake, ScontrolCases()));
  const std::vector<v1::UpdateJobRequest> updates = fake.update_jobs();
  ASSERT_GE(updates.size(), 2u);
  EXPECT_EQ(updates[0].action(), "hold");
  EXPECT_EQ(updates[2].action(), "update");
  EXPECT_EQ(updates[2].fields().at("TimeLimit"), "10");
}

// The fake's configuration as scontrol prints it (gantryd's own is in cmd-anchor-show-config).
TEST(CommandsGoldenTest, ScontrolShowConfig) {
  FakeController fake;
  CheckGolden("cmd-scontrol-config.txt", Transcript(fake, {{"root", "scontrol show config"}}));
}

// scontrol suspend/resume and update PartitionName=: the texts and exit codes were taken from
// the reference cluster (Slurm 22.05) running the same commands.
TEST(CommandsGoldenTest, ScontrolSuspendAndPartitionUpdate) {
  FakeController fake;
  CheckGolden(
      "cmd-scontrol-suspend.txt",
      Transcript(fake,
                 {
                     {"root", "scontrol suspend 21438"},
                     {"root", "squeue -j 21438 -o '%i %t'"},
                     {"root", "scontrol suspend 21438"},
                     {"root", "scontrol resume 21438"},
                     {"root", "scontrol resume 21438"},
                     {"alice", "scontrol suspend 21439"},
                     {"alice", "scontrol suspend 999999"},
                     {"root", "scontrol suspend 21442"},
                     {"root", "scontrol resume 21442"},
                     {"root", "scontrol suspend 999999"},
                     {"root", "scontrol resume 0"},
                     {"root", "scontrol suspend abc"},
                     {"root", "scontrol suspend abc,21438"},
                     {"root", "scontrol suspend 21438_1"},
                     {"root", "scontrol suspend"},
                     {"root", "scontrol -Q resume 21440"},
                     {"root", "scontrol su jobid=21438,21440,"},
                     {"root", "scontrol res 21438 21440 21438"},
                     {"root", "scontrol re 21438"},
                     {"root", "scontrol update PartitionName=high State=DRAIN"},
                     {"root", "sinfo -p high"},
                     {"root", "scontrol show partition high"},
                     {"alice", "scontrol update PartitionName=high State=UP"},
                     {"root", "scontrol update PartitionName=nosuch State=DOWN"},
                     {"root", "scontrol update PartitionName=high State=BOGUS"},
                     {"root", "scontrol update PartitionName=high State="},
                     {"root", "scontrol update PartitionName=high Foo=bar"},
                     {"root", "scontrol update PartitionName=high"},
                     {"root", "scontrol update PartitionName=high MaxTime=abc"},
                     {"root", "scontrol update PartitionName=high DefaultTime=NONE"},
                     {"root", "scontrol update State=inactive PartitionName=high"},
                     {"root", "sinfo -p high"},
                     {"root", "scontrol update PartitionName=high MaxTime=1:00:00"},
                     {"root", "scontrol update partition=high State=down"},
                     {"root", "sinfo -p high"},
                     {"root", "scontrol update PartitionName=high DefaultTime=10 MaxTime=INFINITE"},
                     {"root", "scontrol update PartitionName=high State=UP"},
                     {"root", "scontrol show partition high"},
                 }));
  const std::vector<v1::UpdateJobRequest> updates = fake.update_jobs();
  ASSERT_FALSE(updates.empty());
  EXPECT_EQ(updates[0].action(), "suspend");
}

TEST(CommandsGoldenTest, Sbatch) {
  FakeController fake;
  std::ofstream(fake.dir() + "/job.sh") << "#!/bin/bash\n"
                                           "#SBATCH -J train -p high\n"
                                           "#SBATCH --time=30 -N 2 --ntasks-per-node=4\n"
                                           "#SBATCH -o logs/%x-%j.out\n"
                                           "python train.py \"$@\"\n";
  std::ofstream(fake.dir() + "/bad_directive.sh") << "#!/bin/sh\n#SBATCH --bogus=1 arg\ntrue\n";
  std::ofstream(fake.dir() + "/old.sh") << "#!/bin/sh\n#SLURM -t 5\ntrue\n";
  CheckGolden(
      "cmd-sbatch.txt",
      Transcript(fake, {
                           {"root", "sbatch --wrap true"},
                           {"root", "sbatch --parsable --wrap hostname"},
                           {"alice", "sbatch $DIR/job.sh --lr 0.1"},
                           {"root", "sbatch", "#!/bin/sh\n#SBATCH -J from-stdin\nhostname\n"},
                           {"root", "sbatch -p nosuchpart --wrap true"},
                           {"root", "sbatch -A nosuchacct --wrap true"},
                           {"root", "sbatch -t abc --wrap true"},
                           {"root", "sbatch -t 99:99:99:99 --wrap true"},
                           {"root", "sbatch -N 3-2 --wrap true"},
                           {"root", "sbatch -N abc --wrap true"},
                           {"root", "sbatch -n 0 --wrap true"},
                           {"root", "sbatch --mem=2.5G --wrap true"},
                           {"root", "sbatch --mem=1G --mem-per-cpu=1G --wrap true"},
                           {"root", "sbatch --mail-type=foo --wrap true"},
                           {"root", "sbatch /nonexistent/script.sh"},
                           {"root", "sbatch"},
                           {"root", "sbatch", "\n\n"},
                           {"root", "sbatch", "echo hi\n"},
                           {"root", "sbatch", "#!/bin/sh\r\necho hi\r\n"},
                           {"root", "sbatch $DIR/bad_directive.sh"},
                           {"root", "sbatch $DIR/old.sh"},
                           {"root", "sbatch --foo"},
                           {"root", "sbatch -Z"},
                           {"root", "sbatch -t"},
                           {"root", "sbatch --ti=5 --wrap true"},
                           {"root", "sbatch --hold=3 --wrap true"},
                           {"root", "sbatch --wrap true extra.sh"},
                           {"root", "sbatch --array=0-3 --wrap true"},
                           {"root", "SBATCH_TIMELIMIT=abc sbatch -t 5 --wrap true"},
                           {"root", "SBATCH_PARTITION=high sbatch -J envtest --wrap true"},
                           {"root", "sbatch -V"},
                       }));
  // The last submission took its partition from SBATCH_PARTITION.
  const v1::SubmitJobRequest last = fake.last_submit();
  EXPECT_EQ(last.request().name(), "envtest");
  ASSERT_EQ(last.request().partitions_size(), 1);
  EXPECT_EQ(last.request().partitions(0), "high");
}

TEST(CommandsGoldenTest, SbatchSendsWhatTheScriptAsks) {
  FakeController fake;
  std::ofstream(fake.dir() + "/job.sh") << "#!/bin/bash\n"
                                           "#SBATCH -J train -p high\n"
                                           "#SBATCH --time=30 -N 2 --ntasks-per-node=4\n"
                                           "#SBATCH -o logs/%x-%j.out --mem-per-cpu=4G\n"
                                           "python train.py\n";
  Transcript(fake, {{"alice",
                     "SBATCH_TIMELIMIT=45 sbatch -t 60 --begin=now+1hour -H "
                     "--export=NONE,WANDB_MODE=offline $DIR/job.sh --lr 0.1"}});
  const v1::SubmitJobRequest s = fake.last_submit();
  const v1::JobRequest& r = s.request();
  EXPECT_EQ(r.name(), "train");
  EXPECT_EQ(r.partitions(0), "high");
  EXPECT_EQ(r.time_limit_min(), 60u);  // command line over environment over script
  EXPECT_EQ(r.min_nodes(), 2u);
  EXPECT_EQ(r.max_nodes(), 2u);
  EXPECT_EQ(r.ntasks_per_node(), 4u);
  EXPECT_EQ(r.mem_per_cpu_mb(), 4096u);
  EXPECT_EQ(r.std_out(), "logs/%x-%j.out");
  EXPECT_TRUE(r.hold());
  EXPECT_EQ(r.begin_time(), testing::AnchorQueueNow() + 3600);
  EXPECT_EQ(r.command(), fake.dir() + "/job.sh");
  EXPECT_EQ(r.work_dir(), "/tmp/anchor-verify");
  EXPECT_EQ(r.submit_host(), "vm");
  EXPECT_EQ(r.alloc_sid(), 2742u);
  EXPECT_EQ(r.export_env(), "NONE,WANDB_MODE=offline");
  EXPECT_EQ(s.payload().argv_size(), 2);
  EXPECT_NE(s.payload().script().find("python train.py"), std::string::npos);
  const std::vector<std::string> env(s.payload().environment().begin(),
                                     s.payload().environment().end());
  EXPECT_EQ(env, (std::vector<std::string>{
                     "SLURM_PRIO_PROCESS=0", "SLURM_SUBMIT_DIR=/tmp/anchor-verify",
                     "SLURM_SUBMIT_HOST=vm", "SLURM_UMASK=022",
                     "SLURM_EXPORT_ENV=NONE,WANDB_MODE=offline", "WANDB_MODE=offline"}));
}

TEST(CommandsGoldenTest, Scancel) {
  FakeController fake;
  CheckGolden("cmd-scancel.txt", Transcript(fake, ScancelCases()));
  const v1::SignalJobRequest last = fake.last_signal();
  EXPECT_EQ(last.user(), "1001");
  ASSERT_EQ(last.states_size(), 1);
  EXPECT_EQ(last.states(0), "PENDING");
}

TEST(CommandsGoldenTest, UnreachableController) {
  FakeController fake;
  const std::string down = fake.dir() + "/down.conf";
  std::ofstream(down) << "ClusterName=anchor\nControllerSocket=" << fake.dir() << "/nosuch.sock\n";
  const std::string conf = "GANTRY_CONF=$DIR/down.conf ";
  CheckGolden("cmd-unreachable.txt",
              Transcript(fake, {
                                   {"root", conf + "squeue"},
                                   {"root", conf + "sinfo"},
                                   {"root", conf + "sbatch --wrap true"},
                                   {"root", conf + "scancel 5"},
                                   {"root", conf + "scancel -u alice"},
                                   {"root", conf + "scontrol show job 5"},
                                   {"root", conf + "scontrol show node"},
                                   {"root", conf + "scontrol show partition"},
                                   {"root", conf + "scontrol show config"},
                                   {"root", conf + "scontrol update NodeName=gpu1 State=RESUME"},
                                   {"root", conf + "scontrol ping"},
                                   {"root", "GANTRY_CONF=/nonexistent/gantry.conf squeue"},
                               }));
}

// The two transports are interchangeable: the same commands print the same over gRPC (what
// gantry-slurm-remote uses) as over the command socket (what gantry-slurm uses).
TEST(CommandsGoldenTest, GrpcTransportPrintsTheSame) {
  UseGrpcForRemoteControllers();
  FakeController frames;
  FakeController grpc(FakeController::Transport::kGrpc);
  const std::vector<Case> cases = {
      {"root", "squeue"},
      {"root", "sinfo"},
      {"alice", "sbatch -J t --wrap true"},
      {"alice", "scancel 999999"},
      {"bob", "scancel 5"},
      {"root", "scontrol show node"},
      {"root", "scontrol update NodeName=nosuch State=DRAIN Reason=x"},
      {"root", "scontrol ping"},
  };
  EXPECT_EQ(Transcript(frames, cases), Transcript(grpc, cases));
  SetRemoteConnector(nullptr);
}

// Without a registered gRPC transport (gantry-slurm), a controller reachable only over gRPC is
// "connect failure" inside the process: SlurmMain hands such calls to gantry-slurm-remote first.
TEST(CommandsGoldenTest, GrpcOnlyControllerNeedsTheRemoteTransport) {
  ASSERT_FALSE(HasRemoteConnector());
  FakeController grpc(FakeController::Transport::kGrpc);
  const std::string out = Transcript(grpc, {{"root", "squeue"}});
  EXPECT_NE(out.find("Unable to contact slurm controller (connect failure)"), std::string::npos)
      << out;
}

TEST(CommandsGoldenTest, Sacct) {
  FakeController fake;
  for (const v1::Job& job : testing::AnchorSacctHistory()) fake.AddHistoryJob(job);
  std::ofstream(fake.dir() + "/down.conf")
      << "ClusterName=anchor\nControllerSocket=" << fake.dir() << "/nosuch.sock\n";
  CheckGolden("cmd-sacct.txt", Transcript(fake, SacctCases()));
  const v1::GetJobsRequest last = fake.last_get_jobs();
  EXPECT_TRUE(last.history());
  EXPECT_EQ(last.user_ids_size(), 0);
}

// What the Slurm 22.05 reference cluster held for 2026-12-03 07:00-10:00: its jobs of that time
// (sacct -D, as real sreport counted them), its associations and its four 64-CPU nodes,
// registered since before 07:00. tests/golden/cmd-anchor-sreport.txt is what real sreport
// printed for them.
void AddSreportReference(FakeController& fake) {
  using S = model::JobBaseState;
  struct Spec {
    uint32_t id;
    uint32_t uid;
    const char* partition;
    uint32_t cpus;       // allocated
    uint32_t requested;  // ReqCPUS
    const char* submit;  // times: hh:mm:ss on 2026-12-03; "" for None
    const char* eligible;
    const char* start;
    const char* end;
    S state;
    const char* nodes;  // hostlist
  };
  const Spec specs[] = {
      {26312, 0, "a4", 1, 1, "07:32:16", "07:32:16", "07:32:16", "07:32:17", S::kCompleted, "gpu1"},
      {26317, 1001, "high", 2, 2, "07:38:51", "08:38:51", "07:38:52", "07:38:52", S::kCancelled,
       ""},
      // 26320 and 26321 ran once before they were requeued; Gantry would keep only their last
      // record, so their first runs stand here as two jobs of their own.
      {26318, 0, "a4", 1, 1, "07:42:36", "07:42:36", "07:42:37", "07:42:40", S::kCompleted, "gpu1"},
      {26319, 0, "a4", 1, 1, "07:42:36", "07:42:36", "07:42:37", "07:42:40", S::kCompleted, "gpu1"},
      {26320, 0, "a4", 1, 1, "07:42:40", "07:44:41", "07:42:41", "07:42:41", S::kCancelled, ""},
      {26321, 0, "a4", 1, 1, "07:42:40", "07:44:41", "07:42:41", "07:42:41", S::kCancelled, ""},
      {26326, 0, "a4", 256, 4, "08:39:04", "08:39:09", "08:39:09", "08:39:24", S::kCancelled,
       "gpu[1-4]"},
      {26325, 0, "a4", 4, 4, "08:39:04", "08:39:09", "", "08:39:24", S::kCancelled, ""},
      {26329, 0, "a4", 1, 1, "08:39:24", "08:39:24", "08:39:24", "08:39:24", S::kCompleted, "gpu1"},
      {26330, 0, "a4", 1, 1, "08:39:24", "08:39:24", "08:39:24", "08:39:24", S::kCompleted, "gpu1"},
      {26327, 0, "a4", 1, 1, "08:39:24", "08:39:26", "08:39:26", "08:39:26", S::kCompleted, "gpu1"},
      {26331, 0, "a4", 1, 1, "08:39:24", "08:39:24", "08:39:24", "08:39:24", S::kCompleted, "gpu1"},
      {26328, 0, "a4", 1, 1, "08:39:24", "08:39:24", "08:39:24", "08:39:24", S::kCompleted, "gpu1"},
      {26333, 0, "a4", 1, 1, "08:39:36", "08:39:36", "08:39:46", "08:44:46", S::kCompleted, "gpu1"},
      {26338, 0, "a4", 1, 1, "08:39:36", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26339, 0, "a4", 1, 1, "08:39:36", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26334, 0, "a4", 1, 1, "08:39:36", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26335, 0, "a4", 1, 1, "08:39:36", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26340, 0, "a4", 1, 1, "08:39:42", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26341, 0, "a4", 1, 1, "08:39:42", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26337, 0, "a4", 1, 1, "08:39:42", "08:39:46", "08:39:46", "08:39:46", S::kCompleted, "gpu1"},
      {26343, 1001, "a4", 1, 1, "09:07:43", "09:07:43", "09:07:44", "09:09:01", S::kCancelled,
       "gpu1"},
      {26345, 1001, "a4", 1, 1, "09:08:18", "09:08:18", "09:08:26", "09:08:26", S::kCompleted,
       "gpu1"},
      {26347, 1001, "high", 1, 1, "09:10:31", "09:10:41", "09:10:41", "09:11:08", S::kCancelled,
       "gpu1"},
      {26348, 1001, "high", 1, 1, "09:10:31", "09:11:06", "09:11:06", "09:11:08", S::kCancelled,
       "gpu1"},
      {26349, 1001, "high", 1, 1, "09:10:59", "09:10:59", "09:11:06", "09:11:06", S::kCompleted,
       "gpu1"},
      {26350, 1001, "a4", 1, 1, "09:12:28", "09:12:28", "09:12:29", "09:12:32", S::kCancelled,
       "gpu1"},
  };
  auto at = [](const char* hms) {
    return *hms ? testing::At(std::string("2026-12-03T") + hms) : UnixTime{0};
  };
  for (const Spec& s : specs) {
    v1::Job job;
    job.set_job_id(s.id);
    const bool alice = s.uid == 1001;
    job.set_user_id(s.uid);
    job.set_group_id(s.uid);
    job.set_user_name(alice ? "alice" : "root");
    job.set_group_name(alice ? "alice" : "root");
    job.mutable_request()->set_account(alice ? "research" : "root");
    job.mutable_request()->add_partitions(s.partition);
    job.mutable_request()->set_num_tasks(s.requested);
    job.set_partition(s.partition);
    job.set_state(static_cast<uint32_t>(s.state));
    job.set_submit_time(at(s.submit));
    job.set_eligible_time(at(s.eligible));
    job.set_start_time(at(s.start));
    job.set_end_time(at(s.end));
    if (*s.start) job.set_num_cpus(s.cpus);
    if (std::string(s.nodes) == "gpu[1-4]") {
      for (const char* n : {"gpu1", "gpu2", "gpu3", "gpu4"}) job.add_nodes(n);
    } else if (*s.nodes) {
      job.add_nodes(s.nodes);
    }
    if (s.id == 26343) {  // suspended 22 s: 16 s run, then resumed at 09:08:22
      job.set_pre_suspend_secs(16);
      job.set_suspend_time(at("09:08:22"));
    }
    fake.AddHistoryJob(job);
  }
  v1::AccountingDb db;
  for (auto [name, parent] : std::vector<std::pair<const char*, const char*>>{
           {"root", ""}, {"prod", "root"}, {"research", "root"}}) {
    v1::Account* a = db.add_accounts();
    a->set_name(name);
    a->set_parent(parent);
  }
  for (auto [name, account] : std::vector<std::pair<const char*, const char*>>{
           {"root", "root"}, {"alice", "research"}, {"bob", "prod"}}) {
    v1::AccountingUser* u = db.add_users();
    u->set_name(name);
    u->set_default_account(account);
  }
  struct Assoc {
    uint32_t id;
    const char* account;
    const char* user;
    const char* partition;
  };
  for (const Assoc& a : {Assoc{1, "root", "", ""}, Assoc{2, "root", "root", ""},
                         Assoc{3, "research", "", ""}, Assoc{4, "prod", "", ""},
                         Assoc{5, "prod", "root", "a4"}, Assoc{6, "research", "alice", "a4"},
                         Assoc{7, "prod", "bob", "a4"}, Assoc{8, "prod", "root", "high"},
                         Assoc{9, "research", "alice", "high"}, Assoc{10, "prod", "bob", "high"}}) {
    v1::Association* out = db.add_associations();
    out->set_id(a.id);
    out->set_account(a.account);
    out->set_user(a.user);
    out->set_partition(a.partition);
  }
  fake.SetAccounting(db);
  fake.boot_time = testing::At("2026-12-03T06:00:00");
}

// The command lines of tests/golden/cmd-anchor-sreport.cmds ("<<< 'text'" is standard input).
std::vector<Case> SreportCases() {
  std::vector<Case> cases;
  std::istringstream lines(::gantry::testing::ReadGolden("cmd-anchor-sreport.cmds"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string input;
    if (const size_t feed = line.find(" <<< '"); feed != std::string::npos) {
      input = Replace(line.substr(feed + 6, line.size() - feed - 7), "\\n", "\n");
      line.resize(feed);
    }
    cases.emplace_back("root", line, input);
  }
  return cases;
}

// sreport against the reference's records prints what real sreport printed for them, byte for
// byte (the transcript was captured from Slurm, not from Gantry: never rewrite it with
// GANTRY_UPDATE_GOLDEN; tests/golden/sreport_anchor_capture.py makes it).
TEST(CommandsGoldenTest, SreportMatchesTheReference) {
  FakeController fake;
  fake.ClearJobs();
  AddSreportReference(fake);
  const UnixTime now = testing::At("2026-12-03T17:50:00");
  fake.now = now;
  const std::string actual = Transcript(fake, SreportCases(), now);
  EXPECT_EQ(actual, ::gantry::testing::ReadGolden("cmd-anchor-sreport.txt"));
}

}  // namespace
}  // namespace gantry::slurm

namespace gantry::slurm {
namespace {

// The reference cluster's weights and its three pending jobs' factors when sprio was captured
// (sched/priority_test.cc computes the same factors from that cluster's state).
v1::GetPrioritiesReply AnchorPriorities() {
  v1::GetPrioritiesReply reply;
  v1::PriorityWeights& w = *reply.mutable_weights();
  w.set_multifactor(true);
  w.set_age(1000);
  w.set_fairshare(10000);
  w.set_job_size(1000);
  w.set_partition(1000);
  w.set_qos(1000);
  w.add_tres_names("cpu");
  w.add_tres_weights(100);
  w.add_tres_names("mem");
  w.add_tres_weights(150);
  struct Job {
    uint32_t id;
    const char* partition;
    const char* user;
    uint32_t priority;
    double fairshare;
    double job_size;
    double cpu;
    double mem;
  };
  for (const Job& j : {Job{21442, "a4", "alice", 2637, 1.0 / 7, 0.1875, 0.125, 0.0625},
                       Job{21448, "a4", "alice", 3016, 1.0 / 7, 0.5, 0.5, 0.25},
                       Job{21449, "high", "root", 5579, 3.0 / 7, 0.25, 0.25, 0.125}}) {
    v1::JobPriority& p = *reply.add_jobs();
    p.set_job_id(j.id);
    p.set_partition(j.partition);
    p.set_user(j.user);
    p.set_priority(j.priority);
    p.set_fairshare(j.fairshare);
    p.set_job_size(j.job_size);
    p.set_partition_factor(1);
    p.add_tres(j.cpu);
    p.add_tres(j.mem);
  }
  // sshare -a's rows at the same time.
  struct Share {
    int depth;
    const char* account;
    const char* user;
    double norm_shares;
    double raw_usage;
    double effective_usage;
    double fair_share;
  };
  for (const Share& s : {Share{0, "root", "", 0, 272546, 1, 0},
                         Share{1, "root", "root", 0.333333, 77845, 0.320087, 3.0 / 7},
                         Share{1, "prod", "", 0.333333, 20823, 0.073342, 0},
                         Share{2, "prod", "bob", 0.25, 19260, 0.918641, 4.0 / 7},
                         Share{2, "prod", "bob", 0.25, 1336, 0.068672, 5.0 / 7},
                         Share{2, "prod", "root", 0.25, 0, 0, 1},
                         Share{2, "prod", "root", 0.25, 226, 0.012687, 6.0 / 7},
                         Share{1, "research", "", 0.333333, 173878, 0.606571, 0},
                         Share{2, "research", "alice", 0.5, 0, 0, 2.0 / 7},
                         Share{2, "research", "alice", 0.5, 173878, 1, 1.0 / 7}}) {
    v1::ShareInfo& row = *reply.add_shares();
    row.set_depth(s.depth);
    row.set_account(s.account);
    row.set_user(s.user);
    row.set_raw_shares(1);
    row.set_norm_shares(s.norm_shares);
    row.set_raw_usage(s.raw_usage);
    row.set_effective_usage(s.effective_usage);
    row.set_fair_share(s.fair_share);
  }
  return reply;
}

// sprio and sshare print the reference cluster's values byte for byte as its sprio and sshare
// did (tests/golden/cmd-anchor-sprio*.txt, cmd-anchor-sshare*.txt are those captures).
TEST(CommandsGoldenTest, SprioAndSshareMatchTheReferenceCluster) {
  FakeController fake;
  fake.SetPriorities(AnchorPriorities());
  for (const testing::Captured& c : testing::SprioAndSshareCaptures()) {
    EXPECT_EQ(StdoutOf(fake, c.command.user, c.command.line),
              ::gantry::testing::ReadGolden(c.golden))
        << c.command.line;
  }
  // Filters, sorting and errors.
  EXPECT_EQ(StdoutOf(fake, "root", "sprio -h -u root -o '%i %u %Y'"), "21449 root 5579\n");
  EXPECT_EQ(StdoutOf(fake, "root", "sprio -h -S -y -o %i"), "21449\n21448\n21442\n");
  EXPECT_EQ(StdoutOf(fake, "root", "sprio -j 7"),
            "Unable to find jobs matching user/id(s) specified\n");
  EXPECT_EQ(StdoutOf(fake, "root", "sprio -h -n -j 21442 -o '%.10y %f %j %t'"),
            "0.00000061 0.1428571 0.1875000 cpu=0.12,mem=0.06\n");
  v1::GetPrioritiesReply basic = AnchorPriorities();
  basic.mutable_weights()->set_multifactor(false);
  fake.SetPriorities(basic);
  const std::string t = Transcript(fake, {{"root", "sprio"}});
  EXPECT_NE(t.find("You are not running a supported priority plugin\n(priority/basic).\n"
                   "Only 'priority/multifactor' is supported.\n--- exit code: 1"),
            std::string::npos)
      << t;
}

void AddRpcStat(google::protobuf::RepeatedPtrField<v1::RpcStat>* table, uint32_t id, uint32_t count,
                uint64_t total_usec) {
  v1::RpcStat* stat = table->Add();
  stat->set_id(id);
  stat->set_count(count);
  stat->set_total_usec(total_usec);
}

// The reference cluster's counters when its sdiag was captured (outputs/sdiag.txt), the RPC
// types in the order slurmctld first saw them.
v1::GetStatsReply AnchorStats() {
  v1::GetStatsReply s;
  s.set_time(1796212009);
  s.set_since(1796211482);
  s.set_server_thread_count(3);
  s.set_jobs_submitted(73);
  s.set_jobs_started(43);
  s.set_jobs_completed(10);
  s.set_jobs_canceled(44);
  s.set_job_states_time(1796211992);
  s.set_jobs_pending(12);
  s.set_jobs_running(4);
  s.set_schedule_cycle_last(5039);
  s.set_schedule_cycle_max(5039);
  s.set_schedule_cycle_counter(41);
  s.set_schedule_cycle_sum(908 * 41);
  s.set_schedule_cycle_depth(41);
  s.set_schedule_queue_len(5);
  s.set_bf_when_last_cycle(1796211309);
  s.set_gettimeofday_latency_usec(27);
  const std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> types = {
      {4027, 4, 1774},     {1002, 4, 4973},    {2009, 313, 106004}, {2049, 285, 149951},
      {2021, 280, 109033}, {4003, 72, 106532}, {5032, 48, 327333},  {6012, 46, 15713},
      {5018, 39, 46386},   {2003, 32, 16784},  {2007, 16, 10155},   {10001, 12, 25483},
      {5016, 9, 5130},     {2026, 7, 3352},    {2039, 5, 2636},     {5001, 5, 5976},
      {2022, 5, 2628},     {1008, 4, 1992},    {3001, 2, 1123},     {4001, 2, 2077},
      {2001, 2, 2694},     {2035, 1, 406},     {4019, 1, 256},      {5017, 1, 1182}};
  for (const auto& [id, count, total] : types) AddRpcStat(s.mutable_rpc_types(), id, count, total);
  AddRpcStat(s.mutable_rpc_users(), 1003, 2, 1453);
  AddRpcStat(s.mutable_rpc_users(), 64030, 12, 25483);
  AddRpcStat(s.mutable_rpc_users(), 0, 1108, 827926);
  AddRpcStat(s.mutable_rpc_users(), 1002, 20, 25889);
  AddRpcStat(s.mutable_rpc_users(), 1001, 53, 68822);
  return s;
}

// sdiag prints the reference cluster's counters as its sdiag did: main cycles only, then a pass
// with backfill (the benchmark's capture with 10k pending jobs).
TEST(CommandsGoldenTest, SdiagMatchesTheReferenceCluster) {
  FakeController fake;
  fake.SetStats(AnchorStats());
  EXPECT_EQ(StdoutOf(fake, "root", "sdiag"), ::gantry::testing::ReadGolden("cmd-anchor-sdiag.txt"));

  v1::GetStatsReply bf;
  bf.set_time(1796210094);
  bf.set_since(1796210043);
  bf.set_server_thread_count(3);
  bf.set_job_states_time(1796210094);
  bf.set_jobs_pending(10000);
  bf.set_jobs_running(4);
  bf.set_schedule_cycle_last(133776);
  bf.set_schedule_cycle_max(133776);
  bf.set_schedule_cycle_counter(1);
  bf.set_schedule_cycle_sum(133776);
  bf.set_schedule_cycle_depth(500);
  bf.set_schedule_queue_len(10000);
  bf.set_bf_cycle_counter(1);
  bf.set_bf_when_last_cycle(1796210092);
  bf.set_bf_cycle_last(128592);
  bf.set_bf_cycle_max(128592);
  bf.set_bf_cycle_sum(128592);
  bf.set_bf_last_depth(500);
  bf.set_bf_last_depth_try(500);
  bf.set_bf_depth_sum(500);
  bf.set_bf_depth_try_sum(500);
  bf.set_bf_queue_len(10000);
  bf.set_bf_queue_len_sum(10000);
  bf.set_bf_table_size(1);
  bf.set_bf_table_size_sum(1);
  bf.set_gettimeofday_latency_usec(24);
  AddRpcStat(bf.mutable_rpc_types(), 2035, 11, 4732);
  AddRpcStat(bf.mutable_rpc_users(), 0, 11, 4732);
  fake.SetStats(bf);
  EXPECT_EQ(StdoutOf(fake, "root", "sdiag"),
            ::gantry::testing::ReadGolden("cmd-anchor-sdiag-backfill.txt"));
}

// The RPC tables' orders, reset, options and errors as sdiag 22.05 prints them.
TEST(CommandsGoldenTest, SdiagSortsResetsAndReportsErrors) {
  FakeController fake;
  v1::GetStatsReply s = AnchorStats();
  v1::RpcStat* pending = s.add_pending_rpcs();
  pending->set_id(4003);
  pending->set_count(2);
  fake.SetStats(s);
  auto table = [&](const std::string& line) {
    const std::string out = StdoutOf(fake, "root", line);
    const size_t begin = out.find("by message type\n") + 17;
    std::vector<std::string> ids;
    for (size_t at = out.find('(', begin); at < out.find("by user"); at = out.find('(', at + 1)) {
      ids.push_back(out.substr(at + 1, 5));
    }
    return ids.size() > 3 ? std::vector<std::string>(ids.begin(), ids.begin() + 3) : ids;
  };
  EXPECT_EQ(table("sdiag -i"), (std::vector<std::string>{" 1002", " 1008", " 2001"}));
  EXPECT_EQ(table("sdiag -t"), (std::vector<std::string>{" 5032", " 2049", " 2021"}));
  EXPECT_EQ(table("sdiag --sort-by-time2"), (std::vector<std::string>{" 5032", "10001", " 4003"}));
  EXPECT_NE(StdoutOf(fake, "root", "sdiag")
                .find("Pending RPC statistics\n\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) "
                      "count:2     \n"),
            std::string::npos);
  CheckGolden("cmd-sdiag.txt", Transcript(fake, testing::SdiagCases()));
  EXPECT_EQ(fake.stats_resets(), 1);
}

}  // namespace
}  // namespace gantry::slurm
