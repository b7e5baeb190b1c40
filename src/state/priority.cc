#include "state/priority.h"

#include <algorithm>
#include <cstdint>

namespace gantry::state {

uint32_t PriorityFromNice(int32_t nice) {
  const int64_t priority = int64_t{kBasePriority} - nice;
  return static_cast<uint32_t>(std::clamp<int64_t>(priority, 1, 0xFFFFFFFE));
}

}  // namespace gantry::state
