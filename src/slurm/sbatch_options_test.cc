#include "slurm/sbatch_options.h"

#include <gtest/gtest.h>

#include "slurm/sbatch.h"

namespace gantry::slurm {
namespace {

constexpr UnixTime kNow = 1796212007;  // 2026-12-02T11:46:47Z

OptionResult Apply(SbatchOptions* o, int id, std::optional<std::string> value) {
  return ApplySbatchOption(o, id, value, kNow, TimeZone::Utc());
}

struct ErrorCase {
  int id;
  const char* value;
  const char* message;
  int exit_code;
};

class SbatchOptionErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SbatchOptionErrorTest, SlurmTextAndExitCode) {
  SbatchOptions o;
  const OptionResult r = Apply(&o, GetParam().id, GetParam().value);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, GetParam().message);
  EXPECT_EQ(r.exit_code, GetParam().exit_code);
}

INSTANTIATE_TEST_SUITE_P(
    Values, SbatchOptionErrorTest,
    ::testing::Values(
        ErrorCase{'t', "abc", "Invalid --time specification", 255},
        ErrorCase{'t', "99:99:99:99", "Invalid --time specification", 255},
        ErrorCase{kOptTimeMin, "x", "Invalid --time-min specification", 255},
        ErrorCase{'N', "abc", "\"abc\" is not a valid node count", 255},
        ErrorCase{'N', "3-2", "Maximum node count 2 is less than minimum node count 3", 255},
        ErrorCase{'N', "2-", "Maximum node count -1 is less than minimum node count 2", 255},
        ErrorCase{'n', "abc", "Invalid numeric value \"abc\" for --ntasks.", 1},
        ErrorCase{'n', "0", "Invalid numeric value \"0\" for --ntasks.", 1},
        ErrorCase{'n', "-1", "Invalid numeric value \"-1\" for --ntasks.", 1},
        ErrorCase{'c', "0", "Invalid numeric value \"0\" for --cpus-per-task.", 1},
        ErrorCase{kOptNtasksPerNode, "x", "Invalid numeric value \"x\" for --ntasks-per-node.", 1},
        ErrorCase{kOptMem, "2.5G", "Invalid --mem specification", 255},
        ErrorCase{kOptMem, "-5", "Invalid --mem specification", 255},
        ErrorCase{kOptMemPerCpu, "x", "Invalid --mem-per-cpu specification", 255},
        ErrorCase{kOptMemPerGpu, "x", "Invalid --mem-per-gpu specification", 255},
        ErrorCase{kOptCpusPerGpu, "0", "Invalid numeric value \"0\" for --cpus-per-gpu.", 1},
        ErrorCase{'G', "abc", "Invalid generic resource (gres) specification", 1},
        ErrorCase{kOptGpusPerTask, "x", "Invalid generic resource (gres) specification", 1},
        ErrorCase{'b', "abc", "Invalid --begin specification", 255},
        ErrorCase{kOptMailType, "foo", "Invalid --mail-type specification", 255},
        ErrorCase{kOptExclusive, "foo", "Invalid --exclusive specification", 255},
        ErrorCase{kOptOpenMode, "x", "Invalid --open-mode specification", 255},
        ErrorCase{kOptOpenMode, "", "Invalid --open-mode specification", 255},
        ErrorCase{kOptGetUserEnv, "x", "Invalid --get-user-env specification", 255},
        ErrorCase{kOptGetUserEnv, "10X", "Invalid --get-user-env specification", 255},
        ErrorCase{kOptSignal, "bad", "Invalid --signal specification", 255},
        ErrorCase{kOptSignal, "USR1@x", "Invalid --signal specification", 255},
        ErrorCase{kOptSignal, "X:USR1", "Invalid --signal specification", 255},
        ErrorCase{kOptSignal, ":USR1", "Invalid --signal specification", 255},
        ErrorCase{kOptSignal, "USR1@70000", "Invalid --signal specification", 255}));

TEST(SbatchOptionsTest, SignalTakesFlagsANameOrNumberAndATime) {
  struct Case {
    const char* value;
    int signal;
    uint32_t seconds;
    bool batch_only;
  };
  for (const Case& c :
       {Case{"USR1", 10, 60, false}, Case{"B:USR1@90", 10, 90, true}, Case{"R:10", 10, 60, false},
        Case{"RB:SIGUSR2@0", 12, 0, true}, Case{"b:term@5", 15, 5, true}}) {
    SbatchOptions o;
    ASSERT_TRUE(Apply(&o, kOptSignal, std::string(c.value)).ok) << c.value;
    EXPECT_EQ(o.warn_signal, c.signal) << c.value;
    EXPECT_EQ(o.warn_seconds, c.seconds) << c.value;
    EXPECT_EQ(o.warn_batch_only, c.batch_only) << c.value;
  }
}

TEST(SbatchOptionsTest, OpenModeWaitExportFileAndGetUserEnv) {
  SbatchOptions o;
  ASSERT_TRUE(Apply(&o, kOptOpenMode, "APP").ok);  // sbatch reads the first letter
  EXPECT_TRUE(o.open_append);
  ASSERT_TRUE(Apply(&o, kOptOpenMode, "truncate").ok);
  EXPECT_FALSE(o.open_append);
  ASSERT_TRUE(Apply(&o, 'W', std::nullopt).ok);
  EXPECT_TRUE(o.wait);
  ASSERT_TRUE(Apply(&o, kOptExportFile, "env.txt").ok);
  EXPECT_EQ(*o.export_file, "env.txt");
  for (const char* ok : {"", "10", "10L", "S"}) {
    EXPECT_TRUE(Apply(&o, kOptGetUserEnv, std::string(ok)).ok) << ok;
  }
}

TEST(SbatchOptionsTest, ValuesAreStored) {
  SbatchOptions o;
  ASSERT_TRUE(Apply(&o, 'N', "2-4").ok);
  EXPECT_EQ(*o.min_nodes, 2u);
  EXPECT_EQ(*o.max_nodes, 4u);
  ASSERT_TRUE(Apply(&o, 'N', "3").ok);
  EXPECT_EQ(*o.max_nodes, 3u);  // "-N 3" is 3-3, as in Slurm
  ASSERT_TRUE(Apply(&o, 't', "1-00:00:00").ok);
  EXPECT_EQ(*o.time_limit_min, 1440u);
  ASSERT_TRUE(Apply(&o, 't', "0").ok);
  EXPECT_EQ(*o.time_limit_min, 0xFFFFFFFFu);
  ASSERT_TRUE(Apply(&o, 't', "UNLIMITED").ok);
  EXPECT_EQ(*o.time_limit_min, 0xFFFFFFFFu);
  ASSERT_TRUE(Apply(&o, kOptMem, "4G").ok);
  EXPECT_EQ(*o.mem_mb, 4096u);
  ASSERT_TRUE(Apply(&o, 'p', "a4,,high").ok);
  EXPECT_EQ(o.partitions, (std::vector<std::string>{"a4", "high"}));
  ASSERT_TRUE(Apply(&o, 'o', "none").ok);
  EXPECT_EQ(*o.output, "/dev/null");
  ASSERT_TRUE(Apply(&o, kOptNice, std::nullopt).ok);
  EXPECT_EQ(*o.nice, 100);
  ASSERT_TRUE(Apply(&o, kOptNice, "-5").ok);
  EXPECT_EQ(*o.nice, -5);
  ASSERT_TRUE(Apply(&o, kOptMailType, "end,fail").ok);
  EXPECT_EQ(*o.mail_type, "END,FAIL");
  ASSERT_TRUE(Apply(&o, 'b', "now+1hour").ok);
  EXPECT_EQ(*o.begin, kNow + 3600);
  ASSERT_TRUE(Apply(&o, kOptGres, "gpu:4").ok);
  EXPECT_EQ(*o.gres, "gres:gpu:4");
  ASSERT_TRUE(Apply(&o, kOptNoRequeue, std::nullopt).ok);
  EXPECT_EQ(o.requeue, 2u);
}

TEST(SbatchOptionsTest, MemoryOptionsAreExclusive) {
  SbatchOptions o;
  o.mem_mb = 1;
  o.mem_per_cpu_mb = 1;
  const OptionResult r = VerifySbatchOptions(o);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  EXPECT_EQ(r.exit_code, 1);
}

CommandContext Ctx() {
  CommandContext ctx;
  ctx.cwd = "/home/alice/exp";
  ctx.hostname = "login1";
  ctx.sid = 4242;
  ctx.umask = 022;
  ctx.environment = {"HOME=/home/alice", "PATH=/usr/bin", "SLURM_CONF=/x", "FOO=1"};
  return ctx;
}

TEST(SbatchRequestTest, DefaultsFromTheScriptAndProcess) {
  SbatchOptions o;
  o.chdir = "runs";
  BatchScript script{"#!/bin/sh\n", "jobs/train.sh", {"--lr", "0.1"}, false};
  const v1::SubmitJobRequest r = BuildSubmitRequest(o, script, Ctx());
  EXPECT_EQ(r.request().name(), "train.sh");
  EXPECT_EQ(r.request().command(), "/home/alice/exp/jobs/train.sh");
  EXPECT_EQ(r.request().work_dir(), "/home/alice/exp/runs");
  EXPECT_EQ(r.request().submit_dir(), "/home/alice/exp");
  EXPECT_EQ(r.request().submit_host(), "login1");
  EXPECT_EQ(r.request().alloc_sid(), 4242u);
  EXPECT_EQ(r.request().export_env(), "ALL");
  EXPECT_EQ(r.payload().export_spec(), "ALL");
  EXPECT_EQ(r.payload().argv_size(), 2);
  const std::vector<std::string> env(r.payload().environment().begin(),
                                     r.payload().environment().end());
  EXPECT_EQ(env,
            (std::vector<std::string>{"HOME=/home/alice", "PATH=/usr/bin", "SLURM_CONF=/x", "FOO=1",
                                      "SLURM_PRIO_PROCESS=0", "SLURM_SUBMIT_DIR=/home/alice/exp",
                                      "SLURM_SUBMIT_HOST=login1", "SLURM_UMASK=022"}));
}

TEST(SbatchRequestTest, NamesForWrapAndStdin) {
  SbatchOptions o;
  EXPECT_EQ(BuildSubmitRequest(o, {"#!/bin/sh\n", "", {}, true}, Ctx()).request().name(), "wrap");
  EXPECT_TRUE(BuildSubmitRequest(o, {"#!/bin/sh\n", "", {}, true}, Ctx()).request().wrap());
  EXPECT_EQ(BuildSubmitRequest(o, {"#!/bin/sh\n", "", {}, false}, Ctx()).request().name(),
            "sbatch");
  EXPECT_EQ(BuildSubmitRequest(o, {"#!/bin/sh\n", "", {}, false}, Ctx()).request().command(), "");
  o.job_name = "named";
  EXPECT_EQ(BuildSubmitRequest(o, {"#!/bin/sh\n", "a.sh", {}, false}, Ctx()).request().name(),
            "named");
}

TEST(SbatchRequestTest, ExportModes) {
  const std::vector<std::string> env = {"HOME=/h", "SLURM_CONF=/x", "FOO=1", "BAR=2"};
  EXPECT_EQ(BatchEnvironment(env, "ALL"), env);
  EXPECT_EQ(BatchEnvironment(env, "NONE"), std::vector<std::string>{"SLURM_CONF=/x"});
  EXPECT_EQ(BatchEnvironment(env, "FOO,NEW=3,MISSING"),
            (std::vector<std::string>{"SLURM_CONF=/x", "FOO=1", "NEW=3"}));
  EXPECT_EQ(BatchEnvironment(env, "ALL,FOO=9"),
            (std::vector<std::string>{"HOME=/h", "SLURM_CONF=/x", "FOO=9", "BAR=2"}));
  SbatchOptions o;
  o.export_env = "NONE";
  const v1::SubmitJobRequest r = BuildSubmitRequest(o, {"#!/bin/sh\n", "", {}, true}, Ctx());
  const std::vector<std::string> sent(r.payload().environment().begin(),
                                      r.payload().environment().end());
  EXPECT_EQ(sent, (std::vector<std::string>{
                      "SLURM_CONF=/x", "SLURM_PRIO_PROCESS=0", "SLURM_SUBMIT_DIR=/home/alice/exp",
                      "SLURM_SUBMIT_HOST=login1", "SLURM_UMASK=022", "SLURM_EXPORT_ENV=NONE"}));
  EXPECT_EQ(r.request().export_env(), "NONE");
  EXPECT_FALSE(r.request().open_append());
}

TEST(SbatchRequestTest, ExportFileDefinitionsComeOnTopOfExport) {
  EXPECT_EQ(ParseExportFile(std::string("A=1\0B=x=y\0junk\0=v\0C=\0", 21)),
            (std::vector<std::string>{"A=1", "B=x=y", "C="}));
  EXPECT_EQ(ParseExportFile("A=1\nB=two words\n\n"),
            (std::vector<std::string>{"A=1", "B=two words"}));
  SbatchOptions o;
  o.export_env = "NONE";
  o.export_file_env = {"FOO=from file", "SLURM_CONF=/y"};
  o.open_append = true;
  const v1::SubmitJobRequest r = BuildSubmitRequest(o, {"#!/bin/sh\n", "", {}, true}, Ctx());
  const std::vector<std::string> sent(r.payload().environment().begin(),
                                      r.payload().environment().end());
  EXPECT_EQ(sent, (std::vector<std::string>{"SLURM_CONF=/y", "SLURM_PRIO_PROCESS=0",
                                            "SLURM_SUBMIT_DIR=/home/alice/exp",
                                            "SLURM_SUBMIT_HOST=login1", "SLURM_UMASK=022",
                                            "SLURM_EXPORT_ENV=NONE", "FOO=from file"}));
  EXPECT_TRUE(r.request().open_append());
}

// The GPU options become what the controller schedules by, per node (the reference: sbatch -N2
// --gpus=6 --cpus-per-gpu=2 --mem-per-gpu=1000 got cpu=12,mem=6000M,gres/gpu=6).
TEST(ResolveGpuOptionsTest, PerNodeGpusCpusAndMemory) {
  struct Case {
    std::vector<std::pair<int, std::string>> options;
    std::string gres;
    uint32_t cpus_per_task;
    uint64_t mem_mb;
  } cases[] = {
      {{{'N', "2"}, {'G', "6"}, {kOptCpusPerGpu, "2"}, {kOptMemPerGpu, "1000"}},
       "gres:gpu:3",
       6,
       3000},
      {{{'n', "4"}, {'N', "2"}, {kOptGpusPerTask, "b200:2"}}, "gres:gpu:b200:4", 0, 0},
      {{{'n', "8"}, {kOptNtasksPerNode, "8"}, {kOptGpusPerTask, "1"}, {kOptCpusPerGpu, "4"}},
       "gres:gpu:8",
       4,
       0},
      {{{kOptGpusPerNode, "4"}, {kOptMemPerGpu, "10G"}}, "gres:gpu:4", 0, 40960},
      {{{kOptGpusPerNode, "4"}, {'c', "3"}, {kOptCpusPerGpu, "8"}}, "gres:gpu:4", 3, 0},
      // Absurd counts stay absurd (the controller refuses them) instead of wrapping to a few
      // or none (found by fuzz/sbatch_script_fuzz.cc).
      {{{'n', "2"}, {kOptGpusPerTask, "9223372036854775807"}},
       "gres:gpu:9223372036854775807",
       0,
       0},
      {{{'N', "2"}, {'G', "9223372036854775807"}}, "gres:gpu:4611686018427387904", 0, 0},
  };
  for (const Case& c : cases) {
    SbatchOptions o;
    for (const auto& [id, value] : c.options) ASSERT_TRUE(Apply(&o, id, value).ok) << value;
    ASSERT_TRUE(VerifySbatchOptions(o).ok);
    ResolveGpuOptions(&o);
    EXPECT_EQ(o.gres.value_or(""), c.gres);
    EXPECT_EQ(o.cpus_per_task.value_or(0), c.cpus_per_task);
    EXPECT_EQ(o.mem_mb.value_or(0), c.mem_mb);
  }
  SbatchOptions alone;
  ASSERT_TRUE(Apply(&alone, kOptGpusPerTask, "1").ok);
  EXPECT_EQ(VerifySbatchOptions(alone).message,
            "Failed to validate job spec. --gpus-per-task used without either --gpus or "
            "-n/--ntasks is not allowed.");
}

}  // namespace
}  // namespace gantry::slurm
