#include "health/schedule.h"

#include <gtest/gtest.h>

#include "model/node_state.h"

namespace gantry::health {
namespace {

using model::NodeBaseState;
using model::NodeFlag;

constexpr uint32_t kIdle = static_cast<uint32_t>(NodeBaseState::kIdle);
constexpr uint32_t kAlloc = static_cast<uint32_t>(NodeBaseState::kAllocated);
constexpr uint32_t kMixed = static_cast<uint32_t>(NodeBaseState::kMixed);
constexpr uint32_t kDrain = static_cast<uint32_t>(NodeFlag::kDrain);

TEST(HealthScheduleTest, NodeStatesPickWhenARunHappens) {
  struct Case {
    const char* states;
    uint32_t state;
    uint32_t flags;
    bool runs;
  };
  const Case cases[] = {
      {"", kAlloc, 0, true},
      {"ANY", kIdle, kDrain, true},
      {"CYCLE", kMixed, 0, true},  // no state named: any
      {"IDLE", kIdle, 0, true},
      {"IDLE", kAlloc, 0, false},
      {"alloc", kAlloc, 0, true},
      {"ALLOC", kMixed, 0, false},
      {"MIXED,ALLOC", kMixed, 0, true},
      {"NONDRAINED_IDLE", kIdle, 0, true},
      {"NONDRAINED_IDLE", kIdle, kDrain, false},
      {"IDLE,CYCLE", kIdle, kDrain, true},
      {"START_ONLY", kIdle, 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.states);
    Result<NodeStates> states = ParseNodeStates(c.states);
    ASSERT_TRUE(states.ok()) << states.status().ToString();
    EXPECT_EQ(RunsInState(*states, c.state, c.flags), c.runs);
  }
}

TEST(HealthScheduleTest, AWordItDoesNotKnowIsNamed) {
  EXPECT_EQ(ParseNodeStates("IDLE,BUSY").status().ToString(),
            "invalid argument: HealthCheckNodeState: \"BUSY\" is not one of ALLOC, ANY, CYCLE, "
            "IDLE, MIXED, NONDRAINED_IDLE, START_ONLY");
}

TEST(HealthScheduleTest, CycleSpreadsTheNodesOverTheInterval) {
  const NodeStates any = *ParseNodeStates("ANY");
  const NodeStates cycle = *ParseNodeStates("ANY,CYCLE");
  using std::chrono::milliseconds;
  EXPECT_EQ(FirstRunDelay(any, 60, 3, 4), milliseconds(60000));
  EXPECT_EQ(FirstRunDelay(cycle, 60, 0, 4), milliseconds(15000));
  EXPECT_EQ(FirstRunDelay(cycle, 60, 1, 4), milliseconds(30000));
  EXPECT_EQ(FirstRunDelay(cycle, 60, 3, 4), milliseconds(60000));
}

}  // namespace
}  // namespace gantry::health
