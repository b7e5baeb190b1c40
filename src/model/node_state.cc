#include "model/node_state.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/ascii.h"

namespace gantry::model {
namespace {

using text::EqualsIgnoreCase;
using text::Quote;
using text::StartsWithIgnoreCase;

constexpr uint32_t kBaseMask = 0x0000000f;
constexpr uint32_t kFlagMask = 0xfffffff0;

constexpr uint32_t Bit(NodeFlag flag) { return static_cast<uint32_t>(flag); }

// Slurm's node_states[] table, in its order (node_state_base_string).
struct NodeBaseName {
  NodeBaseState base;
  std::string_view name;
};
constexpr std::array<NodeBaseName, kNodeBaseStateCount> kNodeBaseNames = {{
    {NodeBaseState::kDown, "DOWN"},
    {NodeBaseState::kIdle, "IDLE"},
    {NodeBaseState::kAllocated, "ALLOCATED"},
    {NodeBaseState::kError, "ERROR"},
    {NodeBaseState::kMixed, "MIXED"},
    {NodeBaseState::kFuture, "FUTURE"},
    {NodeBaseState::kUnknown, "UNKNOWN"},
}};

// Slurm's node_state_flags[] table, in its order: the order of the complete form.
struct FlagName {
  NodeFlag flag;
  std::string_view name;
};
constexpr std::array<FlagName, 20> kFlagNames = {{
    {NodeFlag::kCloud, "CLOUD"},
    {NodeFlag::kCompleting, "COMPLETING"},
    {NodeFlag::kDrain, "DRAIN"},
    {NodeFlag::kDynamicFuture, "DYNAMIC_FUTURE"},
    {NodeFlag::kDynamicNorm, "DYNAMIC_NORM"},
    {NodeFlag::kInvalidReg, "INVALID_REG"},
    {NodeFlag::kFail, "FAIL"},
    {NodeFlag::kMaint, "MAINTENANCE"},
    {NodeFlag::kPowerDown, "POWER_DOWN"},
    {NodeFlag::kPowerUp, "POWER_UP"},
    {NodeFlag::kNet, "PERFCTRS"},
    {NodeFlag::kPoweredDown, "POWERED_DOWN"},
    {NodeFlag::kRebootRequested, "REBOOT_REQUESTED"},
    {NodeFlag::kRebootIssued, "REBOOT_ISSUED"},
    {NodeFlag::kReserved, "RESERVED"},
    {NodeFlag::kResume, "RESUME"},
    {NodeFlag::kNoRespond, "NOT_RESPONDING"},
    {NodeFlag::kPlanned, "PLANNED"},
    {NodeFlag::kPoweringUp, "POWERING_UP"},
    {NodeFlag::kPoweringDown, "POWERING_DOWN"},
}};

uint32_t Bits(const NodeState& state) {
  return (static_cast<uint32_t>(state.base) & kBaseMask) | (state.flags & kFlagMask);
}

// The words both decision trees use; they differ only in spelling.
struct Words {
  std::string_view inval, maint, reboot, draining, drained, failing, fail;
  std::string_view down, allocated, completing, idle, perfctrs, reserved, planned, mixed, future,
      resume, unknown;
};

constexpr Words kLongWords = {"INVAL",   "MAINT",    "REBOOT",   "DRAINING",  "DRAINED",
                              "FAILING", "FAIL",     "DOWN",     "ALLOCATED", "COMPLETING",
                              "IDLE",    "PERFCTRS", "RESERVED", "PLANNED",   "MIXED",
                              "FUTURE",  "RESUME",   "UNKNOWN"};
constexpr Words kCompactWords = {"INVAL", "MAINT", "BOOT",  "DRNG", "DRAIN", "FAILG",
                                 "FAIL",  "DOWN",  "ALLOC", "COMP", "IDLE",  "NPC",
                                 "RESV",  "PLND",  "MIX",   "FUTR", "RESM",  "UNK"};

// The common suffix ladder: maintenance, reboot issued, reboot requested, powering up, powering
// down, powered down, power down pending, not responding; '\0' when none applies.
char Suffix(uint32_t bits) {
  if (bits & Bit(NodeFlag::kMaint)) return '$';
  if (bits & Bit(NodeFlag::kRebootIssued)) return '^';
  if (bits & Bit(NodeFlag::kRebootRequested)) return '@';
  if (bits & Bit(NodeFlag::kPoweringUp)) return '#';
  if (bits & Bit(NodeFlag::kPoweringDown)) return '%';
  if (bits & Bit(NodeFlag::kPoweredDown)) return '~';
  if (bits & Bit(NodeFlag::kPowerDown)) return '!';
  if (bits & Bit(NodeFlag::kNoRespond)) return '*';
  return '\0';
}

std::string WithSuffix(std::string_view word, char suffix) {
  std::string out(word);
  if (suffix != '\0') out += suffix;
  return out;
}

// node_state_string / node_state_string_compact. The long form also tests a few exact flag-only
// values (CLOUD, POWER_DOWN...); the compact form compares them against the base state only, so
// those branches never fire there (UNKNOWN+CLOUD is "CLOUD" long but "UNK" compact), as in Slurm.
std::string Describe(const NodeState& state, const Words& w, bool long_form) {
  const uint32_t inx = Bits(state);
  const NodeBaseState base = state.base;
  const bool comp = inx & Bit(NodeFlag::kCompleting);
  const bool drain = inx & Bit(NodeFlag::kDrain);
  const bool fail = inx & Bit(NodeFlag::kFail);
  const bool maint = inx & Bit(NodeFlag::kMaint);
  const bool net = inx & Bit(NodeFlag::kNet);
  const bool reboot = inx & Bit(NodeFlag::kRebootRequested);
  const bool reboot_issued = inx & Bit(NodeFlag::kRebootIssued);
  const bool res = inx & Bit(NodeFlag::kReserved);
  const bool resume = inx & Bit(NodeFlag::kResume);
  const bool no_resp = inx & Bit(NodeFlag::kNoRespond);
  const bool planned = inx & Bit(NodeFlag::kPlanned);
  const char suffix = Suffix(inx);
  const bool busy = base == NodeBaseState::kAllocated || base == NodeBaseState::kMixed;

  if (inx & Bit(NodeFlag::kInvalidReg)) return std::string(w.inval);
  if (maint && !drain && !busy && base != NodeBaseState::kDown) {
    return WithSuffix(w.maint, no_resp ? '*' : '\0');
  }
  if ((reboot || reboot_issued) && !busy) {
    return WithSuffix(w.reboot, reboot_issued ? '^' : (no_resp ? '*' : '\0'));
  }
  if (drain) return WithSuffix((comp || busy) ? w.draining : w.drained, suffix);
  if (fail) {
    const bool failing = comp || base == NodeBaseState::kAllocated;
    return WithSuffix(failing ? w.failing : w.fail, no_resp ? '*' : '\0');
  }
  if (long_form) {
    static constexpr std::array<std::pair<NodeFlag, std::string_view>, 7> kExact = {{
        {NodeFlag::kRebootIssued, "REBOOT_ISSUED"},
        {NodeFlag::kRebootCancel, "CANCEL_REBOOT"},
        {NodeFlag::kCloud, "CLOUD"},
        {NodeFlag::kPowerDown, "POWER_DOWN"},
        {NodeFlag::kPowerUp, "POWER_UP"},
        {NodeFlag::kPoweringDown, "POWERING_DOWN"},
        {NodeFlag::kPoweredDown, "POWERED_DOWN"},
    }};
    for (const auto& [flag, word] : kExact) {
      if (inx == Bit(flag)) return std::string(word);
    }
    if (inx == Bit(NodeFlag::kPoweringUp)) return "POWERING_UP";
  }
  switch (base) {
    case NodeBaseState::kDown:
      return WithSuffix(w.down, suffix);
    case NodeBaseState::kAllocated:
      return WithSuffix(w.allocated, suffix != '\0' ? suffix : (comp ? '+' : '\0'));
    default:
      break;
  }
  if (comp) return WithSuffix(w.completing, suffix);
  switch (base) {
    case NodeBaseState::kIdle:
      if (suffix != '\0') return WithSuffix(w.idle, suffix);
      if (net) return std::string(w.perfctrs);
      if (res) return std::string(w.reserved);
      if (planned) return std::string(w.planned);
      return std::string(w.idle);
    case NodeBaseState::kMixed:
      return WithSuffix(w.mixed, suffix != '\0' ? suffix : (planned ? '-' : '\0'));
    case NodeBaseState::kFuture:
      return WithSuffix(w.future, suffix);
    default:
      break;
  }
  if (resume) return std::string(w.resume);
  if (base == NodeBaseState::kUnknown) return WithSuffix(w.unknown, no_resp ? '*' : '\0');
  return "?";
}

struct UpdateWord {
  NodeUpdateState state;
  std::string_view word;
  size_t min_length;
};
// scontrol_update_node's tests, in its order (FUTURE before the base states, so the base loop's
// FUTURE never matches; ERROR's name there is "?" and is left out).
constexpr std::array<UpdateWord, 16> kUpdateWords = {{
    {NodeUpdateState::kNoResp, "NoResp", 3},
    {NodeUpdateState::kCancelReboot, "CANCEL_REBOOT", 3},
    {NodeUpdateState::kDrain, "DRAIN", 3},
    {NodeUpdateState::kFail, "FAIL", 3},
    {NodeUpdateState::kFuture, "FUTURE", 3},
    {NodeUpdateState::kResume, "RESUME", 3},
    {NodeUpdateState::kPowerDownAsap, "POWER_DOWN_ASAP", 12},
    {NodeUpdateState::kPowerDownForce, "POWER_DOWN_FORCE", 12},
    {NodeUpdateState::kPowerDown, "POWER_DOWN", 7},
    {NodeUpdateState::kPowerUp, "POWER_UP", 7},
    {NodeUpdateState::kUndrain, "UNDRAIN", 3},
    {NodeUpdateState::kUnknown, "UNKNOWN", 3},
    {NodeUpdateState::kDown, "DOWN", 3},
    {NodeUpdateState::kIdle, "IDLE", 3},
    {NodeUpdateState::kAllocated, "ALLOCATED", 3},
    {NodeUpdateState::kMixed, "MIXED", 3},
}};

}  // namespace

std::string_view NodeBaseStateName(NodeBaseState state) {
  for (const NodeBaseName& entry : kNodeBaseNames) {
    if (entry.base == state) return entry.name;
  }
  return "INVALID";
}

std::string_view NodeFlagName(NodeFlag flag) {
  for (const FlagName& entry : kFlagNames) {
    if (entry.flag == flag) return entry.name;
  }
  return "?";
}

std::string NodeStateString(const NodeState& state) {
  return Describe(state, kLongWords, /*long_form=*/true);
}

std::string NodeStateCompact(const NodeState& state) {
  return Describe(state, kCompactWords, /*long_form=*/false);
}

std::string SinfoStateLong(const NodeState& state) {
  return text::AsciiToLower(NodeStateString(state));
}

std::string SinfoStateShort(const NodeState& state) {
  return text::AsciiToLower(NodeStateCompact(state));
}

std::string NodeStateComplete(const NodeState& state) {
  std::string out(NodeBaseStateName(state.base));
  uint32_t flags = state.flags & kFlagMask;
  for (const FlagName& entry : kFlagNames) {
    if (flags & Bit(entry.flag)) {
      out += '+';
      out += entry.name;
      flags &= ~Bit(entry.flag);
    }
  }
  // Bits Slurm's table has no word for print as "?", lowest first, one each.
  while (flags != 0) {
    out += "+?";
    flags &= flags - 1;
  }
  return out;
}

Result<NodeState> ParseNodeStateComplete(std::string_view text) {
  const std::string prefix = "invalid node state " + Quote(text) + ": ";
  const size_t plus = text.find('+');
  const std::string_view base_word = text.substr(0, plus);
  NodeState state;
  bool found = false;
  for (const NodeBaseName& entry : kNodeBaseNames) {
    if (EqualsIgnoreCase(base_word, entry.name)) {
      state.base = entry.base;
      found = true;
    }
  }
  if (!found) {
    return InvalidArgument(prefix + "unknown base state " + Quote(base_word) +
                           " (expected DOWN, IDLE, ALLOCATED, ERROR, MIXED, FUTURE or UNKNOWN)");
  }
  size_t start = plus;
  while (start != std::string_view::npos) {
    const size_t next = text.find('+', start + 1);
    const std::string_view word =
        text.substr(start + 1, next == std::string_view::npos ? next : next - start - 1);
    bool known = false;
    for (const FlagName& entry : kFlagNames) {
      if (!EqualsIgnoreCase(word, entry.name)) continue;
      if (state.Has(entry.flag)) {
        return InvalidArgument(prefix + "flag " + std::string(entry.name) + " is given twice");
      }
      state.Set(entry.flag);
      known = true;
    }
    if (!known) return InvalidArgument(prefix + "unknown flag " + Quote(word));
    start = next;
  }
  return state;
}

bool IsDraining(const NodeState& state) {
  return state.Has(NodeFlag::kDrain) &&
         (state.base == NodeBaseState::kAllocated || state.base == NodeBaseState::kMixed ||
          state.Has(NodeFlag::kCompleting));
}

bool IsDrained(const NodeState& state) { return state.Has(NodeFlag::kDrain) && !IsDraining(state); }

NodeState WithMixed(NodeState state, int64_t alloc_cpus, int64_t effective_cpus,
                    bool has_alloc_tres) {
  const int64_t idle_cpus = effective_cpus - alloc_cpus;
  const bool partly_used = idle_cpus > 0 && idle_cpus < effective_cpus;
  const bool only_other_tres =
      has_alloc_tres && idle_cpus == effective_cpus && state.base == NodeBaseState::kAllocated;
  if (partly_used || only_other_tres) state.base = NodeBaseState::kMixed;
  return state;
}

Result<SinfoStateSelector> ParseSinfoStateSelector(std::string_view word) {
  using Kind = SinfoStateSelector::Kind;
  const auto base = [](NodeBaseState b) {
    SinfoStateSelector selector;
    selector.base = b;
    return selector;
  };
  const auto flag = [](NodeFlag f) {
    SinfoStateSelector selector;
    selector.kind = Kind::kFlag;
    selector.flag = f;
    return selector;
  };
  // Slurm's _node_state_equal: a prefix of the long or compact name of a state.
  const auto names = [&](const NodeState& state) {
    return StartsWithIgnoreCase(NodeStateCompact(state), word) ||
           StartsWithIgnoreCase(NodeStateString(state), word);
  };
  const auto flag_names = [&](NodeFlag f) {
    return names(NodeState{NodeBaseState::kUnknown, Bit(f)});
  };
  const auto either = [&](std::string_view a, std::string_view b) {
    return StartsWithIgnoreCase(a, word) || StartsWithIgnoreCase(b, word);
  };

  // Base states in enum order.
  static constexpr std::array<NodeBaseState, kNodeBaseStateCount> kOrder = {
      NodeBaseState::kUnknown,   NodeBaseState::kDown,  NodeBaseState::kIdle,
      NodeBaseState::kAllocated, NodeBaseState::kError, NodeBaseState::kMixed,
      NodeBaseState::kFuture};
  for (NodeBaseState b : kOrder) {
    if (names(NodeState{b, 0})) return base(b);
  }
  if (either("PLANNED", "PLND")) return flag(NodeFlag::kPlanned);
  if (StartsWithIgnoreCase("DRAIN", word)) return flag(NodeFlag::kDrain);
  if (StartsWithIgnoreCase("DRAINED", word)) {
    return SinfoStateSelector{Kind::kDrained};
  }
  if (either("RESV", "RESERVED")) return flag(NodeFlag::kReserved);
  if (either("PERFCTRS", "NPC")) return flag(NodeFlag::kNet);
  if (either("DRAINING", "DRNG")) {
    return SinfoStateSelector{Kind::kDraining};
  }
  if (flag_names(NodeFlag::kCompleting)) return flag(NodeFlag::kCompleting);
  if (StartsWithIgnoreCase("NO_RESPOND", word)) return flag(NodeFlag::kNoRespond);
  for (NodeFlag f : {NodeFlag::kPoweringDown, NodeFlag::kPoweredDown, NodeFlag::kPowerDown,
                     NodeFlag::kPoweringUp, NodeFlag::kFail, NodeFlag::kMaint,
                     NodeFlag::kRebootRequested, NodeFlag::kRebootIssued, NodeFlag::kCloud}) {
    if (flag_names(f)) return flag(f);
  }
  return InvalidArgument(
      "invalid node state " + Quote(word) +
      " (valid states: unknown, down, idle, allocated, mixed, future, drain, drained, draining, "
      "no_respond, reserved, perfctrs, cloud, completing, powering_down, powered_down, "
      "power_down, powering_up, fail, maint, reboot_requested, reboot_issued, planned)");
}

bool SinfoStateFilter::Matches(const NodeState& state, int64_t alloc_cpus) const {
  for (const SinfoStateSelector& selector : selectors) {
    switch (selector.kind) {
      case SinfoStateSelector::Kind::kFlag:
        if (state.Has(selector.flag)) return true;
        break;
      case SinfoStateSelector::Kind::kDraining:
        if (IsDraining(state)) return true;
        break;
      case SinfoStateSelector::Kind::kDrained:
        if (IsDrained(state)) return true;
        break;
      case SinfoStateSelector::Kind::kBase:
        if (selector.base == NodeBaseState::kAllocated) {
          if (alloc_cpus > 0) return true;
        } else if (selector.base == NodeBaseState::kIdle) {
          if (state.base == NodeBaseState::kIdle &&
              (state.flags & kFlagMask & ~Bit(NodeFlag::kNoRespond)) == 0) {
            return true;
          }
        } else if (selector.base == state.base) {
          return true;
        }
        break;
    }
  }
  return false;
}

Result<SinfoStateFilter> ParseSinfoStateFilter(std::string_view text) {
  SinfoStateFilter filter;
  if (EqualsIgnoreCase(text, "all")) {
    for (NodeBaseState base : kAllNodeBaseStates) {
      filter.selectors.push_back({SinfoStateSelector::Kind::kBase, base, NodeFlag::kDrain});
    }
    filter.selectors.push_back(
        {SinfoStateSelector::Kind::kFlag, NodeBaseState::kUnknown, NodeFlag::kDrain});
    filter.selectors.push_back(
        {SinfoStateSelector::Kind::kFlag, NodeBaseState::kUnknown, NodeFlag::kCompleting});
    return filter;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view word = text.substr(start, comma - start);
    if (!word.empty()) {
      GANTRY_ASSIGN_OR_RETURN(SinfoStateSelector selector, ParseSinfoStateSelector(word));
      filter.selectors.push_back(selector);
    }
    start = comma + 1;
  }
  if (filter.selectors.empty()) {
    return InvalidArgument("invalid node state list " + Quote(text) +
                           ": no state given (use \"all\" for every state)");
  }
  return filter;
}

Result<NodeUpdateState> ParseNodeUpdateState(std::string_view text) {
  for (const UpdateWord& entry : kUpdateWords) {
    // xstrncasecmp(text, word, MAX(len(text), min)): a long enough prefix, or the whole word.
    if (EqualsIgnoreCase(text, entry.word) ||
        (text.size() >= entry.min_length && StartsWithIgnoreCase(entry.word, text))) {
      return entry.state;
    }
  }
  return InvalidArgument(
      "invalid node state " + Quote(text) +
      " for scontrol update (valid states: NoResp, DRAIN, FAIL, FUTURE, RESUME, POWER_DOWN, "
      "POWER_DOWN_ASAP, POWER_DOWN_FORCE, POWER_UP, UNDRAIN, CANCEL_REBOOT, DOWN, IDLE; not all "
      "are valid given a node's prior state)");
}

std::string_view NodeUpdateStateName(NodeUpdateState state) {
  for (const UpdateWord& entry : kUpdateWords) {
    if (entry.state == state) return entry.word;
  }
  return "?";
}

bool NodeUpdateNeedsReason(NodeUpdateState state) {
  return state == NodeUpdateState::kDown || state == NodeUpdateState::kDrain ||
         state == NodeUpdateState::kFail;
}

}  // namespace gantry::model
