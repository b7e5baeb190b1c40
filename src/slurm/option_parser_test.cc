#include "slurm/option_parser.h"

#include <gtest/gtest.h>

#include "slurm/sbatch_options.h"

namespace gantry::slurm {
namespace {

constexpr ShortOption kShort[] = {
    {'t', ArgKind::kRequired},
    {'h', ArgKind::kNone},
    {'k', ArgKind::kOptional},
    {'l', ArgKind::kNone},
};
constexpr LongOption kLong[] = {
    {"time", ArgKind::kRequired, 't'},  {"time-min", ArgKind::kRequired, 1},
    {"hold", ArgKind::kNone, 2},        {"help", ArgKind::kNone, 'h'},
    {"nice", ArgKind::kOptional, 3},    {"node", ArgKind::kRequired, 'w'},
    {"nodes", ArgKind::kRequired, 'w'},
};

ParsedArgs Parse(std::vector<std::string> args, ArgOrder order = ArgOrder::kPermute) {
  return ParseArgs("prog", args, kShort, kLong, order);
}

TEST(OptionParserTest, LongOptionsWithValuesAndAbbreviations) {
  const ParsedArgs p = Parse({"--time=5", "--time-m", "7", "--ho", "--nice", "--nice=3"});
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.options.size(), 5u);
  EXPECT_EQ(p.options[0].id, 't');
  EXPECT_EQ(*p.options[0].value, "5");
  EXPECT_EQ(p.options[1].id, 1);
  EXPECT_EQ(*p.options[1].value, "7");
  EXPECT_EQ(p.options[2].id, 2);
  EXPECT_EQ(p.options[2].spelling, "--ho");
  EXPECT_FALSE(p.options[3].value.has_value());  // optional argument only with '='
  EXPECT_EQ(*p.options[4].value, "3");
}

TEST(OptionParserTest, ExactNameWinsOverLongerOnes) {
  const ParsedArgs p = Parse({"--time", "9"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options[0].id, 't');
}

TEST(OptionParserTest, ShortClustersAndAttachedValues) {
  const ParsedArgs p = Parse({"-hlt5", "-t", "6", "-k", "-k2"});
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.options.size(), 6u);
  EXPECT_EQ(p.options[0].id, 'h');
  EXPECT_EQ(p.options[1].id, 'l');
  EXPECT_EQ(*p.options[2].value, "5");
  EXPECT_EQ(*p.options[3].value, "6");
  EXPECT_FALSE(p.options[4].value.has_value());  // optional: only attached
  EXPECT_EQ(*p.options[5].value, "2");
}

TEST(OptionParserTest, GlibcErrorTexts) {
  EXPECT_EQ(Parse({"--foo"}).error, "prog: unrecognized option '--foo'");
  EXPECT_EQ(Parse({"--foo=1"}).error, "prog: unrecognized option '--foo=1'");
  EXPECT_EQ(Parse({"-Z"}).error, "prog: invalid option -- 'Z'");
  EXPECT_EQ(Parse({"-t"}).error, "prog: option requires an argument -- 't'");
  EXPECT_EQ(Parse({"--time"}).error, "prog: option '--time' requires an argument");
  EXPECT_EQ(Parse({"--hol=1"}).error, "prog: option '--hold' doesn't allow an argument");
  EXPECT_EQ(Parse({"--ti=5"}).error,
            "prog: option '--ti=5' is ambiguous; possibilities: '--time' '--time-min'");
  EXPECT_EQ(Parse({"--h"}).error,
            "prog: option '--h' is ambiguous; possibilities: '--hold' '--help'");
}

TEST(OptionParserTest, AliasesWithTheSameMeaningAreNotAmbiguous) {
  const ParsedArgs p = Parse({"--no=a"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options[0].id, 'w');
}

TEST(OptionParserTest, PermuteCollectsOperandsAnywhere) {
  const ParsedArgs p = Parse({"5", "-h", "6", "--", "-t"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.size(), 1u);
  EXPECT_EQ(p.operands, (std::vector<std::string>{"5", "6", "-t"}));
}

TEST(OptionParserTest, RequireOrderStopsAtFirstOperand) {
  const ParsedArgs p = Parse({"-h", "job.sh", "-t", "5"}, ArgOrder::kRequireOrder);
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.size(), 1u);
  EXPECT_EQ(p.operands, (std::vector<std::string>{"job.sh", "-t", "5"}));
}

TEST(OptionParserTest, SbatchTableMatchesSlurmsAmbiguityLists) {
  auto parse = [](const std::string& arg) {
    return ParseArgs("sbatch", {arg}, SbatchShortOptions(), SbatchLongOptions(),
                     ArgOrder::kRequireOrder)
        .error;
  };
  EXPECT_EQ(parse("--me=5"),
            "sbatch: option '--me=5' is ambiguous; possibilities: '--mem' '--mem-bind' "
            "'--mem-per-cpu' '--mem-per-gpu'");
  EXPECT_EQ(parse("--ex=ALL"),
            "sbatch: option '--ex=ALL' is ambiguous; possibilities: '--exclude' '--exclusive' "
            "'--export' '--export-file' '--extra-node-info'");
  EXPECT_EQ(parse("--c=x"),
            "sbatch: option '--c=x' is ambiguous; possibilities: '--cluster-constraint' "
            "'--chdir' '--cluster' '--clusters' '--comment' '--container' '--context' "
            "'--contiguous' '--constraint' '--core-spec' '--cores-per-socket' '--cpu-freq' "
            "'--cpus-per-gpu' '--cpus-per-task'");
  EXPECT_EQ(parse("--n=x"),
            "sbatch: option '--n=x' is ambiguous; possibilities: '--network' '--nice' "
            "'--no-kill' '--no-requeue' '--nodefile' '--nodelist' '--nodes' '--ntasks' "
            "'--ntasks-per-core' '--ntasks-per-gpu' '--ntasks-per-node' '--ntasks-per-socket' "
            "'--ntasks-per-tres'");
  EXPECT_EQ(parse("--foo"), "sbatch: unrecognized option '--foo'");
  EXPECT_EQ(parse("--hold=3"), "sbatch: option '--hold' doesn't allow an argument");
}

}  // namespace
}  // namespace gantry::slurm
