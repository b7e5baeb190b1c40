// The first scheduler's job priority (issue 3): every job gets the same base priority minus its
// nice value, so the order is FIFO (submit time, then id) except where --nice or an operator's
// priority says otherwise. 0 means held, so a computed priority is at least 1. Issue 6
// (priority/multifactor) replaces this policy.
// Pure; thread-safe.
#ifndef GANTRY_STATE_PRIORITY_H_
#define GANTRY_STATE_PRIORITY_H_

#include <cstdint>

namespace gantry::state {

inline constexpr uint32_t kBasePriority = 1000000;

// kBasePriority - nice, clamped to [1, 0xFFFFFFFE].
uint32_t PriorityFromNice(int32_t nice);

}  // namespace gantry::state

#endif  // GANTRY_STATE_PRIORITY_H_
