#include "core/health.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/testing.h"
#include "model/health_report.h"
#include "model/job_state.h"
#include "model/node_state.h"
#include "state/records.h"
#include "state/testing.h"

namespace gantry::core {
namespace {

using model::JobBaseState;
using model::NodeFlag;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

v1::HealthReport Report(const std::string& node, std::vector<v1::HealthCheck> checks) {
  v1::HealthReport report;
  report.set_node(node);
  report.set_time(kNow);
  for (v1::HealthCheck& c : checks) *report.add_checks() = std::move(c);
  return report;
}

v1::HealthCheck Check(const std::string& name, bool ok, const std::string& message) {
  v1::HealthCheck c;
  c.set_name(name);
  c.set_ok(ok);
  c.set_message(message);
  return c;
}

const v1::HealthCheck kDiskOk = Check("disk", true, "spool 9.0 GiB free of 10.0 GiB");
const v1::HealthCheck kGpuGone = Check("gpu", false, "7 of 8 GPUs present (nvidia3 missing)");

class HealthTest : public testing::CoreFixture {
 protected:
  Effects React(const v1::HealthReport& report) {
    Result<Effects> effects = OnHealthReport(At(kNow), report);
    EXPECT_TRUE(effects.ok()) << effects.status().ToString();
    return Carry(effects.ok() ? *std::move(effects) : Effects(), kNow);
  }
  bool Drained(const std::string& node) {
    return state::NodeStateOf(*s_.FindNode(node)).Has(NodeFlag::kDrain);
  }
  // Job `id` runs on n1 (its prolog done).
  void RunOnN1(uint32_t id, bool requeue) {
    v1::Job job = PendingJob(id);
    job.set_requeue(requeue);
    MustApply(&s_, SubmitEvent(job));
    MustApply(&s_, StartEvent(id, {"n1"}));
  }
};

TEST_F(HealthTest, TheReasonIsTheFirstFailure) {
  EXPECT_EQ(model::HealthDrainReason(Report("n1", {kDiskOk})), "");
  EXPECT_EQ(model::HealthDrainReason(Report("n1", {kDiskOk, kGpuGone})),
            "gpu: 7 of 8 GPUs present (nvidia3 missing)");
  // A site's program writes its reason on its first line: it is the reason as it is.
  EXPECT_EQ(model::HealthDrainReason(Report("n1", {Check("program", false, "NHC: ib0 down")})),
            "NHC: ib0 down");
}

TEST_F(HealthTest, AFailedRunDrainsAndAPassingOneResumes) {
  const Effects drained = React(Report("n1", {kDiskOk, kGpuGone}));
  ASSERT_EQ(drained.events.size(), 1u);
  EXPECT_TRUE(Drained("n1"));
  EXPECT_TRUE(s_.FindNode("n1")->health_drained());
  EXPECT_EQ(s_.FindNode("n1")->reason(), "gpu: 7 of 8 GPUs present (nvidia3 missing)");
  EXPECT_EQ(s_.FindNode("n1")->reason_uid(), 0u);
  // The same failure again changes nothing; another one updates the reason.
  EXPECT_TRUE(React(Report("n1", {kGpuGone})).events.empty());
  React(Report("n1", {Check("disk", false, "TmpFS /tmp: 0 B free of 16.0 MiB")}));
  EXPECT_EQ(s_.FindNode("n1")->reason(), "disk: TmpFS /tmp: 0 B free of 16.0 MiB");
  // Passing again: back in service, reason gone.
  ASSERT_EQ(React(Report("n1", {kDiskOk})).events.size(), 1u);
  EXPECT_FALSE(Drained("n1"));
  EXPECT_FALSE(s_.FindNode("n1")->health_drained());
  EXPECT_EQ(s_.FindNode("n1")->reason(), "");
  // A passing run on a node nobody drained changes nothing.
  EXPECT_TRUE(React(Report("n2", {kDiskOk})).events.empty());
}

TEST_F(HealthTest, AnOperatorsDrainStays) {
  MustApply(&s_, NodeOpEvent({"n1"}, "DRAIN", "replacing a DIMM", kNow, 1000));
  EXPECT_TRUE(React(Report("n1", {kGpuGone})).events.empty());
  EXPECT_EQ(s_.FindNode("n1")->reason(), "replacing a DIMM");
  EXPECT_TRUE(React(Report("n1", {kDiskOk})).events.empty());
  EXPECT_TRUE(Drained("n1"));
  // The health check drained it, then an operator drained it again: it is the operator's.
  React(Report("n2", {kGpuGone}));
  MustApply(&s_, NodeOpEvent({"n2"}, "DRAIN", "looking at it", kNow, 1000));
  EXPECT_FALSE(s_.FindNode("n2")->health_drained());
  EXPECT_TRUE(React(Report("n2", {kDiskOk})).events.empty());
  EXPECT_EQ(s_.FindNode("n2")->reason(), "looking at it");
}

TEST_F(HealthTest, ItsJobsAreRequeuedWhenTheyMayBe) {
  RunOnN1(1, /*requeue=*/true);
  RunOnN1(2, /*requeue=*/false);
  const Effects effects = React(Report("n1", {kGpuGone}));
  EXPECT_EQ(state::JobStateOf(*s_.FindJob(1)).base, JobBaseState::kPending);
  EXPECT_EQ(s_.FindJob(1)->state_desc(),
            "health check failed on n1: gpu: 7 of 8 GPUs present (nvidia3 missing)");
  EXPECT_EQ(state::JobStateOf(*s_.FindJob(2)).base, JobBaseState::kRunning);
  // Job 1's processes end on n1 (with its epilog); job 2 is left alone.
  ASSERT_EQ(effects.actions.size(), 1u);
  EXPECT_EQ(effects.actions[0].kind, AgentAction::Kind::kTerminate);
  EXPECT_EQ(effects.actions[0].job->job_id(), 1u);
}

TEST_F(HealthTest, SettingsSayWhatTheNodeDeclares) {
  config_.health.program = "/usr/sbin/nhc";
  config_.health.interval_sec = 300;
  config_.health.node_state = "IDLE,CYCLE";
  config_.health.home_storage = "nfs:/export/home";
  v1::Node& n3 = s_.nodes[2];
  n3.set_gres("gpu:b200:8");
  const v1::HealthSettings settings = HealthSettingsFor(s_, config_, n3);
  EXPECT_EQ(settings.program(), "/usr/sbin/nhc");
  EXPECT_EQ(settings.interval_sec(), 300u);
  EXPECT_EQ(settings.node_state(), "IDLE,CYCLE");
  EXPECT_EQ(settings.gpus(), 8u);
  EXPECT_EQ(settings.home_storage(), "nfs:/export/home");
  EXPECT_EQ(settings.tmp_fs(), "/tmp");
  EXPECT_EQ(settings.node_index(), 2u);
  EXPECT_EQ(settings.node_count(), 4u);
}

TEST_F(HealthTest, AnUnknownNodeIsRefused) {
  EXPECT_EQ(OnHealthReport(At(kNow), Report("n9", {kDiskOk})).status().ToString(),
            "not found: Invalid node name specified: n9");
}

}  // namespace
}  // namespace gantry::core
