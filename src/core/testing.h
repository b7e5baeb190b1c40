// For the core's tests: a 4-node cluster built event by event, the core's configuration and
// memory, contexts at a fixed time, and effects carried out as a shell does. Header-only.
#ifndef GANTRY_CORE_TESTING_H_
#define GANTRY_CORE_TESTING_H_

#include <gtest/gtest.h>

#include <cstdint>

#include "core/context.h"
#include "core/effects.h"
#include "core/job_actions.h"
#include "state/cluster_state.h"
#include "state/testing.h"
#include "state/volatile_updates.h"

namespace gantry::core::testing {

class CoreFixture : public ::testing::Test {
 protected:
  CoreFixture() : s_(state::testing::MakeCluster(4)) {}

  // A context at `now` (seconds); the monotonic clock reads the same in milliseconds.
  Context At(int64_t now) { return Context{s_, config_, memory_, now, now * 1000}; }

  // Applies `effects` as a shell does; returns them for a look at the actions.
  Effects Carry(Effects effects, int64_t now) {
    for (const v1::Event& e : effects.events) {
      state::testing::MustApply(&s_, e);
      NoteApplied(At(now), e);
    }
    state::ApplyVolatile(&s_, effects.volatile_updates);
    return effects;
  }

  state::ClusterState s_;
  Config config_;
  Memory memory_;
};

}  // namespace gantry::core::testing

#endif  // GANTRY_CORE_TESTING_H_
