#include "model/pending_reason.h"

#include <gtest/gtest.h>

namespace gantry::model {
namespace {

TEST(PendingReasonTest, EveryReasonParsesBackFromItsName) {
  for (PendingReason r : {PendingReason::kNone, PendingReason::kResources,
                          PendingReason::kReqNodeNotAvail, PendingReason::kAssocGrpJobsLimit}) {
    EXPECT_EQ(ParsePendingReason(PendingReasonName(r)), r) << PendingReasonName(r);
  }
  EXPECT_EQ(PendingReasonName(PendingReason::kQosMaxJobsPerUserLimit), "QOSMaxJobsPerUserLimit");
}

TEST(PendingReasonTest, TextAfterTheNameAndOtherTexts) {
  EXPECT_EQ(ParsePendingReason("ReqNodeNotAvail, UNAVAILABLE:n[1-2]"),
            PendingReason::kReqNodeNotAvail);
  EXPECT_EQ(ParsePendingReason("AssocGrpCpuLimit"), std::nullopt);  // model/tres_limit.h's
  EXPECT_EQ(ParsePendingReason("launch failed requeued held"), std::nullopt);
  EXPECT_EQ(ParsePendingReason("resources"), std::nullopt);  // names are exact
}

}  // namespace
}  // namespace gantry::model
