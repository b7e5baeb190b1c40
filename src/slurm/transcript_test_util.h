// Test helper (header only): whole Slurm command runs against a controller that serves the
// reference cluster ("anchor") on a command socket, as a transcript: stdout, stderr and exit code
// of each run, in the layout of the reference errors.txt, compared with tests/golden/cmd-*.txt.
// The controller is any class with dir() (a temp dir, written $DIR in transcripts), conf_path()
// (a gantry.conf naming its sockets) and `caller_uid` (who the next call comes from): the fake
// (fake_controller_test_util.h) or gantryd's own controller (ctld/controller_golden_test.cc).
// Run with GANTRY_UPDATE_GOLDEN=1 to rewrite a transcript after an intended change.
#ifndef GANTRY_SLURM_TRANSCRIPT_TEST_UTIL_H_
#define GANTRY_SLURM_TRANSCRIPT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "slurm/client_config.h"
#include "slurm/command_context.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"
#include "slurm_view/anchor_records_test_util.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm::testing {

struct Case {
  Case(std::string u, std::string l, std::string in = "")
      : user(std::move(u)), line(std::move(l)), stdin_text(std::move(in)) {}
  std::string user;  // root, alice or bob
  std::string line;  // [VAR=value ...] command args...; $DIR is the fake's temp dir
  std::string stdin_text;
};

inline const std::map<std::string, uint32_t>& Users() {
  static const std::map<std::string, uint32_t> users = {
      {"root", 0}, {"alice", 1001}, {"bob", 1002}, {"carol", 1003}, {"slurm", 64030}};
  return users;
}

// Splits like a shell for the simple lines used here: spaces separate, single quotes group.
inline std::vector<std::string> Words(const std::string& line) {
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

inline std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

template <typename Controller>
std::string Transcript(Controller& fake, const std::vector<Case>& cases,
                       UnixTime now = AnchorQueueNow()) {
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
    ctx.now = now;
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
    ctx.user_comment = [](std::string_view name) -> std::optional<std::string> {
      if (!Users().contains(std::string(name))) return std::nullopt;
      return name == "root" ? "root" : "";  // the reference machine's passwd comments
    };
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

// What one command printed on stdout (from a Transcript of that command alone).
template <typename Controller>
std::string StdoutOf(Controller& controller, const std::string& user, const std::string& line) {
  const std::string t = Transcript(controller, {{user, line}});
  const size_t begin = t.find("--- stdout:\n") + 12;
  return t.substr(begin, t.find("--- stderr:") - begin);
}

inline void CheckGolden(const std::string& name, const std::string& actual) {
  const char* update = std::getenv("GANTRY_UPDATE_GOLDEN");
  if (update != nullptr && *update != '\0') {
    std::ofstream(::gantry::testing::SourceRoot() / "tests" / "golden" / name) << actual;
    return;
  }
  EXPECT_EQ(actual, ::gantry::testing::ReadGolden(name));
}

inline std::vector<Case> SqueueCases() {
  return {
      {"root", "squeue"},
      {"root", "squeue -l"},
      {"alice", "squeue --me"},
      {"root", "squeue -u alice -t R"},
      {"root", "squeue -j 21442"},
      {"root", "squeue -j21442,21441 -h"},
      {"root", "squeue -j 999999999"},
      {"root", "squeue -j 21444_4 -h"},
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
      {"root", "squeue -O JobID:10,Name:.20,UserName,State,ReasonList"},
      {"root", "squeue -O jobid,name:5,Foo,state:.3X,reasonlist:0 -h"},
      {"root", "SQUEUE_FORMAT2=jobid:8,cluster:.8 squeue -t R"},
      {"root", "squeue -o %i -O jobid"},
      {"root", "squeue -O jobid -o %i"},
      {"root", "squeue -V"},
  };
}

inline std::vector<Case> SinfoCases() {
  return {
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
      {"root", "sinfo -O 'partition:.5X,Foo:7,nodelist:3,cpus:.4|'"},
      {"root", "sinfo -O nodes -o '%P %D'"},
      {"root", "sinfo --json -p high -o %P"},
  };
}

// scontrol's shows, updates and refusals, in order (later lines see earlier changes).
inline std::vector<Case> ScontrolCases() {
  return {
      {"root", "scontrol show job 21441"},
      {"root", "scontrol show -d job 21437"},
      {"root", "scontrol -o show job 21445"},
      {"root", "scontrol show job 999999999"},
      {"root", "scontrol show job abc"},
      {"root", "scontrol show node gpu1"},
      {"root", "scontrol show node nosuch"},
      {"root", "scontrol show partition high"},
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
  };
}

inline std::vector<Case> ScancelCases() {
  return {
      {"root", "scancel 21448"},  // no later line names it: the fake keeps no state
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
  };
}

// sacct on AnchorSacctHistory() (and AnchorQueue()); the last case reads $DIR/down.conf, a
// configuration naming a controller socket that does not exist.
inline std::vector<Case> SacctCases() {
  const std::string ids = "26301,26302,26303,26304,26305,26306,26307,26308,26309";
  const std::string f1 =
      "JobID,JobIDRaw,JobName,Partition,Account,AllocCPUS,State,ExitCode,Elapsed,ElapsedRaw,"
      "Start,End,Submit,Eligible";
  const std::string f2 =
      "JobID,User,UID,Group,GID,NodeList,NNodes,NCPUS,Timelimit,TimelimitRaw,WorkDir,Reason,"
      "Priority,QOS,Comment,ReqCPUS,ReqMem,ReqNodes,Cluster,DerivedExitCode,AllocTRES,ReqTRES";
  return {
      {"root", "sacct -j " + ids},
      {"root", "sacct -j " + ids + " -P"},
      {"root", "sacct -j " + ids + " -p"},
      {"root", "sacct -j " + ids + " -X -n"},
      {"root", "sacct -j " + ids + " --format=" + f1 + " -P"},
      {"root", "sacct -j " + ids + " --format=" + f2 + ",AllocNodes -P"},
      {"root", "sacct -j " + ids + " --format=" + f1},
      {"root", "sacct -j " + ids + " --format=" + f2},
      {"root", "sacct -j " + ids + " -b"},
      {"root", "sacct -j " + ids + " -l"},
      {"alice", "sacct -X -n"},
      {"alice", "sacct -j 26309 -X -n"},
      {"alice", "sacct -u root -X -n -o jobid,user,state"},
      {"bob", "sacct -X -n"},
      {"root", "sacct -s R -X -o jobid,jobname,state,start,end"},
      {"root", "sacct -s CA -S 11:46 -E now -X -o jobid,state"},
      {"root", "sacct --name=ok,bad-exit -X -n"},
      {"root", "sacct -j 26301.batch -P"},
      {"root", "sacct -j 26301.batch -X -P"},
      {"root", "sacct -j 26301,26301.batch -P"},
      {"root", "sacct -j 26301.batch,26302 -P"},
      {"root", "sacct -j 26301.extern -P"},
      {"root", "sacct -j 99999999 -P"},
      {"root", "sacct -j 26303 -o jobid%5,jobname%-15,state%20,exitcode%3"},
      {"root", "SACCT_FORMAT=jobid,state sacct -j 26303 -P"},
      {"root", "sacct -j 26301.foo"},
      {"root", "sacct -j abc"},
      {"root", "sacct -j 26301+"},
      {"root", "sacct -S 11:30 -E 11:00 -n"},
      {"root", "sacct -S garbage -n"},
      {"root", "sacct -E 25:99 -n"},
      {"root", "sacct -u nosuchuser -n"},
      {"root", "sacct -u alice,nosuch -n"},
      {"root", "sacct -u '' -n"},
      {"root", "sacct -s foo -n"},
      {"root", "sacct -s cg -n"},
      {"root", "sacct -o foo -n"},
      {"root", "sacct -o AllocGRES"},
      {"root", "sacct -l -o jobid"},
      {"root", "sacct extra -X"},
      {"root", "sacct --foo"},
      {"root", "sacct -Z"},
      {"root", "sacct -j"},
      {"root", "sacct --n"},
      {"root", "sacct --json"},
      {"root", "sacct -V"},
      {"root", "sacct --usage"},
      {"root", "sacct --helpformat"},
      {"root", "sacct --help"},
      {"root", "GANTRY_CONF=$DIR/down.conf sacct -j 26301"},
  };
}

// Commands whose stdout is a capture from the reference cluster (tests/golden/cmd-anchor-*.txt),
// for its priorities and shares when those were captured.
struct Captured {
  Case command;
  const char* golden;
};
inline std::vector<Captured> SprioAndSshareCaptures() {
  return {{{"root", "sprio"}, "cmd-anchor-sprio.txt"},
          {{"root", "sprio -l"}, "cmd-anchor-sprio-l.txt"},
          {{"root", "sprio -w"}, "cmd-anchor-sprio-w.txt"},
          {{"root", "sshare -a"}, "cmd-anchor-sshare-a.txt"},
          {{"alice", "sshare"}, "cmd-anchor-sshare.txt"}};
}

// sdiag's reset, its permission, and what it prints without asking the controller.
inline std::vector<Case> SdiagCases() {
  return {{"root", "sdiag -r"},     {"alice", "sdiag -r"}, {"root", "sdiag --usage"},
          {"root", "sdiag --help"}, {"root", "sdiag -V"},  {"root", "sdiag -z"}};
}

}  // namespace gantry::slurm::testing

#endif  // GANTRY_SLURM_TRANSCRIPT_TEST_UTIL_H_
