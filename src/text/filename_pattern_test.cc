#include "text/filename_pattern.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::text {
namespace {

using ::testing::HasSubstr;

// sbatch's script of job 128 on node1, submitted by alice as "myjob".
FilenameContext BatchJob() {
  FilenameContext ctx;
  ctx.job_id = 128;
  ctx.node_name = "node1";
  ctx.user = "alice";
  ctx.job_name = "myjob";
  return ctx;
}

// Task 3 of array job 20, which runs as job 21.
FilenameContext ArrayTask() {
  FilenameContext ctx = BatchJob();
  ctx.job_id = 21;
  ctx.array_job_id = 20;
  ctx.array_task_id = 3;
  return ctx;
}

// Task `task` of step `step` of job 128, on node2, the step's second node.
FilenameContext JobStep(uint32_t step, uint32_t task) {
  FilenameContext ctx = BatchJob();
  ctx.step_id = step;
  ctx.node_name = "node2";
  ctx.node_index = 1;
  ctx.task_id = task;
  return ctx;
}

struct ExpandCase {
  std::string_view pattern;
  std::string expected;
};

void ExpectExpansions(const FilenameContext& ctx, const ExpandCase* begin, const ExpandCase* end) {
  for (const ExpandCase* c = begin; c != end; ++c) {
    const Result<std::string> r = ExpandFilenamePattern(c->pattern, ctx);
    ASSERT_TRUE(r.ok()) << c->pattern << ": " << r.status().ToString();
    EXPECT_EQ(*r, c->expected) << "pattern " << c->pattern;
  }
}

template <size_t N>
void ExpectExpansions(const FilenameContext& ctx, const ExpandCase (&cases)[N]) {
  ExpectExpansions(ctx, cases, cases + N);
}

TEST(FilenamePatternBatchTest, ExpandsEverySpecifier) {
  const ExpandCase cases[] = {
      {"slurm-%j.out", "slurm-128.out"},  // sbatch(1)'s default
      {"%A", "128"},                      // not an array: the job id
      {"%a", "4294967294"},               // not an array: NO_VAL
      {"%J", "128"},                      // the batch step has no ".stepid"
      {"%j", "128"},                      //
      {"%N", "node1"},                    //
      {"%n", "0"},                        //
      {"%s", "4294967291"},               // SLURM_BATCH_SCRIPT
      {"%t", "0"},                        //
      {"%u", "alice"},                    //
      {"%x", "myjob"},                    //
      {"%x-%j.out", "myjob-128.out"},     //
      {"%j%j", "128128"},                 // adjacent specifiers
      {"%N%t", "node10"},                 //
      {"/scratch/%u/%x.%j", "/scratch/alice/myjob.128"},
      {"out.txt", "out.txt"},  // no specifier
  };
  ExpectExpansions(BatchJob(), cases);
}

TEST(FilenamePatternBatchTest, ZeroPadsNumbersUpToTenDigits) {
  const ExpandCase cases[] = {
      {"job%4j.out", "job0128.out"},             // sbatch(1)'s example
      {"job%2j.out", "job128.out"},              // narrower than the number: no effect
      {"%0j", "128"},                            //
      {"%00004j", "0128"},                       // leading zeros of the width
      {"%10j", "0000000128"},                    //
      {"%12j", "0000000128"},                    // capped at 10
      {"%99999999999999999999j", "0000000128"},  // even past ULONG_MAX
      {"%3t", "000"},                            //
      {"%2n", "00"},                             //
      {"%5N", "node1"},                          // names are never padded
      {"%3u", "alice"},                          //
      {"%8x", "myjob"},                          //
      {"%12s", "4294967291"},                    //
  };
  ExpectExpansions(BatchJob(), cases);
}

TEST(FilenamePatternBatchTest, ArrayTaskNames) {
  const ExpandCase cases[] = {
      {"slurm-%A_%a.out", "slurm-20_3.out"},  // sbatch(1)'s default for arrays
      {"%A", "20"},                           //
      {"%a", "3"},                            //
      {"%j", "21"},                           // the task's own job id
      {"%3a", "003"},                         //
      {"%10a", "0000000003"},                 //
      {"%12a", "0000000003"},                 // the same as %10a
      {"%b", "%b"},                           // %b (modulo 10) is Slurm 24.11's, not 22.05's
  };
  ExpectExpansions(ArrayTask(), cases);
}

TEST(FilenamePatternBatchTest, PercentSignsAndUnknownSpecifiers) {
  const ExpandCase cases[] = {
      {"%%", "%"},                //
      {"100%%.out", "100%.out"},  //
      {"%%j", "%j"},              // "%%" first, then a plain 'j'
      {"%%%j", "%128"},           //
      {"%%%%", "%%"},             //
      {"%", "%"},                 // a trailing '%' stays
      {"out%", "out%"},           //
      {"%z", "%z"},               // unknown letters stay with their '%'
      {"%b", "%b"},               //
      {"%-j", "%-j"},             //
      {"%5z", "5z"},              // ... but a width eats the '%'
      {"%123z", "3z"},            // and all its digits but the last
      {"out%12", "out2"},         // a trailing width too
      {"%5", "5"},                //
      {"%5%j", "5128"},           //
      {"%5%%", "5%"},             //
  };
  ExpectExpansions(BatchJob(), cases);
}

TEST(FilenamePatternBatchTest, BackslashTurnsReplacementOff) {
  const ExpandCase cases[] = {
      {R"(out\%j)", "out%j"},        // the '\' goes, nothing is replaced
      {R"(\%j-%t)", "%j-%t"},        // one '\' anywhere is enough
      {R"(a\\b%j)", R"(a\b%j)"},     // "\\" is one '\'
      {R"(a\\\b)", R"(a\b)"},        //
      {R"(trailing\)", "trailing"},  //
  };
  ExpectExpansions(BatchJob(), cases);
}

TEST(FilenamePatternStepTest, SrunExamples) {
  // srun(1): "job%J.out" is job128.0.out; "job%2j-%2t.out" is job128-00.out, job128-01.out, ...
  ExpectExpansions(JobStep(0, 0), {{"job%J.out", "job128.0.out"},
                                   {"job%2j-%2t.out", "job128-00.out"},
                                   {"job%4j.out", "job0128.out"}});
  ExpectExpansions(JobStep(0, 1), {{"job%2j-%2t.out", "job128-01.out"}});
}

TEST(FilenamePatternStepTest, ExpandsEverySpecifier) {
  const ExpandCase cases[] = {
      {"%J", "128.3"},             //
      {"%5J", "00128.3"},          // the width is the job id's
      {"%j", "128"},               //
      {"%s", "3"},                 //
      {"%5s", "00003"},            //
      {"%A", "128"},               // not an array
      {"%a", "4294967294"},        //
      {"%x", "myjob"},             //
      {"%N", "node2"},             // expanded by slurmstepd
      {"%n", "1"},                 //
      {"%t", "2"},                 //
      {"%u", "alice"},             //
      {"%3t", "002"},              //
      {"%10t", "0000000002"},      //
      {"%12t", "0000000002"},      // srun caps the width at 10
      {"%5N", "node2"},            //
      {"%j-%t.out", "128-2.out"},  //
      {"%N.%n.%t", "node2.1.2"},   //
      {"%%", "%"},                 //
      {"%%j", "%j"},               //
      {"%%t", "%t"},               //
      {"%%%j", "%128"},            //
      {"%", "%"},                  //
      {"%z", "%z"},                //
      {"%b", "%b"},                //
      {"out.txt", "out.txt"},      //
      {R"(a\\b%j)", "ab%j"},       // srun drops every '\'
      {R"(out\%t)", "out%t"},      //
  };
  ExpectExpansions(JobStep(3, 2), cases);
}

TEST(FilenamePatternStepTest, ArrayTaskStep) {
  FilenameContext ctx = ArrayTask();
  ctx.step_id = 0;
  ExpectExpansions(ctx, {{"%A_%a-%s.out", "20_3-0.out"}, {"%3a", "003"}, {"%J", "21.0"}});
}

TEST(FilenamePatternStepTest, SlurmstepdQuirks) {
  const ExpandCase cases[] = {
      // After %t, %n, %N or %u slurmstepd copies the next character without looking at it.
      {"%t%t", "1%t"},
      {"%N%n", "node2%n"},
      // slurmstepd removes only "%" before a padded %u, which is never padded.
      {"%5u", "%alice"},
      // srun swallows the '%' of "%0t" and slurmstepd sees a plain "0t".
      {"%0t", "0t"},
      // srun brings back the '%' of every "%%" since the last specifier in front of a
      // "%%%t"; slurmstepd's pass then halves them again.
      {"%%_%%%t", "%_%%t"},
      // slurmstepd's pass turns the "%%%" that srun leaves of "%%%%%%" into "%%".
      {"%%%%%%-%t", "%%-1"},
      // The '%' right after %t is skipped, so slurmstepd reads "%33t", a width srun never
      // checked, and its offset of 2 removes only the digits.
      {"%t%%33t", "1%%" + std::string(32, '0') + "1"},
  };
  ExpectExpansions(JobStep(0, 1), cases);
  const Result<std::string> too_wide = ExpandFilenamePattern("%t%%5000t", JobStep(0, 1));
  ASSERT_FALSE(too_wide.ok());
  EXPECT_THAT(too_wide.status().message(), HasSubstr("PATH_MAX"));
  EXPECT_THAT(too_wide.status().message(), HasSubstr("5000"));
}

TEST(FilenamePatternTest, RefusesEmptyAndNulPatterns) {
  for (const FilenameContext& ctx : {BatchJob(), JobStep(0, 0)}) {
    const Result<std::string> empty = ExpandFilenamePattern("", ctx);
    ASSERT_FALSE(empty.ok());
    EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(empty.status().message(), HasSubstr("empty"));

    const Result<std::string> nul = ExpandFilenamePattern(std::string_view("a\0b", 3), ctx);
    ASSERT_FALSE(nul.ok());
    EXPECT_THAT(nul.status().message(), HasSubstr(R"("a\x00b")"));
    EXPECT_THAT(nul.status().message(), HasSubstr("NUL"));

    EXPECT_FALSE(ExpandStdioPath("", ctx, "/home/alice").ok());
  }
}

TEST(FilenamePatternTest, DefaultOutputPatterns) {
  EXPECT_EQ(DefaultOutputPattern(false), "slurm-%j.out");
  EXPECT_EQ(DefaultOutputPattern(true), "slurm-%A_%a.out");
  EXPECT_EQ(*ExpandFilenamePattern(DefaultOutputPattern(false), BatchJob()), "slurm-128.out");
  EXPECT_EQ(*ExpandFilenamePattern(DefaultOutputPattern(true), ArrayTask()), "slurm-20_3.out");
  // slurmstepd's own default, "slurm-%J.out", names the same file.
  EXPECT_EQ(*ExpandFilenamePattern("slurm-%J.out", BatchJob()), "slurm-128.out");
}

TEST(FilenamePatternTest, ResolveOutputPath) {
  struct Case {
    std::string_view expanded;
    std::string_view workdir;
    std::string_view path;
  };
  const Case cases[] = {
      {"slurm-128.out", "/home/alice", "/home/alice/slurm-128.out"},
      {"slurm-128.out", "/home/alice/", "/home/alice/slurm-128.out"},
      {"logs/128.out", "/", "/logs/128.out"},
      {"/tmp/128.out", "/home/alice", "/tmp/128.out"},
      {"128.out", "", "128.out"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ResolveOutputPath(c.expanded, c.workdir), c.path)
        << c.expanded << " in " << c.workdir;
  }
}

struct PathCase {
  std::string_view pattern;
  std::string_view path;
};

TEST(FilenamePatternTest, BatchStdioPaths) {
  const PathCase cases[] = {
      {"slurm-%j.out", "/home/alice/slurm-128.out"},  // relative: under WorkDir
      {"logs/%x-%j.err", "/home/alice/logs/myjob-128.err"},
      {"/tmp/%j.out", "/tmp/128.out"},      // absolute
      {"/dev/null", "/dev/null"},           //
      {"3", "/dev/null"},                   // only task 3's output, and the batch task is 0
      {" 2", "/dev/null"},                  // strtoul skips the space
      {"0", "/home/alice/0"},               // task 0 is the batch task: a file named "0"
      {R"(out\%j)", "/home/aliceout%j"},    // Slurm's fname_create adds no '/' here
      {R"(/tmp/a\%j)", "/tmp/a%j"},         //
      {R"(\/tmp/x)", "/home/alice/tmp/x"},  // relative: the pattern starts with '\'
      {"%N/%j.out", "/home/alice/node1/128.out"},
  };
  for (const PathCase& c : cases) {
    const Result<std::string> r = ExpandStdioPath(c.pattern, BatchJob(), "/home/alice");
    ASSERT_TRUE(r.ok()) << c.pattern << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.path) << c.pattern;
  }
  EXPECT_EQ(*ExpandStdioPath("slurm-%j.out", BatchJob(), "/home/alice/"),
            "/home/alice/slurm-128.out");
}

TEST(FilenamePatternTest, StepStdioPaths) {
  const PathCase cases[] = {
      {"%N-%t.out", "/scratch/node2-1.out"},  // slurmstepd opens one file per task
      {"out-%j.%s", "/scratch/out-128.0"},    // srun opens the one file
      {"/abs/%J", "/abs/128.0"},              //
      {R"(a\%t)", "/scratch/a%t"},            // srun unescapes and joins properly
      {"3", "/scratch/3"},                    // see SingleTaskIoId
  };
  for (const PathCase& c : cases) {
    const Result<std::string> r = ExpandStdioPath(c.pattern, JobStep(0, 1), "/scratch");
    ASSERT_TRUE(r.ok()) << c.pattern << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.path) << c.pattern;
  }
}

TEST(FilenamePatternTest, SingleTaskIoIdIsStrtoulOfTheWholeText) {
  struct Case {
    std::string_view pattern;
    std::optional<uint32_t> task;
  };
  const Case cases[] = {
      {"3", 3},
      {"0", 0},
      {"007", 7},
      {" 3", 3},             // strtoul skips leading white space
      {"\t3", 3},            //
      {"+3", 3},             // and takes a sign
      {"", 0},               // no digits, but the end is the (empty) end
      {"-1", std::nullopt},  // (int)-1 is negative
      {"3a", std::nullopt},  // not the whole text
      {"3 ", std::nullopt},  //
      {"x", std::nullopt},   //
      {" ", std::nullopt},   //
      {"+", std::nullopt},   //
      {"slurm-%j.out", std::nullopt},
      {"2147483648", std::nullopt},               // (int)2^31 is negative
      {"4294967299", 3},                          // the cast keeps the low 32 bits
      {"-4294967296", 0},                         //
      {"99999999999999999999999", std::nullopt},  // ULONG_MAX, (int)-1
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SingleTaskIoId(c.pattern), c.task) << '"' << c.pattern << '"';
  }
}

}  // namespace
}  // namespace gantry::text
