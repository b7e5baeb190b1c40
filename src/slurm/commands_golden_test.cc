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

#include "slurm/commands.h"
#include "slurm/fake_controller_test_util.h"
#include "slurm_remote/grpc_transport.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using testing::FakeController;

struct Case {
  Case(std::string u, std::string l, std::string in = "")
      : user(std::move(u)), line(std::move(l)), stdin_text(std::move(in)) {}
  std::string user;  // root, alice or bob
  std::string line;  // [VAR=value ...] command args...; $DIR is the fake's temp dir
  std::string stdin_text;
};

const std::map<std::string, uint32_t>& Users() {
  static const std::map<std::string, uint32_t> users = {
      {"root", 0}, {"alice", 1001}, {"bob", 1002}};
  return users;
}

// Splits like a shell for the simple lines used here: spaces separate, single quotes group.
std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::string current;
  bool quoted = false;
  bool have = false;
  for (char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      have = true;
    } else if (c == ' ' && !quoted) {
      if (have) words.push_back(current);
      current.clear();
      have = false;
    } else {
      current += c;
      have = true;
    }
  }
  if (have) words.push_back(current);
  return words;
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string Transcript(FakeController& fake, const std::vector<Case>& cases) {
  std::string out;
  for (const Case& c : cases) {
    std::vector<std::string> words = Words(Replace(c.line, "$DIR", fake.dir()));
    std::vector<std::string> env = {"GANTRY_CONF=" + fake.conf_path(), "HOME=/root"};
    while (!words.empty() && words[0].find('=') != std::string::npos) {
      const std::string key = words[0].substr(0, words[0].find('=') + 1);
      env.erase(std::remove_if(env.begin(), env.end(),
                               [&](const std::string& e) { return e.rfind(key, 0) == 0; }),
                env.end());
      env.push_back(words[0]);
      words.erase(words.begin());
    }
    const std::string command = words[0];
    words.erase(words.begin());

    std::istringstream in(c.stdin_text);
    std::ostringstream stdout_text;
    std::ostringstream stderr_text;
    CommandContext ctx;
    ctx.argv0 = command;
    ctx.in = &in;
    ctx.out = &stdout_text;
    ctx.err = &stderr_text;
    ctx.environment = env;
    ctx.cwd = "/tmp/anchor-verify";
    ctx.hostname = "vm";
    ctx.uid = Users().at(c.user);
    ctx.gid = ctx.uid;
    ctx.sid = 2742;
    ctx.now = testing::AnchorQueueNow();
    ctx.time_zone = &TimeZone::Utc();
    ctx.uid_of = [](std::string_view name) -> std::optional<uint32_t> {
      auto it = Users().find(std::string(name));
      if (it == Users().end()) return std::nullopt;
      return it->second;
    };
    ctx.user_name = [](uint32_t uid) -> std::optional<std::string> {
      for (const auto& [name, id] : Users()) {
        if (id == uid) return name;
      }
      return std::nullopt;
    };
    ctx.group_name = ctx.user_name;
    ctx.connect = [&ctx]() -> Result<std::unique_ptr<ControllerClient>> {
      std::string conf = *ctx.GetEnv("GANTRY_CONF");
      GANTRY_ASSIGN_OR_RETURN(ClientConfig config, LoadClientConfig(conf));
      return ControllerClient::Connect(config);
    };
    fake.caller_uid = ctx.uid;
    const int rc = RunSlurmCommand(command, words, ctx);
    std::string shown = c.line;
    if (!c.stdin_text.empty()) {
      shown += " <<< '" + Replace(Replace(c.stdin_text, "\r", "\\r"), "\n", "\\n") + "'";
    }
    out += "### as " + c.user + ": " + shown + "\n--- stdout:\n" + stdout_text.str() +
           "--- stderr:\n" + stderr_text.str() + "--- exit code: " + std::to_string(rc) + "\n\n";
  }
  return Replace(out, fake.dir(), "$DIR");
}

void CheckGolden(const std::string& name, const std::string& actual) {
  const char* update = std::getenv("GANTRY_UPDATE_GOLDEN");
  if (update != nullptr && *update != '\0') {
    std::ofstream(::gantry::testing::SourceRoot() / "tests" / "golden" / name) << actual;
    return;
  }
  EXPECT_EQ(actual, ::gantry::testing::ReadGolden(name));
}

TEST(CommandsGoldenTest, Squeue) {
  FakeController fake;
  CheckGolden("cmd-squeue.txt",
              Transcript(fake, {
                                   {"root", "squeue"},
                                   {"root", "squeue -l"},
                                   {"alice", "squeue --me"},
                                   {"root", "squeue -u alice -t R"},
                                   {"root", "squeue -j 21442"},
                                   {"root", "squeue -j21442,21441 -h"},
                                   {"root", "squeue -j 999999999"},
                                   {"root", "squeue -o '%i %j %T %l' -p high -h"},
                                   {"root", "squeue --start"},
                                   {"root", "squeue -S -i -h -o %i"},
                                   {"root", "SQUEUE_FORMAT=%i|%u squeue -n sweep,NIGHTLY"},
                                   {"root", "squeue -o '%i %Z'"},
                                   {"root", "squeue -t foo"},
                                   {"root", "squeue -j abc"},
                                   {"root", "squeue --foo"},
                                   {"root", "squeue -l -o %i"},
                                   {"root", "squeue extra"},
                                   {"root", "squeue -u nosuchuser"},
                                   {"root", "squeue --json"},
                                   {"root", "squeue -V"},
                               }));
}

TEST(CommandsGoldenTest, Sinfo) {
  FakeController fake;
  CheckGolden("cmd-sinfo.txt", Transcript(fake, {
                                                    {"root", "sinfo"},
                                                    {"root", "sinfo -s"},
                                                    {"root", "sinfo -N -l"},
                                                    {"root", "sinfo -N"},
                                                    {"root", "sinfo -l"},
                                                    {"root", "sinfo -p high -h"},
                                                    {"root", "sinfo -t idle"},
                                                    {"root", "sinfo -n gpu[2-3] -o '%N %c %m %G'"},
                                                    {"root", "sinfo -o '%P %Q'"},
                                                    {"root", "sinfo -t foo"},
                                                    {"root", "sinfo --foo"},
                                                }));
}

TEST(CommandsGoldenTest, Scontrol) {
  FakeController fake;
  CheckGolden(
      "cmd-scontrol.txt",
      Transcript(fake,
                 {
                     {"root", "scontrol show job 21441"},
                     {"root", "scontrol show -d job 21437"},
                     {"root", "scontrol -o show job 21445"},
                     {"root", "scontrol show job 999999999"},
                     {"root", "scontrol show job abc"},
                     {"root", "scontrol show node gpu1"},
                     {"root", "scontrol show node nosuch"},
                     {"root", "scontrol show partition high"},
                     {"root", "scontrol show config"},
                     {"root", "scontrol ping"},
                     {"root", "scontrol update NodeName=gpu2 State=DRAIN"},
                     {"root", "scontrol update NodeName=gpu2 State=BOGUS Reason=x"},
                     {"root", "scontrol update NodeName=gpu2"},
                     {"root", "scontrol update NodeName=gpu2 State=DRAIN 'Reason=disk errors'"},
                     {"root", "scontrol show node gpu2"},
                     {"root", "sinfo -R"},
                     {"root", "sinfo"},
                     {"root", "scontrol update NodeName=gpu2 State=RESUME"},
                     {"root", "scontrol update NodeName=nosuch State=RESUME"},
                     {"root", "scontrol update foo=bar"},
                     {"root", "scontrol hold 21442"},
                     {"alice", "scontrol hold 21443"},
                     {"alice", "scontrol update jobid=21443 TimeLimit=10"},
                     {"root", "scontrol hold abc"},
                     {"root", "scontrol requeue 999"},
                     {"root", "scontrol show hostnames gpu[1-3]"},
                     {"root", "scontrol show hostlist gpu1,gpu2,gpu3"},
                     {"root", "scontrol foo"},
                     {"root", "scontrol show"},
                     {"root", "scontrol show foo"},
                     {"root", "scontrol -V"},
                     {"root", "scontrol --foo"},
                 }));
  const std::vector<v1::UpdateJobRequest> updates = fake.update_jobs();
  ASSERT_GE(updates.size(), 2u);
  EXPECT_EQ(updates[0].action(), "hold");
  EXPECT_EQ(updates[2].action(), "update");
  EXPECT_EQ(updates[2].fields().at("TimeLimit"), "10");
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
  CheckGolden("cmd-scancel.txt", Transcript(fake, {
                                                      {"root", "scancel 21442"},
                                                      {"root", "scancel 999999999"},
                                                      {"root", "scancel -v 999999999"},
                                                      {"root", "scancel -s USR1 999999999"},
                                                      {"alice", "scancel 21441"},
                                                      {"alice", "scancel -s KILL 21441 21442"},
                                                      {"root", "scancel -u alice -t PD"},
                                                      {"root", "scancel"},
                                                      {"root", "scancel abc"},
                                                      {"root", "scancel -s FOO 5"},
                                                      {"root", "scancel -t foo"},
                                                      {"root", "scancel -u nosuchuser"},
                                                      {"root", "scancel --foo"},
                                                  }));
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

}  // namespace
}  // namespace gantry::slurm
