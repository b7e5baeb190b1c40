#include "health/schedule.h"

#include <string>

#include "model/node_state.h"
#include "text/ascii.h"

namespace gantry::health {

using model::NodeBaseState;
using model::NodeFlag;

Result<NodeStates> ParseNodeStates(std::string_view text) {
  NodeStates out;
  if (text.empty()) {
    out.any = true;
    return out;
  }
  for (std::string_view word : text::Split(text, ',')) {
    if (text::EqualsIgnoreCase(word, "ANY")) {
      out.any = true;
    } else if (text::EqualsIgnoreCase(word, "ALLOC")) {
      out.alloc = true;
    } else if (text::EqualsIgnoreCase(word, "IDLE")) {
      out.idle = true;
    } else if (text::EqualsIgnoreCase(word, "MIXED")) {
      out.mixed = true;
    } else if (text::EqualsIgnoreCase(word, "NONDRAINED_IDLE")) {
      out.nondrained_idle = true;
    } else if (text::EqualsIgnoreCase(word, "CYCLE")) {
      out.cycle = true;
    } else if (text::EqualsIgnoreCase(word, "START_ONLY")) {
      out.start_only = true;
    } else {
      return InvalidArgument(
          "HealthCheckNodeState: \"" + std::string(word) +
          "\" is not one of ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE, START_ONLY");
    }
  }
  if (!out.alloc && !out.idle && !out.mixed && !out.nondrained_idle) out.any = true;
  return out;
}

bool RunsInState(const NodeStates& states, uint32_t state, uint32_t state_flags) {
  if (states.start_only) return false;
  if (states.any) return true;
  const auto base = static_cast<NodeBaseState>(state);
  const bool drain = (state_flags & static_cast<uint32_t>(NodeFlag::kDrain)) != 0;
  return (states.idle && base == NodeBaseState::kIdle) ||
         (states.alloc && base == NodeBaseState::kAllocated) ||
         (states.mixed && base == NodeBaseState::kMixed) ||
         (states.nondrained_idle && base == NodeBaseState::kIdle && !drain);
}

std::chrono::milliseconds FirstRunDelay(const NodeStates& states, uint32_t interval_sec,
                                        uint32_t index, uint32_t count) {
  const std::chrono::milliseconds interval{int64_t{interval_sec} * 1000};
  if (!states.cycle || count == 0) return interval;
  return interval * (index % count + 1) / count;
}

}  // namespace gantry::health
