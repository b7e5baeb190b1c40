#include "text/gres.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gantry::text {
namespace {

using ::testing::HasSubstr;

GresSpec Gres(std::string name, std::string type, int64_t count, bool no_consume = false) {
  return GresSpec{std::move(name), std::move(type), count, no_consume};
}

TEST(ParseGresTest, ReadsJobRequestsAsSbatchDocumentsThem) {
  struct Case {
    std::string text;
    std::vector<GresSpec> want;
  };
  const std::vector<Case> cases = {
      {"", {}},
      {"gpu", {Gres("gpu", "", 1)}},  // count defaults to 1
      {"gpu:2", {Gres("gpu", "", 2)}},
      {"gpu:kepler:2", {Gres("gpu", "kepler", 2)}},  // sbatch(1) example
      {"gpu:b200:8", {Gres("gpu", "b200", 8)}},
      {"gpu:b200", {Gres("gpu", "b200", 1)}},
      {"gpu:2,nic:1", {Gres("gpu", "", 2), Gres("nic", "", 1)}},
      {"gpu:a100:2,gpu:h100:1", {Gres("gpu", "a100", 2), Gres("gpu", "h100", 1)}},
      // Prefixed forms: scontrol's TresPerNode= and TRES spelling.
      {"gres:gpu:4", {Gres("gpu", "", 4)}},
      {"gres/gpu:2,gres:nic:1", {Gres("gpu", "", 2), Gres("nic", "", 1)}},
      // Count suffixes multiply by powers of 1024.
      {"mps:1k", {Gres("mps", "", 1024)}},
      {"bandwidth:2M", {Gres("bandwidth", "", 2097152)}},
      {"bandwidth:lustre:4G", {Gres("bandwidth", "lustre", 4294967296)}},
      {"x:1t", {Gres("x", "", 1099511627776)}},
      {"x:1P", {Gres("x", "", 1125899906842624)}},
      // Explicit zero counts are dropped (srun --gres=gpu:0 asks for no GPU).
      {"gpu:0", {}},
      {"gpu:b200:0,nic:1", {Gres("nic", "", 1)}},
      {"gpu:0,gpu:b200:1", {Gres("gpu", "b200", 1)}},
      {"none", {}},
      {"NONE", {}},
      // Names and types with the characters autodetected models use.
      {"gpu:nvidia_a100-sxm4-80gb:1", {Gres("gpu", "nvidia_a100-sxm4-80gb", 1)}},
      {"gpu:a100_3g.40gb:2", {Gres("gpu", "a100_3g.40gb", 2)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<GresSpec>> got = ParseGres(c.text, GresSyntax::kJobRequest);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseGresTest, ReadsNodeConfigurationAsSlurmConfDocumentsIt) {
  struct Case {
    std::string text;
    std::vector<GresSpec> want;
  };
  const std::vector<Case> cases = {
      {"gpu:8", {Gres("gpu", "", 8)}},  // the anchor cluster's NodeName ... Gres=gpu:8
      {"gpu:b200:8", {Gres("gpu", "b200", 8)}},
      // slurm.conf(5) example.
      {"gpu:tesla:1,gpu:kepler:1,bandwidth:lustre:no_consume:4G",
       {Gres("gpu", "tesla", 1), Gres("gpu", "kepler", 1),
        Gres("bandwidth", "lustre", 4294967296, true)}},
      {"bandwidth:no_consume:4G", {Gres("bandwidth", "", 4294967296, true)}},
      {"gpu:0", {Gres("gpu", "", 0)}},  // a node may declare none
      {"gpu", {Gres("gpu", "", 1)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<GresSpec>> got = ParseGres(c.text, GresSyntax::kNodeConfig);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseGresTest, ErrorsNameTheEntryAndTheRule) {
  struct Case {
    std::string text;
    GresSyntax syntax;
    std::string want;
  };
  const GresSyntax kJob = GresSyntax::kJobRequest;
  const GresSyntax kNode = GresSyntax::kNodeConfig;
  const std::vector<Case> cases = {
      {"gpu:-1", kJob, "count \"-1\" is negative"},
      {"gpu:1,nic:-1", kJob, "in entry \"nic:-1\""},
      {":2", kJob, "missing GRES name before ':' in entry \":2\""},
      {"gpu::2", kJob, "empty type between ':'"},
      {"gpu:b200:", kJob, "missing count after ':'"},
      {"gpu:", kJob, "missing count after ':'"},
      {"gpu:2x", kJob, "count \"2x\" has unexpected text \"x\""},
      {"gpu:2kb", kJob, "has unexpected text \"kb\""},
      {"gpu:2:3", kJob, "text after the count"},
      {"gpu:a:b:2", kJob, "unexpected field \"b\""},
      {"gpu:2,,nic:1", kJob, "entry 2 is empty"},
      {"gpu:2,", kJob, "entry 2 is empty"},
      {"gpu:2,gpu:3", kJob, "gpu is given twice"},
      {"gpu:b200:2,gpu:b200:1", kJob, "gpu:b200 is given twice"},
      {"gpu:2,gpu:b200:1", kJob, "GRES gpu is given both with and without a type"},
      {"gpu:b200:1,gpu:1", kNode, "GRES gpu is given both with and without a type"},
      {"gpu:99999999999999999999", kJob, "is too large"},
      {"gpu:9223372036854775808", kJob, "is too large"},
      {"gpu:8388608T", kJob, "is too large"},
      {"9gpu:1", kJob, "GRES name \"9gpu\" must start with a letter or '_'"},
      {"g pu:1", kJob, "may only contain letters, digits"},
      {"gpu:b/200:1", kJob, "GRES type \"b/200\" may only contain"},
      {"gpu:+2", kJob, "count \"+2\" is not a number"},
      {"gres:2", kJob, "GRES name \"gres\" is reserved"},
      {"gres:gres:x:1", kJob, "GRES name \"gres\" is reserved"},
      {"bw:no_consume:lustre:4G", kNode, "unexpected field \"lustre\""},
      {"bw:no_consume:no_consume:4G", kNode, "no_consume is given twice"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<std::vector<GresSpec>> got = ParseGres(c.text, c.syntax);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("invalid GRES \"" + c.text + "\": "));
    EXPECT_THAT(got.status().message(), HasSubstr(c.want));
  }
}

TEST(ParseGresTest, NoneMeansNoGresOnlyInJobRequests) {
  Result<std::vector<GresSpec>> job = ParseGres("none", GresSyntax::kJobRequest);
  ASSERT_TRUE(job.ok());
  EXPECT_TRUE(job->empty());
  Result<std::vector<GresSpec>> node = ParseGres("none", GresSyntax::kNodeConfig);
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(*node, std::vector<GresSpec>{Gres("none", "", 1)});
}

TEST(FormatGresTest, PrintsScontrolForms) {
  const std::vector<GresSpec> gres = {Gres("gpu", "b200", 8), Gres("nic", "", 1)};
  EXPECT_EQ(FormatGres(gres), "gpu:b200:8,nic:1");
  EXPECT_EQ(FormatGresTresPerNode(gres), "gres:gpu:b200:8,gres:nic:1");
  EXPECT_EQ(FormatGres({Gres("gpu", "", 8)}), "gpu:8");                  // scontrol Gres=gpu:8
  EXPECT_EQ(FormatGresTresPerNode({Gres("gpu", "", 4)}), "gres:gpu:4");  // TresPerNode=
  EXPECT_EQ(FormatGres({Gres("bandwidth", "lustre", 4294967296, true)}),
            "bandwidth:lustre:no_consume:4294967296");
  EXPECT_EQ(FormatGres({}), "");
}

TEST(FormatGresTest, RoundTripsThroughParse) {
  for (const std::string text : {"gpu:b200:8,nic:1", "gpu:1", "gres:gpu:4", "mps:1k"}) {
    SCOPED_TRACE(text);
    Result<std::vector<GresSpec>> parsed = ParseGres(text, GresSyntax::kJobRequest);
    ASSERT_TRUE(parsed.ok());
    Result<std::vector<GresSpec>> again = ParseGres(FormatGres(*parsed), GresSyntax::kJobRequest);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *parsed);
    Result<std::vector<GresSpec>> tres =
        ParseGres(FormatGresTresPerNode(*parsed), GresSyntax::kJobRequest);
    ASSERT_TRUE(tres.ok());
    EXPECT_EQ(*tres, *parsed);
  }
}

TEST(GresTresNameTest, NamesTheGresTres) {
  EXPECT_EQ(GresTresName(Gres("gpu", "", 2)), "gpu");
  EXPECT_EQ(GresTresName(Gres("gpu", "b200", 2)), "gpu:b200");
}

}  // namespace
}  // namespace gantry::text
