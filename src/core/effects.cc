#include "core/effects.h"

#include <iterator>
#include <utility>

namespace gantry::core {

void Effects::Append(Effects other) {
  events.insert(events.end(), std::make_move_iterator(other.events.begin()),
                std::make_move_iterator(other.events.end()));
  actions.insert(actions.end(), std::make_move_iterator(other.actions.begin()),
                 std::make_move_iterator(other.actions.end()));
  log.insert(log.end(), std::make_move_iterator(other.log.begin()),
             std::make_move_iterator(other.log.end()));
}

}  // namespace gantry::core
