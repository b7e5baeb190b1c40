#include "core/registration.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cycle.h"
#include "core/job_actions.h"
#include "core/reactions.h"
#include "core/testing.h"
#include "model/job_state.h"
#include "state/records.h"
#include "state/testing.h"
#include "state/volatile_updates.h"

namespace gantry::core {
namespace {

using model::JobBaseState;
using namespace state::testing;  // NOLINT(google-build-using-namespace): the state builders

class RegistrationTest : public testing::CoreFixture {
 protected:
  // Job `id` (one node) starts at kNow on n1; its prolog is done unless `configuring`.
  void Start(uint32_t id, bool configuring = false) {
    MustApply(&s_, SubmitEvent(PendingJob(id)));
    const Effects scheduled = Carry(ScheduleStage(At(kNow)), kNow);
    Carry(PrologStage(At(kNow), StartedJobs(scheduled.events)), kNow);
    if (configuring) return;
    v1::JobReport report;
    report.set_job_id(id);
    report.set_epoch(s_.FindJob(id)->agent_epoch());
    report.set_kind(v1::JobReport::PROLOG_OK);
    report.set_node("n1");
    Carry(*OnReport(At(kNow), report), kNow);
  }

  static v1::RegisterRequest Registering(const std::string& node,
                                         const std::vector<uint32_t>& running) {
    v1::RegisterRequest r;
    r.set_node(node);
    r.set_address("127.0.0.1:7001");
    r.set_hostname("localhost");
    r.set_boot_time(kNow + 50);
    for (uint32_t id : running) r.add_running_job_ids(id);
    return r;
  }

  v1::HeartbeatRequest Beat(const std::string& node, const std::vector<uint32_t>& held) {
    v1::HeartbeatRequest h;
    h.set_node(node);
    h.set_boot_time(s_.FindNode(node)->boot_time());
    for (uint32_t id : held) {
      h.add_job_ids(id);
      if (const v1::Job* job = s_.FindJob(id)) (*h.mutable_epochs())[id] = job->agent_epoch();
    }
    return h;
  }

  JobBaseState Base(uint32_t id) { return state::JobStateOf(*s_.FindJob(id)).base; }
};

TEST_F(RegistrationTest, ANodeBackWithoutItsJobRequeuesItAndNamesTheJobsItMustEnd) {
  Start(1);
  const int64_t now = kNow + 60;
  Result<Registration> r = OnRegister(At(now), Registering("n1", {77}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stale_job_ids, std::vector<uint32_t>{77});
  ASSERT_GE(r->effects.events.size(), 2u);
  EXPECT_TRUE(r->effects.events[0].has_node_registered());
  Carry(std::move(r->effects), now);
  EXPECT_EQ(Base(1), JobBaseState::kPending);
  EXPECT_EQ(s_.FindJob(1)->state_desc(), "node n1 restarted without the job");
  EXPECT_EQ(memory_.last_heard.at("n1"), now * 1000);
  // n1 released the job with its requeue (it will run no epilog for it): nothing is owed.
  EXPECT_TRUE(s_.FindNode("n1")->job_ids().empty());
  EXPECT_TRUE(AfterRegister(At(now), Registering("n1", {77})).actions.empty());
}

TEST_F(RegistrationTest, AJobStillConfiguringGetsItsPrologAgain) {
  Start(1, /*configuring=*/true);
  Result<Registration> r = OnRegister(At(kNow + 5), Registering("n1", {}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->effects.events.size(), 1u);  // registered; the job stays
  Carry(std::move(r->effects), kNow + 5);
  EXPECT_EQ(Base(1), JobBaseState::kRunning);
  const Effects missed = AfterRegister(At(kNow + 5), Registering("n1", {}));
  ASSERT_EQ(missed.actions.size(), 1u);
  EXPECT_EQ(missed.actions[0].kind, AgentAction::Kind::kPrepare);
}

TEST_F(RegistrationTest, AnUnknownNodeIsRefused) {
  EXPECT_EQ(OnRegister(At(kNow), Registering("n9", {})).status().ToString(),
            "not found: Invalid node name specified: n9");
  v1::HeartbeatRequest h;
  h.set_node("n9");
  EXPECT_EQ(OnHeartbeat(At(kNow), h).status().ToString(),
            "not found: Invalid node name specified: n9");
}

TEST_F(RegistrationTest, AHeartbeatFromARebootedNodeAsksForARegistration) {
  v1::HeartbeatRequest h = Beat("n2", {});
  h.set_boot_time(h.boot_time() + 100);
  Result<HeartbeatReaction> r = OnHeartbeat(At(kNow), h);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->reregister);
  EXPECT_FALSE(memory_.last_heard.contains("n2"));
}

// The batch script's call got lost: the agent holds the job but has not launched it. The
// heartbeats show it; it goes again once it stays owed past KillWait + two beats + 5 s.
TEST_F(RegistrationTest, ALostLaunchGoesAgainOnceOverdue) {
  Start(1);
  Result<HeartbeatReaction> first = OnHeartbeat(At(kNow + 1), Beat("n1", {1}));
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->reregister);
  EXPECT_TRUE(first->effects.actions.empty());
  const int64_t overdue =
      kNow + 1 + config_.kill_wait_sec + int64_t{2} * HeartbeatIntervalSec(config_) + 5;
  EXPECT_TRUE(OnHeartbeat(At(overdue - 1), Beat("n1", {1}))->effects.actions.empty());
  Result<HeartbeatReaction> again = OnHeartbeat(At(overdue), Beat("n1", {1}));
  ASSERT_EQ(again->effects.actions.size(), 1u);
  EXPECT_EQ(again->effects.actions[0].kind, AgentAction::Kind::kLaunchBatch);
  EXPECT_EQ(again->effects.log,
            std::vector<std::string>{"job 1: n1 missed its LaunchBatch: sending it again"});
  // Launched at last: nothing is owed, and nothing is remembered.
  v1::HeartbeatRequest launched = Beat("n1", {1});
  launched.add_launched_job_ids(1);
  EXPECT_TRUE(OnHeartbeat(At(overdue + 1), launched)->effects.actions.empty());
  EXPECT_TRUE(memory_.missing_since.empty());
}

// The job was requeued and started again; the agent still holds its first launch (a call that
// came late): that one is ended at once.
TEST_F(RegistrationTest, AnEarlierLaunchStillHeldIsEndedAtOnce) {
  Start(1);
  MustApply(&s_, state::testing::RequeueEvent(1));
  MustApply(&s_, ReleaseEvent(1, "n1"));
  Carry(ScheduleStage(At(kNow + 1)), kNow + 1);
  ASSERT_EQ(s_.FindJob(1)->agent_epoch(), 2u);
  v1::HeartbeatRequest h = Beat("n1", {1, 42});
  (*h.mutable_epochs())[1] = 1;
  Result<HeartbeatReaction> r = OnHeartbeat(At(kNow + 1), h);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stale_job_ids, std::vector<uint32_t>{42});
  ASSERT_EQ(r->effects.actions.size(), 1u);
  EXPECT_EQ(r->effects.actions[0].kind, AgentAction::Kind::kTerminate);
  EXPECT_EQ(r->effects.actions[0].epoch, 1u);
}

}  // namespace
}  // namespace gantry::core
