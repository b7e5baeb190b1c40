#include "text/memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace gantry::text {
namespace {

using ::testing::HasSubstr;

struct ParseCase {
  std::string_view text;
  int64_t mib;
};

TEST(ParseMemoryMiBTest, ReadsSizesLikeStrToMbytes) {
  const ParseCase cases[] = {
      {"4096", 4096},   // no suffix means MiB
      {"2000M", 2000},  //
      {"2000m", 2000},  //
      {"4G", 4096},     //
      {"4g", 4096},     //
      {"1T", 1048576},  //
      {"1t", 1048576},  //
      {"512K", 1},      // K rounds up to whole MiB
      {"1k", 1},        //
      {"1024K", 1},     //
      {"1025K", 2},     //
      {"0K", 0},        //
      {"0", 0},         //
      {"4GB", 4096},    // a trailing B is allowed
      {"4gb", 4096},    //
      {"100MB", 100},   //
      {"2500mb", 2500},
      {" 42", 42},  // strtoll skips leading white space and takes a '+'
      {"+42", 42},
      {"-0", 0},
      {"8796093022207T", 9223372036853727232},  // the most terabytes that fit
      {"9223372036854775807", std::numeric_limits<int64_t>::max()},
      {"9223372036854775807K", 9007199254740992},
  };
  for (const ParseCase& c : cases) {
    const Result<int64_t> r = ParseMemoryMiB(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.mib) << c.text;
  }
}

TEST(ParseMemoryMiBTest, RefusesMalformedSizes) {
  for (std::string_view text : {"", "abc", "4X", "G", "4.5G", "2.5gb", "4 G", "4G ", "4GiB", "4BB",
                                "4B", "0x10", "1P", " ", "+", "4G\n"}) {
    const Result<int64_t> r = ParseMemoryMiB(text);
    ASSERT_FALSE(r.ok()) << '"' << text << "\" parsed as " << *r;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr("invalid memory size")) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("optional K, M, G or T suffix")) << text;
  }
  EXPECT_EQ(ParseMemoryMiB("4X").status().message(),
            "invalid memory size \"4X\": expected a whole number of MiB with an optional K, M, G "
            "or T suffix, e.g. 4096 or 4G");
}

TEST(ParseMemoryMiBTest, RefusesNegativeSizes) {
  for (std::string_view text : {"-1", "-4G", "-99999999999999999999"}) {
    const Result<int64_t> r = ParseMemoryMiB(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("must not be negative")) << text;
  }
}

TEST(ParseMemoryMiBTest, RefusesSizesThatWouldOverflow) {
  for (std::string_view text : {"9223372036854775808", "99999999999999999999", "8796093022208T",
                                "9007199254740992G", "9223372036854775807T"}) {
    const Result<int64_t> r = ParseMemoryMiB(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("too large")) << text;
  }
}

struct FormatCase {
  int64_t mib;
  std::string_view text;
};

TEST(FormatMemoryMiBTest, MatchesConvertNumUnitExact) {
  const FormatCase cases[] = {
      {0, "0"},           {1, "1M"},          {512, "512M"},
      {1023, "1023M"},    {1024, "1G"},       {1536, "1.50G"},  // half units count as exact
      {2000, "2000M"},    {2048, "2G"},       {1048576, "1T"},
      {1572864, "1.50T"}, {1073741824, "1P"}, {int64_t{1} << 40, "1?"},  // past P Slurm prints '?'
      {-5, "-5M"},
  };
  for (const FormatCase& c : cases) EXPECT_EQ(FormatMemoryMiB(c.mib), c.text) << c.mib;
}

TEST(FormatMemoryMiBTest, MatchesTheReferenceOutputs) {
  const FormatCase cases[] = {
      {256000, "250G"},     // scontrol show node: RealMemory=256000, CfgTRES=...,mem=250G
      {225536, "225536M"},  // AllocMem=225536, AllocTRES=...,mem=225536M
      {128000, "125G"},     // AllocTRES=cpu=64,mem=125G
      {96000, "96000M"},    // job TRES=cpu=48,mem=96000M (48 CPUs x 2000M)
      {64000, "62.50G"},    // job TRES=cpu=32,mem=62.50G (32 CPUs x 2000M)
      {40000, "40000M"},    // array job TRES mem=40000M
      {8000, "8000M"},      // held job TRES mem=8000M, sacct ReqMem 8000M
      {2000, "2000M"},      // MinMemoryCPU=2000M
      {1024000, "1000G"},   // scontrol show partition TRES=...,mem=1000G (4 x 256000)
  };
  for (const FormatCase& c : cases) EXPECT_EQ(FormatMemoryMiB(c.mib), c.text) << c.mib;
}

TEST(MemoryRoundTripTest, WholeNumberOutputParsesBack) {
  for (int64_t mib : {int64_t{0}, int64_t{1}, int64_t{1023}, int64_t{1024}, int64_t{2000},
                      int64_t{96000}, int64_t{256000}, int64_t{1048576}, int64_t{3} << 30}) {
    const std::string text = FormatMemoryMiB(mib);
    if (text.back() == 'P') continue;  // Slurm's str_to_mbytes has no P either
    const Result<int64_t> back = ParseMemoryMiB(text);
    ASSERT_TRUE(back.ok()) << text;
    EXPECT_EQ(*back, mib) << text;
  }
  EXPECT_FALSE(ParseMemoryMiB(FormatMemoryMiB(64000)).ok());  // "62.50G": Slurm can't read it
}

}  // namespace
}  // namespace gantry::text
