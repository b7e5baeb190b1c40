#include "text/tres.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gantry::text {
namespace {

using ::testing::HasSubstr;

TresCount Count(std::string type, std::string name, int64_t count) {
  return TresCount{TresKey{std::move(type), std::move(name)}, count};
}

TEST(ParseTresCountsTest, ReadsScontrolAndSacctmgrStrings) {
  struct Case {
    std::string text;
    std::vector<TresCount> want;
  };
  const std::vector<Case> cases = {
      {"", {}},
      {"cpu=64,mem=250G,billing=64,gres/gpu=8",
       {Count("cpu", "", 64), Count("mem", "", 256000), Count("billing", "", 64),
        Count("gres", "gpu", 8)}},
      // scontrol prints halves: 62.50G is 64000 MiB.
      {"cpu=32,mem=62.50G,node=1,billing=32,gres/gpu=4",
       {Count("cpu", "", 32), Count("mem", "", 64000), Count("node", "", 1),
        Count("billing", "", 32), Count("gres", "gpu", 4)}},
      // Types are case-insensitive and come back lower-case; names keep their spelling.
      {"CPU=2,Mem=2000,GRES/gpu:B200=8",
       {Count("cpu", "", 2), Count("mem", "", 2000), Count("gres", "gpu:B200", 8)}},
      {"license/matlab=1,fs/disk=0,bb/cray=1G,ic/ofed=3,energy=5,vmem=6,pages=7",
       {Count("license", "matlab", 1), Count("fs", "disk", 0), Count("bb", "cray", 1024),
        Count("ic", "ofed", 3), Count("energy", "", 5), Count("vmem", "", 6),
        Count("pages", "", 7)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<TresCount>> got = ParseTresCounts(c.text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseTresCountsTest, ScalesUnitsFromEachTypesBaseUnit) {
  struct Case {
    std::string text;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"mem=2000", 2000},       // no unit: MiB
      {"mem=2000M", 2000},      //
      {"mem=2g", 2048},         // case-insensitive
      {"mem=1T", 1048576},      //
      {"mem=1P", 1073741824},   //
      {"mem=2048K", 2},         // KiB, rounded up to whole MiB
      {"mem=1K", 1},            //
      {"mem=1.5", 2},           // fractions round up
      {"mem=0.5G", 512},        //
      {"bb/cray=3T", 3145728},  // bb counts MiB too
      {"cpu=2K", 2048},         // counted types scale from one unit
      {"gres/gpu=1k", 1024},    //
      {"node=1M", 1048576},     //
      {"license/x=0", 0},       // zero is a real count (a limit of zero)
      {"cpu=9223372036854775807", 9223372036854775807},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<TresCount>> got = ParseTresCounts(c.text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ((*got)[0].count, c.want);
  }
}

TEST(ParseTresCountsTest, ErrorsNameTheEntryAndTheRule) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"foo=1", "unknown TRES type \"foo\""},
      {"gress=1", "unknown TRES type \"gress\" (did you mean \"gres\"?)"},
      {"gpus=1", "unknown TRES type \"gpus\" (did you mean \"cpu\" or \"gres\"?)"},
      {"cpu", "entry \"cpu\" has no '='"},
      {"cpu=1,mem", "entry \"mem\" has no '='"},
      {"cpu=-1", "count \"-1\" for cpu is negative"},
      {"cpu=1,CPU=2", "cpu is given twice"},
      {"gres/gpu=1,gres/GPU=2", "gres/GPU is given twice"},
      {"cpu=abc", "count \"abc\" for cpu is not a number"},
      {"cpu=1.5", "count \"1.5\" for cpu is not a whole number"},
      {"cpu=1X", "has an unknown unit \"X\""},
      {"mem=1GB", "has an unknown unit \"GB\""},
      {"mem=1.", "has no digits after '.'"},
      {"mem=1.1234567891G", "has more than 9 decimals"},
      {"gres=1", "TRES type gres needs a name, as in gres/gpu"},
      {"gres/=1", "TRES type gres needs a name"},
      {"cpu/x=1", "TRES type cpu takes no name"},
      {"gres/g pu=1", "may not contain spaces"},
      {"=5", "missing TRES type"},
      {"cpu=", "missing count for cpu"},
      {"cpu=1,,mem=2", "entry 2 is empty"},
      {"cpu=1,", "entry 2 is empty"},
      {",cpu=1", "entry 1 is empty"},
      {"cpu= 1", "is not a number"},
      {"cpu=99999999999999999999", "is too large"},
      {"cpu=9223372036854775808", "is too large"},
      {"cpu=9007199254740993P", "is too large"},
      {"mem=9223372036854775807G", "is too large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<TresCount>> got = ParseTresCounts(c.text);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("invalid TRES \"" + c.text + "\": "));
    EXPECT_THAT(got.status().message(), HasSubstr(c.want));
  }
}

TEST(ParseTresWeightsTest, ReturnsWeightsPerBaseUnit) {
  struct Case {
    std::string text;
    std::vector<TresWeight> want;
  };
  const std::vector<Case> cases = {
      // PriorityWeightTRES from the anchor cluster: mem has no unit, so 150 per MiB.
      {"cpu=100,mem=150", {{{"cpu", ""}, 100}, {{"mem", ""}, 150}}},
      // slurm.conf(5) TRESBillingWeights example: Mem=.25G is 0.25 per GiB.
      {"CPU=1.0,Mem=0.25G,GRES/gpu=2.0",
       {{{"cpu", ""}, 1.0}, {{"mem", ""}, 0.25 / 1024}, {{"gres", "gpu"}, 2.0}}},
      {"license/licA=1.5", {{{"license", "licA"}, 1.5}}},
      {"mem=1T", {{{"mem", ""}, 1.0 / (1024 * 1024)}}},
      {"mem=2M", {{{"mem", ""}, 2.0}}},
      {"mem=1K", {{{"mem", ""}, 1024.0}}},  // 1 per KiB
      {"bb/cray=8G", {{{"bb", "cray"}, 8.0 / 1024}}},
      {"cpu=1K", {{{"cpu", ""}, 1.0 / 1024}}},  // 1 per 1024 CPUs
      {"cpu=-2.5", {{{"cpu", ""}, -2.5}}},      // PriorityWeightTRES may be negative
      {"cpu=+3", {{{"cpu", ""}, 3}}},
      {"cpu=.5,node=1e3", {{{"cpu", ""}, 0.5}, {{"node", ""}, 1000}}},
      {"", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<TresWeight>> got = ParseTresWeights(c.text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), c.want.size());
    for (size_t i = 0; i < c.want.size(); ++i) {
      EXPECT_EQ((*got)[i].key, c.want[i].key);
      EXPECT_DOUBLE_EQ((*got)[i].weight, c.want[i].weight);
    }
  }
}

TEST(ParseTresWeightsTest, ErrorsNameTheEntryAndTheRule) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"cpu=abc", "weight \"abc\" for cpu is not a number"},
      {"cpu=", "missing weight for cpu"},
      {"cpu=1,CPU=2", "cpu is given twice"},
      {"cpu=inf", "is not a number"},
      {"cpu=nan", "is not a number"},
      {"cpu=0x10", "is not a number"},
      {"cpu=1e", "is not a number"},
      {"cpu=1e999", "is out of range"},
      {"mem=1GB", "is not a number"},
      {"mem=G", "is not a number"},
      {"gpu=1", "unknown TRES type \"gpu\""},
      {"cpu", "has no '='"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<TresWeight>> got = ParseTresWeights(c.text);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("invalid TRES weights \"" + c.text + "\": "));
    EXPECT_THAT(got.status().message(), HasSubstr(c.want));
  }
}

// Every TRES string the reference Slurm 22.05 cluster printed (scontrol show job/node/partition)
// parses and formats back byte for byte.
TEST(FormatTresTest, ReproducesSlurmOutput) {
  const std::vector<std::string> outputs = {
      "cpu=1,mem=2000M,node=1,billing=1,gres/gpu=1",
      "cpu=64,mem=250G,billing=64,gres/gpu=8",
      "cpu=64,mem=225536M,gres/gpu=4",
      "cpu=64,mem=177536M,gres/gpu=4",
      "cpu=64,mem=125G,gres/gpu=4",
      "cpu=64,mem=125G,node=1,billing=64",
      "cpu=48,mem=96000M,node=1,billing=48,gres/gpu=4",
      "cpu=256,mem=1000G,node=4,billing=256,gres/gpu=32",
      "cpu=20,mem=40000M,node=2,billing=20",
      "cpu=4,mem=8000M,node=1,billing=4",
      "cpu=32,mem=62.50G,node=1,billing=32,gres/gpu=4",
      "cpu=32,mem=62.50G,node=1,billing=32",
  };
  for (const std::string& text : outputs) {
    SCOPED_TRACE(text);
    Result<std::vector<TresCount>> parsed = ParseTresCounts(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(FormatTres(*parsed), text);
  }
}

TEST(FormatTresTest, SortsIntoSlurmDisplayOrder) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"gres/gpu=1,billing=1,node=1,mem=2000,cpu=1", "cpu=1,mem=2000M,node=1,billing=1,gres/gpu=1"},
      // Built-in TRES in id order, then the rest by type and name.
      {"license/b=1,gres/gpu:b200=2,gres/gpu=3,bb/x=1,fs/lustre=4,fs/disk=5,pages=1,vmem=2,"
       "energy=0",
       "energy=0,fs/disk=5,vmem=2,pages=1,bb/x=1M,fs/lustre=4,gres/gpu=3,gres/gpu:b200=2,"
       "license/b=1"},
      {"", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<TresCount>> parsed = ParseTresCounts(c.text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(FormatTres(*parsed), c.want);
  }
}

TEST(FormatTresTest, ZeroCountsAreKeptForLimitsAndOmittedForScontrol) {
  const std::vector<TresCount> counts = {Count("cpu", "", 0), Count("mem", "", 0),
                                         Count("gres", "gpu", 2)};
  EXPECT_EQ(FormatTres(counts), "cpu=0,mem=0,gres/gpu=2");
  EXPECT_EQ(FormatTres(counts, TresZeros::kOmit), "gres/gpu=2");
}

TEST(FormatTresMemoryMiBTest, MatchesConvertNumUnitExact) {
  struct Case {
    int64_t mib;
    std::string want;
  };
  const std::vector<Case> cases = {
      {0, "0"},
      {1, "1M"},
      {512, "512M"},
      {1023, "1023M"},
      {1024, "1G"},
      {1536, "1.50G"},  // halves are still exact
      {1280, "1280M"},  // quarters are not
      {2000, "2000M"},
      {64000, "62.50G"},
      {96000, "96000M"},
      {128000, "125G"},
      {225536, "225536M"},
      {256000, "250G"},
      {1024000, "1000G"},
      {1048576, "1T"},
      {1572864, "1.50T"},
      {1049088, "1.00T"},  // 1024.5G: Slurm keeps dividing on the integer part and rounds
      {1073741824, "1P"},
      {1099511627776, "1?"},  // past P Slurm prints UNIT_UNKNOWN
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mib);
    EXPECT_EQ(FormatTresMemoryMiB(c.mib), c.want);
  }
}

TEST(TresKeyTest, ParsesAndPrintsKeys) {
  Result<TresKey> key = ParseTresKey("GRES/gpu:b200");
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->type, "gres");
  EXPECT_EQ(key->name, "gpu:b200");
  EXPECT_EQ(key->ToString(), "gres/gpu:b200");
  EXPECT_TRUE(TresTypeTakesName("license"));
  EXPECT_FALSE(TresTypeTakesName("cpu"));
  EXPECT_TRUE(TresTypeIsMemory("bb"));
  EXPECT_FALSE(TresTypeIsMemory("vmem"));
}

}  // namespace
}  // namespace gantry::text
