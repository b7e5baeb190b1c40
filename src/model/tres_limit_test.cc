#include "model/tres_limit.h"

#include <gtest/gtest.h>

namespace gantry::model {
namespace {

TEST(TresLimitReasonTest, SlurmsNamesByLevelKindAndTres) {
  const struct {
    bool qos;
    TresLimitKind kind;
    const char* tres;
    const char* reason;
  } cases[] = {
      {false, TresLimitKind::kGrp, "cpu", "AssocGrpCpuLimit"},
      {false, TresLimitKind::kGrp, "gres/gpu", "AssocGrpGRES"},
      {false, TresLimitKind::kGrp, "billing", "AssocGrpBilling"},
      {false, TresLimitKind::kGrpMins, "cpu", "AssocGrpCPUMinutesLimit"},
      {false, TresLimitKind::kMaxPerJob, "mem", "AssocMaxMemPerJob"},
      {false, TresLimitKind::kMaxPerNode, "mem", "AssocMaxMemPerNode"},
      {false, TresLimitKind::kMaxMinsPerJob, "cpu", "AssocMaxCpuMinutesPerJobLimit"},
      {true, TresLimitKind::kGrpRunMins, "cpu", "QOSGrpCPURunMinutesLimit"},
      {true, TresLimitKind::kGrpMins, "mem", "QOSGrpMemoryMinutes"},
      {true, TresLimitKind::kMaxPerJob, "node", "QOSMaxNodePerJobLimit"},
      {true, TresLimitKind::kMaxPerUser, "cpu", "QOSMaxCpuPerUserLimit"},
      {true, TresLimitKind::kMinPerJob, "cpu", "QOSMinCpuNotSatisfied"},
      {true, TresLimitKind::kMinPerJob, "gres/gpu:h100", "QOSMinGRES"},
      {true, TresLimitKind::kGrp, "energy", "QOSGrpUnknown"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(TresLimitReason(c.qos, c.kind, c.tres), c.reason) << c.reason;
  }
}

TEST(TresLimitTextTest, AssociationsHaveNoPerUserOrMinimumLists) {
  v1::Association a;
  a.set_max_tres_per_node("mem=1000M");
  EXPECT_EQ(TresLimitText(a, TresLimitKind::kMaxPerNode), "mem=1000M");
  EXPECT_EQ(MutableTresLimit(&a, TresLimitKind::kMaxPerUser), nullptr);
  EXPECT_EQ(TresLimitText(a, TresLimitKind::kMinPerJob), "");
  v1::Qos q;
  *MutableTresLimit(&q, TresLimitKind::kMinPerJob) = "cpu=2";
  EXPECT_EQ(q.min_tres_per_job(), "cpu=2");
}

}  // namespace
}  // namespace gantry::model
