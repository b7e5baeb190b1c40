#include "slurm/sbatch_script.h"

#include <gtest/gtest.h>

namespace gantry::slurm {
namespace {

TEST(SbatchScriptTest, ChecksLikeSbatch) {
  EXPECT_EQ(CheckBatchScript(""), std::vector<std::string>{"Batch script is empty!"});
  EXPECT_EQ(CheckBatchScript("\n\n"),
            std::vector<std::string>{"Batch script contains only whitespace!"});
  EXPECT_EQ(CheckBatchScript("echo hi\r\n").size(), 3u);  // no #! is reported first
  EXPECT_EQ(CheckBatchScript("#!/bin/sh\r\necho\r\n"),
            (std::vector<std::string>{"Batch script contains DOS line breaks (\\r\\n)",
                                      "instead of expected UNIX line breaks (\\n)."}));
  EXPECT_TRUE(CheckBatchScript("#!/bin/bash\necho hi\n").empty());
}

TEST(SbatchScriptTest, DirectivesStopAtTheFirstCommand) {
  Result<Directives> d = ScanDirectives(
      "#!/bin/sh\n"
      "#SBATCH -J \"a b\" -t 5 # comment\n"
      "\n"
      "  # indented comment\n"
      "  #SBATCH --ignored-because-indented\n"
      "#SBATCH --output='out %j.log' --error=e\\ f\n"
      "#SBATCH-N2\n"
      "echo hi\n"
      "#SBATCH --after-command\n",
      "job.sh");
  ASSERT_TRUE(d.ok());
  // As in Slurm, a backslash cannot escape white space: the argument still ends there.
  EXPECT_EQ(d->args, (std::vector<std::string>{"-J", "a b", "-t", "5", "--output=out %j.log",
                                               "--error=e", "f", "-N2"}));
  EXPECT_TRUE(d->warnings.empty());
}

TEST(SbatchScriptTest, EmptyQuotesEndTheLineAsInSlurm) {
  Result<Directives> d = ScanDirectives("#!/bin/sh\n#SBATCH -J \"\" -t abc\n", "x");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->args, std::vector<std::string>{"-J"});
}

TEST(SbatchScriptTest, HashInsideAnArgumentEndsTheLine) {
  Result<Directives> d = ScanDirectives("#!/bin/sh\n#SBATCH -t#abc\n", "x");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->args, std::vector<std::string>{"-t"});
}

TEST(SbatchScriptTest, SlurmMagicWordWarnsOnce) {
  Result<Directives> d = ScanDirectives("#!/bin/sh\n#SLURM -t 5\n#SLURM -N 1\n", "x");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->args.size(), 4u);
  ASSERT_EQ(d->warnings.size(), 1u);
  EXPECT_EQ(d->warnings[0],
            "Change from #SLURM to #SBATCH in your script and verify the options are valid in "
            "sbatch");
}

TEST(SbatchScriptTest, UnmatchedQuoteIsFatal) {
  Result<Directives> d = ScanDirectives("#!/bin/sh\n#SBATCH -J \"abc\n", "unmatched.sh");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "unmatched.sh: line 2: Unmatched `\"` in [ \"abc]");
}

TEST(SbatchScriptTest, WrapScript) {
  EXPECT_EQ(WrapScript("hostname"),
            "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname\n");
}

}  // namespace
}  // namespace gantry::slurm
