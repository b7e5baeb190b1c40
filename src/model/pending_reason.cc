#include "model/pending_reason.h"

#include <iterator>

namespace gantry::model {

std::optional<PendingReason> ParsePendingReason(std::string_view text) {
  const size_t comma = text.find(", ");
  if (comma != std::string_view::npos) text = text.substr(0, comma);
  for (size_t i = 0; i < std::size(kPendingReasonNames); ++i) {
    if (kPendingReasonNames[i] == text) return static_cast<PendingReason>(i);
  }
  return std::nullopt;
}

}  // namespace gantry::model
