#include "model/job_state.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gantry::model {
namespace {

using ::testing::HasSubstr;

JobState State(JobBaseState base, std::vector<JobFlag> flags = {}) {
  JobState state{base, 0};
  for (JobFlag flag : flags) state.Set(flag);
  return state;
}

TEST(JobStateNamesTest, BaseStatesHaveSlurmsLongAndShortNames) {
  struct Case {
    JobBaseState state;
    std::string name;
    std::string code;
  };
  const std::vector<Case> cases = {
      {JobBaseState::kPending, "PENDING", "PD"},
      {JobBaseState::kRunning, "RUNNING", "R"},
      {JobBaseState::kSuspended, "SUSPENDED", "S"},
      {JobBaseState::kCompleted, "COMPLETED", "CD"},
      {JobBaseState::kCancelled, "CANCELLED", "CA"},
      {JobBaseState::kFailed, "FAILED", "F"},
      {JobBaseState::kTimeout, "TIMEOUT", "TO"},
      {JobBaseState::kNodeFail, "NODE_FAIL", "NF"},
      {JobBaseState::kPreempted, "PREEMPTED", "PR"},
      {JobBaseState::kBootFail, "BOOT_FAIL", "BF"},
      {JobBaseState::kDeadline, "DEADLINE", "DL"},
      {JobBaseState::kOutOfMemory, "OUT_OF_MEMORY", "OOM"},
  };
  ASSERT_EQ(cases.size(), static_cast<size_t>(kJobBaseStateCount));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(JobBaseStateName(c.state), c.name);
    EXPECT_EQ(JobBaseStateCode(c.state), c.code);
    EXPECT_EQ(JobStateName(State(c.state)), c.name);
    EXPECT_EQ(JobStateCode(State(c.state)), c.code);
  }
}

TEST(JobStateNamesTest, DisplayedFlagsReplaceTheBaseStateInPrecedenceOrder) {
  struct Case {
    JobState state;
    std::string name;
    std::string code;
  };
  const std::vector<Case> cases = {
      {State(JobBaseState::kRunning, {JobFlag::kCompleting}), "COMPLETING", "CG"},
      {State(JobBaseState::kCompleted, {JobFlag::kCompleting}), "COMPLETING", "CG"},
      {State(JobBaseState::kCompleted, {JobFlag::kStageOut}), "STAGE_OUT", "SO"},
      {State(JobBaseState::kRunning, {JobFlag::kConfiguring, JobFlag::kPowerUpNode}), "CONFIGURING",
       "CF"},
      {State(JobBaseState::kRunning, {JobFlag::kResizing}), "RESIZING", "RS"},
      {State(JobBaseState::kPending, {JobFlag::kRequeue}), "REQUEUED", "RQ"},
      {State(JobBaseState::kPending, {JobFlag::kRequeueFed}), "REQUEUE_FED", "RF"},
      {State(JobBaseState::kPending, {JobFlag::kRequeueHold}), "REQUEUE_HOLD", "RH"},
      {State(JobBaseState::kPending, {JobFlag::kSpecialExit}), "SPECIAL_EXIT", "SE"},
      {State(JobBaseState::kRunning, {JobFlag::kStopped}), "STOPPED", "ST"},
      {State(JobBaseState::kPending, {JobFlag::kRevoked}), "REVOKED", "RV"},
      {State(JobBaseState::kPending, {JobFlag::kResvDelHold}), "RESV_DEL_HOLD", "RD"},
      {State(JobBaseState::kRunning, {JobFlag::kSignaling}), "SIGNALING", "SI"},
      // Precedence between flags.
      {State(JobBaseState::kRunning, {JobFlag::kCompleting, JobFlag::kStageOut}), "COMPLETING",
       "CG"},
      {State(JobBaseState::kRunning, {JobFlag::kStageOut, JobFlag::kConfiguring}), "STAGE_OUT",
       "SO"},
      {State(JobBaseState::kPending, {JobFlag::kRequeueHold, JobFlag::kRequeue}), "REQUEUED", "RQ"},
      {State(JobBaseState::kPending, {JobFlag::kResvDelHold, JobFlag::kSpecialExit}),
       "SPECIAL_EXIT", "SE"},
      // Internal flags never show.
      {State(JobBaseState::kPending, {JobFlag::kLaunchFailed, JobFlag::kUpdateDb}), "PENDING",
       "PD"},
      {State(JobBaseState::kRunning, {JobFlag::kReconfigFail, JobFlag::kPowerUpNode}), "RUNNING",
       "R"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(JobStateComplete(c.state));
    EXPECT_EQ(JobStateName(c.state), c.name);
    EXPECT_EQ(JobStateCode(c.state), c.code);
  }
}

TEST(JobStateNamesTest, CompleteFormListsBaseThenEveryFlag) {
  EXPECT_EQ(JobStateComplete(State(JobBaseState::kRunning)), "RUNNING");
  EXPECT_EQ(
      JobStateComplete(State(JobBaseState::kRunning, {JobFlag::kRequeue, JobFlag::kCompleting})),
      "RUNNING,COMPLETING,REQUEUED");
  EXPECT_EQ(
      JobStateComplete(State(JobBaseState::kPending, {JobFlag::kStageOut, JobFlag::kLaunchFailed,
                                                      JobFlag::kUpdateDb, JobFlag::kRequeueHold})),
      "PENDING,LAUNCH_FAILED,UPDATE_DB,REQUEUE_HOLD,STAGE_OUT");
  EXPECT_EQ(JobFlagName(JobFlag::kPowerUpNode), "POWER_UP_NODE");
  EXPECT_EQ(JobFlagCode(JobFlag::kPowerUpNode), "");
  EXPECT_EQ(JobFlagCode(JobFlag::kRequeueHold), "RH");
}

TEST(JobStatePredicatesTest, PendingActiveAndFinishedPartitionTheBaseStates) {
  for (JobBaseState base : kAllJobBaseStates) {
    SCOPED_TRACE(JobBaseStateName(base));
    EXPECT_EQ(IsPending(base) + IsActive(base) + IsFinished(base), 1);
  }
  EXPECT_TRUE(IsPending(JobBaseState::kPending));
  EXPECT_TRUE(IsActive(JobBaseState::kRunning));
  EXPECT_TRUE(IsActive(JobBaseState::kSuspended));
  EXPECT_TRUE(IsFinished(JobBaseState::kCompleted));
  EXPECT_TRUE(IsFinished(JobBaseState::kOutOfMemory));
  EXPECT_TRUE(IsCompleted(State(JobBaseState::kTimeout)));
  EXPECT_FALSE(IsCompleted(State(JobBaseState::kTimeout, {JobFlag::kCompleting})));
  EXPECT_FALSE(IsCompleted(State(JobBaseState::kRunning)));
}

TEST(ParseJobStateSelectorTest, AcceptsLongAndShortNamesInAnyCase) {
  struct Case {
    std::string text;
    JobStateSelector want;
  };
  const auto base = [](JobBaseState state) { return JobStateSelector{false, state, {}}; };
  const auto flag = [](JobFlag f) { return JobStateSelector{true, JobBaseState::kPending, f}; };
  const std::vector<Case> cases = {
      {"PENDING", base(JobBaseState::kPending)},
      {"pd", base(JobBaseState::kPending)},
      {"running", base(JobBaseState::kRunning)},
      {"R", base(JobBaseState::kRunning)},
      {"Cd", base(JobBaseState::kCompleted)},
      {"cancelled", base(JobBaseState::kCancelled)},
      {"oom", base(JobBaseState::kOutOfMemory)},
      {"out_of_memory", base(JobBaseState::kOutOfMemory)},
      {"NF", base(JobBaseState::kNodeFail)},
      {"CG", flag(JobFlag::kCompleting)},
      {"completing", flag(JobFlag::kCompleting)},
      {"REQUEUED", flag(JobFlag::kRequeue)},
      {"rq", flag(JobFlag::kRequeue)},
      {"RH", flag(JobFlag::kRequeueHold)},
      {"REQUEUE_FED", flag(JobFlag::kRequeueFed)},
      {"SO", flag(JobFlag::kStageOut)},
      {"resv_del_hold", flag(JobFlag::kResvDelHold)},
      {"SI", flag(JobFlag::kSignaling)},
      {"stopped", flag(JobFlag::kStopped)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Result<JobStateSelector> got = ParseJobStateSelector(c.text);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->is_flag, c.want.is_flag);
    if (c.want.is_flag) {
      EXPECT_EQ(got->flag, c.want.flag);
    } else {
      EXPECT_EQ(got->base, c.want.base);
    }
  }
}

TEST(ParseJobStateSelectorTest, RefusesOtherWordsAndListsTheValidOnes) {
  for (const std::string text : {"", "REQUEUE", "run", "R ", "all", "LAUNCH_FAILED", "UPDATE_DB"}) {
    SCOPED_TRACE(text);
    Result<JobStateSelector> got = ParseJobStateSelector(text);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("invalid job state \"" + text + "\""));
    EXPECT_THAT(got.status().message(), HasSubstr("PENDING (PD)"));
    EXPECT_THAT(got.status().message(), HasSubstr("REQUEUE_HOLD (RH)"));
  }
}

TEST(ParseJobStateSelectorTest, SacctAcceptsOnlyAccountedStates) {
  for (const std::string text : {"PD", "R", "CD", "OOM", "RQ", "RESIZING", "RV"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(SacctSupportsJobState(*ParseJobStateSelector(text)));
  }
  for (const std::string text : {"CG", "RH", "SE", "SO", "ST", "SI", "RD", "RF", "CF"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(SacctSupportsJobState(*ParseJobStateSelector(text)));
  }
}

TEST(JobStateFilterTest, ParsesSqueueStateLists) {
  Result<JobStateFilter> all = ParseJobStateFilter("ALL");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->all);

  Result<JobStateFilter> list = ParseJobStateFilter("PD,r,,CG");
  ASSERT_TRUE(list.ok());
  EXPECT_FALSE(list->all);
  ASSERT_EQ(list->selectors.size(), 3u);
  EXPECT_EQ(list->selectors[1].base, JobBaseState::kRunning);
  EXPECT_TRUE(list->selectors[2].is_flag);

  for (const std::string text : {"", ",", "PD,bogus"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(ParseJobStateFilter(text).ok());
  }
  EXPECT_THAT(ParseJobStateFilter(",").status().message(), HasSubstr("no state given"));
  EXPECT_THAT(ParseJobStateFilter("PD,bogus").status().message(),
              HasSubstr("invalid job state \"bogus\""));
}

TEST(JobStateFilterTest, MatchesAsSqueueDoes) {
  struct Case {
    std::string filter;
    JobState state;
    bool want;
  };
  const std::vector<Case> cases = {
      {"R", State(JobBaseState::kRunning), true},
      {"R", State(JobBaseState::kRunning, {JobFlag::kCompleting}), false},
      {"CG", State(JobBaseState::kRunning, {JobFlag::kCompleting}), true},
      {"CG", State(JobBaseState::kCompleted, {JobFlag::kCompleting}), true},
      {"CD", State(JobBaseState::kCompleted, {JobFlag::kCompleting}), false},
      {"PD", State(JobBaseState::kPending, {JobFlag::kUpdateDb}), true},
      {"PD", State(JobBaseState::kPending, {JobFlag::kRequeueHold}), false},
      {"RH", State(JobBaseState::kPending, {JobFlag::kRequeueHold}), true},
      {"PD,R", State(JobBaseState::kSuspended), false},
      {"PD,R,S", State(JobBaseState::kSuspended), true},
      {"all", State(JobBaseState::kFailed, {JobFlag::kLaunchFailed}), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.filter + " vs " + JobStateComplete(c.state));
    Result<JobStateFilter> filter = ParseJobStateFilter(c.filter);
    ASSERT_TRUE(filter.ok());
    EXPECT_EQ(filter->Matches(c.state), c.want);
  }
}

TEST(JobStateFilterTest, SqueueShowsActiveWorkByDefault) {
  EXPECT_TRUE(IsShownBySqueueByDefault(State(JobBaseState::kPending)));
  EXPECT_TRUE(IsShownBySqueueByDefault(State(JobBaseState::kRunning)));
  EXPECT_TRUE(IsShownBySqueueByDefault(State(JobBaseState::kSuspended)));
  EXPECT_TRUE(IsShownBySqueueByDefault(State(JobBaseState::kCompleted, {JobFlag::kCompleting})));
  EXPECT_TRUE(IsShownBySqueueByDefault(State(JobBaseState::kCompleted, {JobFlag::kStageOut})));
  EXPECT_FALSE(IsShownBySqueueByDefault(State(JobBaseState::kCompleted)));
  EXPECT_FALSE(IsShownBySqueueByDefault(State(JobBaseState::kCancelled)));
}

// The whole transition matrix, written out independently of kJobTransitions: rows are `from`,
// columns are `to`, both in enum order PD R S CD CA F TO NF PR BF DL OOM; 'x' is legal.
TEST(JobTransitionTest, TableAllowsExactlyTheseChanges) {
  const std::vector<std::string> matrix = {
      //  PD R S CD CA F TO NF PR BF DL OOM
      ".x..xx....x.",  // PENDING: start, cancel, fail before start, deadline
      "x.xxxxxxxxxx",  // RUNNING: requeue, suspend, and every end
      "xx.xxx.xx...",  // SUSPENDED: requeue, resume, end (killed while stopped), node fail...
      "x...........",  // COMPLETED
      "x...........",  // CANCELLED
      "x...........",  // FAILED
      "x...........",  // TIMEOUT
      "x...........",  // NODE_FAIL
      "x...........",  // PREEMPTED
      "x...........",  // BOOT_FAIL
      "x...........",  // DEADLINE
      "x...........",  // OUT_OF_MEMORY
  };
  for (JobBaseState from : kAllJobBaseStates) {
    for (JobBaseState to : kAllJobBaseStates) {
      SCOPED_TRACE(std::string(JobBaseStateName(from)) + " -> " +
                   std::string(JobBaseStateName(to)));
      const bool want = matrix[static_cast<size_t>(from)][static_cast<size_t>(to)] == 'x';
      const Status status = CheckJobTransition(from, to);
      EXPECT_EQ(status.ok(), want);
      EXPECT_EQ(FindJobTransition(from, to).has_value(), want);
      if (!want) {
        EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
        EXPECT_THAT(status.message(),
                    HasSubstr("job state " + std::string(JobBaseStateName(from)) +
                              " cannot change to " + std::string(JobBaseStateName(to))));
      }
    }
  }
}

TEST(JobTransitionTest, ErrorsListWhereAStateMayGo) {
  EXPECT_EQ(CheckJobTransition(JobBaseState::kPending, JobBaseState::kCompleted).message(),
            "job state PENDING cannot change to COMPLETED (PENDING may change to RUNNING, "
            "CANCELLED, FAILED or DEADLINE)");
  EXPECT_EQ(CheckJobTransition(JobBaseState::kCompleted, JobBaseState::kRunning).message(),
            "job state COMPLETED cannot change to RUNNING (COMPLETED may change to PENDING)");
}

TEST(JobTransitionTest, EveryRowHasACauseAndNoDuplicates) {
  for (const JobTransition& t : kJobTransitions) {
    SCOPED_TRACE(std::string(JobBaseStateName(t.from)) + " -> " +
                 std::string(JobBaseStateName(t.to)));
    EXPECT_FALSE(t.cause.empty());
    EXPECT_NE(t.from, t.to);
    int rows = 0;
    for (const JobTransition& other : kJobTransitions) {
      rows += (other.from == t.from && other.to == t.to);
    }
    EXPECT_EQ(rows, 1);
  }
  EXPECT_EQ(FindJobTransition(JobBaseState::kRunning, JobBaseState::kPending)->cause,
            "requeue (scontrol requeue, node failure, preemption, prolog failure)");
}

}  // namespace
}  // namespace gantry::model
