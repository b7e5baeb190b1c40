#include "slurm/sacctmgr_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace gantry::slurm {
namespace {

TEST(TresLimitNamedTest, EverySpellingSacctmgrTakes) {
  using model::TresLimitKind;
  const struct {
    const char* key;
    TresLimitKind kind;
    const char* label;
  } cases[] = {
      {"GrpTRES", TresLimitKind::kGrp, "GrpTRES"},
      {"grptresmins", TresLimitKind::kGrpMins, "GrpTRESMins"},
      {"GrpTRESRunMin", TresLimitKind::kGrpRunMins, "GrpTRESRunMins"},
      {"MaxTRES", TresLimitKind::kMaxPerJob, "MaxTRESPerJob"},
      {"MaxTRESPerNode", TresLimitKind::kMaxPerNode, "MaxTRESPerNode"},
      {"MaxTRESMins", TresLimitKind::kMaxMinsPerJob, "MaxTRESMinsPerJob"},
      {"MaxTRESPU", TresLimitKind::kMaxPerUser, "MaxTRESPerUser"},
      {"MinTRES", TresLimitKind::kMinPerJob, "MinTRESPerJob"},
  };
  for (const auto& c : cases) {
    const std::optional<TresLimitName> got = TresLimitNamed(c.key);
    ASSERT_TRUE(got.has_value()) << c.key;
    EXPECT_EQ(got->kind, c.kind) << c.key;
    EXPECT_EQ(got->label, c.label) << c.key;
  }
  EXPECT_FALSE(TresLimitNamed("MaxTR").has_value());
  EXPECT_FALSE(TresLimitNamed("GrpJobs").has_value());
}

TEST(MergeTresLimitTest, MergesPerTresAndMinusOneTakesOneAway) {
  const struct {
    const char* have;
    const char* set;
    const char* want;
  } cases[] = {
      {"", "cpu=4", "cpu=4"},
      {"cpu=4", "gres/gpu=2", "cpu=4,gres/gpu=2"},
      {"cpu=4,gres/gpu=2", "cpu=8", "cpu=8,gres/gpu=2"},
      {"cpu=4,gres/gpu=2", "cpu=-1", "gres/gpu=2"},
      {"cpu=4", "cpu=-1,mem=2G", "mem=2G"},
      {"", "mem=1000", "mem=1000M"},
  };
  for (const auto& c : cases) {
    std::string limit = c.have;
    std::string bad;
    ASSERT_TRUE(MergeTresLimit(c.set, &limit, &bad)) << c.set << ": " << bad;
    EXPECT_EQ(limit, c.want) << c.have << " + " << c.set;
  }
  std::string limit = "cpu=4";
  std::string bad;
  EXPECT_FALSE(MergeTresLimit("cpu=lots", &limit, &bad));
  EXPECT_NE(bad.find("cpu=lots"), std::string::npos) << bad;
  EXPECT_EQ(limit, "cpu=4");  // unchanged
}

}  // namespace
}  // namespace gantry::slurm
