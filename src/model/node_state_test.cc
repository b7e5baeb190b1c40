#include "model/node_state.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gantry::model {
namespace {

using ::testing::HasSubstr;

using B = NodeBaseState;
using F = NodeFlag;

NodeState State(NodeBaseState base, std::vector<NodeFlag> flags = {}) {
  NodeState state{base, 0};
  for (NodeFlag flag : flags) state.Set(flag);
  return state;
}

// node_state_string / node_state_string_compact, and sinfo's lower-cased %T / %t.
TEST(NodeStateStringTest, LongAndCompactFormsFollowSlurmsDecisionTree) {
  struct Case {
    NodeState state;
    std::string long_form;
    std::string compact;
  };
  const std::vector<Case> cases = {
      // Base states.
      {State(B::kIdle), "IDLE", "IDLE"},
      {State(B::kAllocated), "ALLOCATED", "ALLOC"},
      {State(B::kMixed), "MIXED", "MIX"},
      {State(B::kDown), "DOWN", "DOWN"},
      {State(B::kFuture), "FUTURE", "FUTR"},
      {State(B::kUnknown), "UNKNOWN", "UNK"},
      {State(B::kError), "?", "?"},
      // Drain: DRAINING while jobs remain, DRAINED once idle (or down).
      {State(B::kIdle, {F::kDrain}), "DRAINED", "DRAIN"},
      {State(B::kAllocated, {F::kDrain}), "DRAINING", "DRNG"},
      {State(B::kMixed, {F::kDrain}), "DRAINING", "DRNG"},
      {State(B::kIdle, {F::kDrain, F::kCompleting}), "DRAINING", "DRNG"},
      {State(B::kDown, {F::kDrain}), "DRAINED", "DRAIN"},
      {State(B::kIdle, {F::kDrain, F::kNoRespond}), "DRAINED*", "DRAIN*"},
      {State(B::kAllocated, {F::kDrain, F::kNoRespond}), "DRAINING*", "DRNG*"},
      {State(B::kIdle, {F::kDrain, F::kMaint}), "DRAINED$", "DRAIN$"},
      {State(B::kIdle, {F::kDrain, F::kPoweredDown}), "DRAINED~", "DRAIN~"},
      // Completing.
      {State(B::kAllocated, {F::kCompleting}), "ALLOCATED+", "ALLOC+"},
      {State(B::kIdle, {F::kCompleting}), "COMPLETING", "COMP"},
      {State(B::kMixed, {F::kCompleting}), "COMPLETING", "COMP"},
      {State(B::kIdle, {F::kCompleting, F::kNoRespond}), "COMPLETING*", "COMP*"},
      {State(B::kAllocated, {F::kCompleting, F::kNoRespond}), "ALLOCATED*", "ALLOC*"},
      // Suffix characters, and which wins when several apply.
      {State(B::kDown, {F::kNoRespond}), "DOWN*", "DOWN*"},
      {State(B::kIdle, {F::kNoRespond}), "IDLE*", "IDLE*"},
      {State(B::kIdle, {F::kCloud, F::kPoweredDown}), "IDLE~", "IDLE~"},
      {State(B::kIdle, {F::kPoweringUp}), "IDLE#", "IDLE#"},
      {State(B::kIdle, {F::kPoweringDown}), "IDLE%", "IDLE%"},
      {State(B::kIdle, {F::kPowerDown}), "IDLE!", "IDLE!"},
      {State(B::kAllocated, {F::kPowerDown}), "ALLOCATED!", "ALLOC!"},
      {State(B::kIdle, {F::kPoweredDown, F::kNoRespond}), "IDLE~", "IDLE~"},
      {State(B::kIdle, {F::kPoweringUp, F::kPoweredDown}), "IDLE#", "IDLE#"},
      {State(B::kMixed, {F::kPlanned}), "MIXED-", "MIX-"},
      {State(B::kMixed, {F::kPlanned, F::kNoRespond}), "MIXED*", "MIX*"},
      {State(B::kFuture, {F::kNoRespond}), "FUTURE*", "FUTR*"},
      {State(B::kUnknown, {F::kNoRespond}), "UNKNOWN*", "UNK*"},
      // Maintenance and reboot replace an idle node's state, decorate a busy one.
      {State(B::kIdle, {F::kMaint}), "MAINT", "MAINT"},
      {State(B::kIdle, {F::kMaint, F::kNoRespond}), "MAINT*", "MAINT*"},
      {State(B::kAllocated, {F::kMaint}), "ALLOCATED$", "ALLOC$"},
      {State(B::kDown, {F::kMaint}), "DOWN$", "DOWN$"},
      {State(B::kIdle, {F::kRebootRequested}), "REBOOT", "BOOT"},
      {State(B::kIdle, {F::kRebootIssued}), "REBOOT^", "BOOT^"},
      {State(B::kDown, {F::kRebootRequested, F::kNoRespond}), "REBOOT*", "BOOT*"},
      {State(B::kMixed, {F::kRebootRequested}), "MIXED@", "MIX@"},
      {State(B::kAllocated, {F::kRebootIssued}), "ALLOCATED^", "ALLOC^"},
      // Fail: FAILING while allocated or completing.
      {State(B::kIdle, {F::kFail}), "FAIL", "FAIL"},
      {State(B::kAllocated, {F::kFail}), "FAILING", "FAILG"},
      {State(B::kIdle, {F::kFail, F::kCompleting}), "FAILING", "FAILG"},
      {State(B::kMixed, {F::kFail}), "FAIL", "FAIL"},
      {State(B::kIdle, {F::kFail, F::kNoRespond}), "FAIL*", "FAIL*"},
      // An idle node can read as planned, reserved or PERFCTRS.
      {State(B::kIdle, {F::kPlanned}), "PLANNED", "PLND"},
      {State(B::kIdle, {F::kReserved}), "RESERVED", "RESV"},
      {State(B::kIdle, {F::kNet}), "PERFCTRS", "NPC"},
      {State(B::kIdle, {F::kReserved, F::kNoRespond}), "IDLE*", "IDLE*"},
      // Odd corners kept as Slurm has them.
      {State(B::kIdle, {F::kInvalidReg, F::kDrain}), "INVAL", "INVAL"},
      {State(B::kUnknown, {F::kCloud}), "CLOUD", "UNK"},  // compact never tests exact flags
      {State(B::kUnknown, {F::kPoweringUp}), "POWERING_UP", "UNK"},
      {State(B::kUnknown, {F::kResume}), "RESUME", "RESM"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(NodeStateComplete(c.state));
    EXPECT_EQ(NodeStateString(c.state), c.long_form);
    EXPECT_EQ(NodeStateCompact(c.state), c.compact);
  }
}

TEST(NodeStateStringTest, SinfoPrintsLowerCase) {
  // The anchor cluster's fully allocated nodes: sinfo "alloc", sinfo -N -l "allocated".
  EXPECT_EQ(SinfoStateShort(State(B::kAllocated)), "alloc");
  EXPECT_EQ(SinfoStateLong(State(B::kAllocated)), "allocated");
  EXPECT_EQ(SinfoStateShort(State(B::kAllocated, {F::kDrain})), "drng");
  EXPECT_EQ(SinfoStateLong(State(B::kAllocated, {F::kDrain})), "draining");
  EXPECT_EQ(SinfoStateShort(State(B::kIdle, {F::kDrain, F::kNoRespond})), "drain*");
  EXPECT_EQ(SinfoStateShort(State(B::kIdle, {F::kCloud, F::kPoweredDown})), "idle~");
}

// scontrol show node's State=.
TEST(NodeStateCompleteTest, ListsBaseThenFlagsInSlurmsTableOrder) {
  struct Case {
    NodeState state;
    std::string want;
  };
  const std::vector<Case> cases = {
      {State(B::kAllocated), "ALLOCATED"},  // anchor scontrol-show-node.txt
      {State(B::kIdle, {F::kDrain}), "IDLE+DRAIN"},
      {State(B::kDown, {F::kNoRespond, F::kDrain}), "DOWN+DRAIN+NOT_RESPONDING"},
      {State(B::kAllocated, {F::kCompleting}), "ALLOCATED+COMPLETING"},
      {State(B::kIdle, {F::kPoweredDown, F::kCloud}), "IDLE+CLOUD+POWERED_DOWN"},
      {State(B::kMixed, {F::kReserved, F::kMaint, F::kDrain}), "MIXED+DRAIN+MAINTENANCE+RESERVED"},
      {State(B::kIdle, {F::kPoweringDown, F::kPoweringUp, F::kPlanned, F::kNoRespond}),
       "IDLE+NOT_RESPONDING+PLANNED+POWERING_UP+POWERING_DOWN"},
      {State(B::kIdle, {F::kRebootIssued, F::kRebootRequested}),
       "IDLE+REBOOT_REQUESTED+REBOOT_ISSUED"},
      {State(B::kFuture, {F::kDynamicFuture}), "FUTURE+DYNAMIC_FUTURE"},
      // Request-only flags have no word; Slurm prints "?".
      {State(B::kIdle, {F::kUndrain, F::kDrain}), "IDLE+DRAIN+?"},
      {State(B::kIdle, {F::kUndrain, F::kRebootCancel}), "IDLE+?+?"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NodeStateComplete(c.state), c.want);
  }
}

TEST(NodeStateCompleteTest, ParsesBackCaseInsensitively) {
  for (const std::string text :
       {"ALLOCATED", "IDLE+DRAIN", "DOWN+DRAIN+NOT_RESPONDING", "IDLE+CLOUD+POWERED_DOWN",
        "MIXED+DRAIN+MAINTENANCE+RESERVED", "UNKNOWN", "ERROR+INVALID_REG"}) {
    SCOPED_TRACE(text);
    Result<NodeState> state = ParseNodeStateComplete(text);
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    EXPECT_EQ(NodeStateComplete(*state), text);
  }
  Result<NodeState> lower = ParseNodeStateComplete("idle+drain");
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(*lower, State(B::kIdle, {F::kDrain}));

  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> errors = {
      {"", "unknown base state \"\""},
      {"BUSY", "unknown base state \"BUSY\""},
      {"DRAIN", "unknown base state \"DRAIN\""},
      {"IDLE+BOGUS", "unknown flag \"BOGUS\""},
      {"IDLE+", "unknown flag \"\""},
      {"IDLE+?", "unknown flag \"?\""},
      {"IDLE+DRAIN+drain", "flag DRAIN is given twice"},
  };
  for (const Case& c : errors) {
    SCOPED_TRACE(c.text);
    Result<NodeState> state = ParseNodeStateComplete(c.text);
    ASSERT_FALSE(state.ok());
    EXPECT_THAT(state.status().message(), HasSubstr("invalid node state \"" + c.text + "\""));
    EXPECT_THAT(state.status().message(), HasSubstr(c.want));
  }
}

TEST(NodeStateTest, DrainingAndDrainedSplitTheDrainFlag) {
  EXPECT_TRUE(IsDrained(State(B::kIdle, {F::kDrain})));
  EXPECT_TRUE(IsDrained(State(B::kDown, {F::kDrain})));
  EXPECT_TRUE(IsDraining(State(B::kAllocated, {F::kDrain})));
  EXPECT_TRUE(IsDraining(State(B::kMixed, {F::kDrain})));
  EXPECT_TRUE(IsDraining(State(B::kIdle, {F::kDrain, F::kCompleting})));
  EXPECT_FALSE(IsDraining(State(B::kAllocated)));
  EXPECT_FALSE(IsDrained(State(B::kIdle)));
}

TEST(NodeStateTest, WithMixedMarksPartlyUsedNodes) {
  struct Case {
    NodeState state;
    int64_t alloc_cpus;
    int64_t cpus;
    bool alloc_tres;
    std::string want;
  };
  const std::vector<Case> cases = {
      {State(B::kAllocated), 64, 64, true, "ALLOCATED"},  // anchor: every CPU allocated
      {State(B::kAllocated), 32, 64, true, "MIXED"},
      {State(B::kAllocated), 0, 64, true, "MIXED"},  // memory or GRES only
      // anchor: the node of a suspended job (CPUAlloc=0, AllocTRES=mem=2000M) shows IDLE
      {State(B::kIdle), 0, 64, true, "IDLE"},
      {State(B::kIdle), 0, 64, false, "IDLE"},
      {State(B::kAllocated, {F::kDrain}), 32, 64, true, "DRAINING"},
      {State(B::kAllocated, {F::kCompleting}), 16, 64, true, "COMPLETING"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(NodeStateComplete(c.state));
    EXPECT_EQ(NodeStateString(WithMixed(c.state, c.alloc_cpus, c.cpus, c.alloc_tres)), c.want);
  }
}

// sinfo -t words: any prefix of a name, first match in Slurm's order.
TEST(SinfoStateSelectorTest, AcceptsPrefixesInSinfosOrder) {
  using K = SinfoStateSelector::Kind;
  struct Case {
    std::string word;
    K kind;
    NodeBaseState base;
    NodeFlag flag;
  };
  const std::vector<Case> cases = {
      {"idle", K::kBase, B::kIdle, F::kDrain},
      {"IDLE", K::kBase, B::kIdle, F::kDrain},
      {"i", K::kBase, B::kIdle, F::kDrain},
      {"alloc", K::kBase, B::kAllocated, F::kDrain},
      {"allocated", K::kBase, B::kAllocated, F::kDrain},
      {"a", K::kBase, B::kAllocated, F::kDrain},
      {"d", K::kBase, B::kDown, F::kDrain},
      {"down", K::kBase, B::kDown, F::kDrain},
      {"m", K::kBase, B::kMixed, F::kDrain},
      {"mixed", K::kBase, B::kMixed, F::kDrain},
      {"f", K::kBase, B::kFuture, F::kDrain},
      {"futr", K::kBase, B::kFuture, F::kDrain},
      {"u", K::kBase, B::kUnknown, F::kDrain},
      {"unk", K::kBase, B::kUnknown, F::kDrain},
      {"?", K::kBase, B::kError, F::kDrain},  // ERROR's only name in 22.05
      {"dr", K::kFlag, B::kUnknown, F::kDrain},
      {"drain", K::kFlag, B::kUnknown, F::kDrain},
      {"drained", K::kDrained, B::kUnknown, F::kDrain},
      {"draining", K::kDraining, B::kUnknown, F::kDrain},
      {"drng", K::kDraining, B::kUnknown, F::kDrain},
      {"p", K::kFlag, B::kUnknown, F::kPlanned},
      {"plnd", K::kFlag, B::kUnknown, F::kPlanned},
      {"r", K::kFlag, B::kUnknown, F::kReserved},
      {"resv", K::kFlag, B::kUnknown, F::kReserved},
      {"reserved", K::kFlag, B::kUnknown, F::kReserved},
      {"n", K::kFlag, B::kUnknown, F::kNet},
      {"npc", K::kFlag, B::kUnknown, F::kNet},
      {"perfctrs", K::kFlag, B::kUnknown, F::kNet},
      {"c", K::kFlag, B::kUnknown, F::kCompleting},
      {"comp", K::kFlag, B::kUnknown, F::kCompleting},
      {"completing", K::kFlag, B::kUnknown, F::kCompleting},
      {"no", K::kFlag, B::kUnknown, F::kNoRespond},
      {"no_respond", K::kFlag, B::kUnknown, F::kNoRespond},
      {"po", K::kFlag, B::kUnknown, F::kPoweringDown},
      {"powering_down", K::kFlag, B::kUnknown, F::kPoweringDown},
      {"powered", K::kFlag, B::kUnknown, F::kPoweredDown},
      {"power_d", K::kFlag, B::kUnknown, F::kPowerDown},
      {"powering_up", K::kFlag, B::kUnknown, F::kPoweringUp},
      {"fa", K::kFlag, B::kUnknown, F::kFail},
      {"fail", K::kFlag, B::kUnknown, F::kFail},
      {"ma", K::kFlag, B::kUnknown, F::kMaint},
      {"maint", K::kFlag, B::kUnknown, F::kMaint},
      {"reb", K::kFlag, B::kUnknown, F::kRebootRequested},
      {"boot", K::kFlag, B::kUnknown, F::kRebootRequested},
      {"reboot^", K::kFlag, B::kUnknown, F::kRebootIssued},
      {"boot^", K::kFlag, B::kUnknown, F::kRebootIssued},
      {"cl", K::kFlag, B::kUnknown, F::kCloud},
      {"cloud", K::kFlag, B::kUnknown, F::kCloud},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.word);
    Result<SinfoStateSelector> got = ParseSinfoStateSelector(c.word);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->kind, c.kind);
    if (c.kind == K::kBase) {
      EXPECT_EQ(got->base, c.base);
    }
    if (c.kind == K::kFlag) {
      EXPECT_EQ(got->flag, c.flag);
    }
  }
  for (const std::string word : {"e", "error", "bogus", "idlex", "power_up", "maintenance"}) {
    SCOPED_TRACE(word);
    Result<SinfoStateSelector> got = ParseSinfoStateSelector(word);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("invalid node state \"" + word + "\""));
  }
}

TEST(SinfoStateFilterTest, ParsesCommaListsAndAll) {
  Result<SinfoStateFilter> filter = ParseSinfoStateFilter("idle,,alloc");
  ASSERT_TRUE(filter.ok());
  EXPECT_EQ(filter->selectors.size(), 2u);
  Result<SinfoStateFilter> all = ParseSinfoStateFilter("ALL");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->selectors.size(), 9u);  // seven base states, DRAIN, COMPLETING
  EXPECT_THAT(ParseSinfoStateFilter(",").status().message(), HasSubstr("no state given"));
  EXPECT_THAT(ParseSinfoStateFilter("idle,bogus").status().message(),
              HasSubstr("invalid node state \"bogus\""));
}

TEST(SinfoStateFilterTest, MatchesAsSinfoDoes) {
  struct Case {
    std::string filter;
    NodeState state;
    int64_t alloc_cpus;
    bool want;
  };
  const std::vector<Case> cases = {
      {"idle", State(B::kIdle), 0, true},
      {"idle", State(B::kIdle, {F::kNoRespond}), 0, true},
      {"idle", State(B::kIdle, {F::kDrain}), 0, false},
      {"idle", State(B::kIdle, {F::kCloud, F::kPoweredDown}), 0, false},
      {"alloc", State(B::kAllocated), 64, true},
      {"alloc", State(B::kMixed), 10, true},  // any node with allocated CPUs
      {"alloc", State(B::kIdle), 0, false},
      {"mix", State(B::kMixed), 10, true},
      {"mix", State(B::kAllocated), 64, false},
      {"drain", State(B::kIdle, {F::kDrain}), 0, true},
      {"drain", State(B::kAllocated, {F::kDrain}), 64, true},
      {"drained", State(B::kIdle, {F::kDrain}), 0, true},
      {"drained", State(B::kDown, {F::kDrain}), 0, true},
      {"drained", State(B::kAllocated, {F::kDrain}), 64, false},
      {"draining", State(B::kAllocated, {F::kDrain}), 64, true},
      {"draining", State(B::kIdle, {F::kDrain, F::kCompleting}), 0, true},
      {"draining", State(B::kIdle, {F::kDrain}), 0, false},
      {"down", State(B::kDown, {F::kNoRespond}), 0, true},
      {"down", State(B::kIdle), 0, false},
      {"comp", State(B::kIdle, {F::kCompleting}), 0, true},
      {"powered_down", State(B::kIdle, {F::kCloud, F::kPoweredDown}), 0, true},
      {"down,drain", State(B::kIdle, {F::kDrain}), 0, true},
      {"all", State(B::kIdle), 0, true},
      {"all", State(B::kAllocated), 64, true},
      {"all", State(B::kDown, {F::kNoRespond}), 0, true},
      {"all", State(B::kFuture), 0, true},
      {"all", State(B::kIdle, {F::kDrain}), 0, true},
      {"all", State(B::kIdle, {F::kCloud, F::kPoweredDown}), 0, false},  // as sinfo -t all
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.filter + " vs " + NodeStateComplete(c.state));
    Result<SinfoStateFilter> filter = ParseSinfoStateFilter(c.filter);
    ASSERT_TRUE(filter.ok());
    EXPECT_EQ(filter->Matches(c.state, c.alloc_cpus), c.want);
  }
}

// scontrol update NodeName=... State=<word>.
TEST(NodeUpdateStateTest, AcceptsScontrolWordsAndShortenings) {
  struct Case {
    std::string word;
    NodeUpdateState want;
  };
  using U = NodeUpdateState;
  const std::vector<Case> cases = {
      {"DRAIN", U::kDrain},
      {"drain", U::kDrain},
      {"dra", U::kDrain},
      {"RESUME", U::kResume},
      {"res", U::kResume},
      {"NoResp", U::kNoResp},
      {"nor", U::kNoResp},
      {"UNDRAIN", U::kUndrain},
      {"und", U::kUndrain},
      {"DOWN", U::kDown},
      {"dow", U::kDown},
      {"IDLE", U::kIdle},
      {"FUTURE", U::kFuture},
      {"FAIL", U::kFail},
      {"CANCEL_REBOOT", U::kCancelReboot},
      {"can", U::kCancelReboot},
      {"POWER_DOWN", U::kPowerDown},
      {"power_d", U::kPowerDown},
      {"POWER_DOWN_ASAP", U::kPowerDownAsap},
      {"power_down_a", U::kPowerDownAsap},
      {"POWER_DOWN_FORCE", U::kPowerDownForce},
      {"POWER_DOWN_F", U::kPowerDownForce},
      {"POWER_UP", U::kPowerUp},
      {"power_u", U::kPowerUp},
      {"ALLOC", U::kAllocated},
      {"MIXED", U::kMixed},
      {"UNK", U::kUnknown},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.word);
    Result<NodeUpdateState> got = ParseNodeUpdateState(c.word);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, c.want);
  }
  for (const std::string word : {"", "dr", "DRAINX", "pow", "POWER_DOWN_", "ERROR", "busy"}) {
    SCOPED_TRACE(word);
    Result<NodeUpdateState> got = ParseNodeUpdateState(word);
    ASSERT_FALSE(got.ok());
    EXPECT_THAT(got.status().message(), HasSubstr("invalid node state \"" + word + "\""));
    EXPECT_THAT(got.status().message(), HasSubstr("UNDRAIN"));
  }
}

TEST(NodeUpdateStateTest, DownDrainAndFailNeedAReason) {
  EXPECT_TRUE(NodeUpdateNeedsReason(NodeUpdateState::kDown));
  EXPECT_TRUE(NodeUpdateNeedsReason(NodeUpdateState::kDrain));
  EXPECT_TRUE(NodeUpdateNeedsReason(NodeUpdateState::kFail));
  EXPECT_FALSE(NodeUpdateNeedsReason(NodeUpdateState::kResume));
  EXPECT_FALSE(NodeUpdateNeedsReason(NodeUpdateState::kUndrain));
  EXPECT_EQ(NodeUpdateStateName(NodeUpdateState::kNoResp), "NoResp");
  EXPECT_EQ(NodeUpdateStateName(NodeUpdateState::kPowerDownAsap), "POWER_DOWN_ASAP");
}

}  // namespace
}  // namespace gantry::model
