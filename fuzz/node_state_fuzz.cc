// Fuzz target for node states. The input is used twice:
//  * as bits (base byte + 4 flag bytes): every display form is well formed, sinfo's forms are
//    the lower-cased Slurm forms, and the complete form parses back to the same state whenever
//    all flags have a word;
//  * as text: the complete-form, sinfo -t and scontrol update parsers fail cleanly or return
//    something that formats and parses back to itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/node_state.h"

namespace {

using gantry::Result;
using gantry::model::IsDrained;
using gantry::model::IsDraining;
using gantry::model::kNodeBaseStateCount;
using gantry::model::NodeBaseState;
using gantry::model::NodeFlag;
using gantry::model::NodeFlagName;
using gantry::model::NodeState;
using gantry::model::NodeStateCompact;
using gantry::model::NodeStateComplete;
using gantry::model::NodeStateString;
using gantry::model::NodeUpdateState;
using gantry::model::NodeUpdateStateName;
using gantry::model::ParseNodeStateComplete;
using gantry::model::ParseNodeUpdateState;
using gantry::model::ParseSinfoStateFilter;
using gantry::model::SinfoStateFilter;
using gantry::model::SinfoStateLong;
using gantry::model::SinfoStateShort;
using gantry::model::WithMixed;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

std::string Lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// True when every set flag bit has a word in the complete form.
bool AllFlagsNamed(uint32_t flags) {
  for (uint32_t bit = 0x10; bit != 0; bit <<= 1) {
    if ((flags & bit) && NodeFlagName(static_cast<NodeFlag>(bit)) == "?") return false;
  }
  return true;
}

void CheckDisplay(const NodeState& state) {
  const std::string long_form = NodeStateString(state);
  const std::string compact = NodeStateCompact(state);
  Check(!long_form.empty() && !compact.empty());
  Check(SinfoStateLong(state) == Lower(long_form));
  Check(SinfoStateShort(state) == Lower(compact));
  // At most one decoration, and only at the end.
  for (const std::string* form : {&long_form, &compact}) {
    for (size_t i = 0; i + 1 < form->size(); ++i) {
      Check(std::string_view("$^@#%~!*+-").find((*form)[i]) == std::string_view::npos);
    }
  }
  if (state.Has(NodeFlag::kDrain)) Check(IsDraining(state) != IsDrained(state));
  if (!state.Has(NodeFlag::kDrain)) Check(!IsDraining(state) && !IsDrained(state));

  const NodeState mixed = WithMixed(state, 1, 2, false);
  Check(mixed.flags == state.flags && mixed.base == NodeBaseState::kMixed);

  const std::string complete = NodeStateComplete(state);
  Result<NodeState> parsed = ParseNodeStateComplete(complete);
  if (AllFlagsNamed(state.flags & 0xfffffff0u)) {
    Check(parsed.ok());
    Check(parsed->base == state.base);
    Check(parsed->flags == (state.flags & 0xfffffff0u));
  } else {
    Check(!parsed.ok());  // "+?" cannot be read back
  }
}

void CheckText(std::string_view text) {
  Result<NodeState> complete = ParseNodeStateComplete(text);
  if (complete.ok()) {
    Result<NodeState> again = ParseNodeStateComplete(NodeStateComplete(*complete));
    Check(again.ok() && *again == *complete);
  }

  Result<SinfoStateFilter> filter = ParseSinfoStateFilter(text);
  if (filter.ok()) {
    Check(!filter->selectors.empty());
    (void)filter->Matches(NodeState{NodeBaseState::kIdle, 0}, 0);
    (void)filter->Matches(NodeState{NodeBaseState::kAllocated, 0x200}, 8);
  } else {
    Check(!filter.status().message().empty());
  }

  Result<NodeUpdateState> update = ParseNodeUpdateState(text);
  if (update.ok()) {
    Result<NodeUpdateState> again = ParseNodeUpdateState(NodeUpdateStateName(*update));
    Check(again.ok() && *again == *update);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 5) {
    NodeState state;
    state.base = static_cast<NodeBaseState>(data[0] % kNodeBaseStateCount);
    state.flags = static_cast<uint32_t>(data[1]) | (static_cast<uint32_t>(data[2]) << 8) |
                  (static_cast<uint32_t>(data[3]) << 16) | (static_cast<uint32_t>(data[4]) << 24);
    CheckDisplay(state);
  }
  CheckText(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
