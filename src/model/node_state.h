// Node states, exactly as Slurm 22.05 names, shows and parses them
// (src/common/slurm_protocol_defs.c: node_state_string, node_state_string_compact,
// node_state_string_complete; sinfo(1) NODE STATE CODES; src/sinfo/opts.c and sinfo.c for -t;
// src/scontrol/update_node.c for `scontrol update NodeName=... State=`).
//
// A node state is a base state plus flags. Three spellings exist:
//  * long (node_state_string; sinfo %T lower-cases it): the flags that matter replace or
//    decorate the base state: "DRAINING" (DRAIN with jobs: ALLOCATED, MIXED or COMPLETING),
//    "DRAINED" (DRAIN without), "ALLOCATED+" (allocated, some jobs completing), "COMPLETING",
//    "MAINT", "REBOOT^", "FAILING", ... followed by at most one suffix character, the first that
//    applies of: '$' maintenance, '^' reboot issued, '@' reboot requested, '#' powering up,
//    '%' powering down, '~' powered down, '!' power down pending, '*' not responding; then, for
//    ALLOCATED '+' completing, for MIXED '-' planned, and IDLE turns into "PLANNED",
//    "RESERVED" or "PERFCTRS".
//  * compact (node_state_string_compact; sinfo %t lower-cases it): the same decision tree with
//    short words: "drng", "drain", "alloc+", "comp", "mix-", "plnd", "resv", "futr", "unk"...
//  * complete (node_state_string_complete; scontrol show node's State=): the base state name and
//    every flag, "+"-separated in Slurm's flag table order:
//    "IDLE+DRAIN", "DOWN+DRAIN+NOT_RESPONDING", "ALLOCATED+COMPLETING", "IDLE+CLOUD+POWERED_DOWN".
// Pure functions; thread-safe.
#ifndef GANTRY_MODEL_NODE_STATE_H_
#define GANTRY_MODEL_NODE_STATE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::model {

// Slurm's enum node_states, same values.
enum class NodeBaseState : uint8_t {
  kUnknown = 0,
  kDown = 1,
  kIdle = 2,
  kAllocated = 3,
  kError = 4,  // obsolete in Slurm; kept for completeness
  kMixed = 5,
  kFuture = 6,
};
inline constexpr int kNodeBaseStateCount = 7;

inline constexpr std::array<NodeBaseState, kNodeBaseStateCount> kAllNodeBaseStates = {
    NodeBaseState::kUnknown,   NodeBaseState::kDown,  NodeBaseState::kIdle,
    NodeBaseState::kAllocated, NodeBaseState::kError, NodeBaseState::kMixed,
    NodeBaseState::kFuture,
};

// Slurm's NODE_STATE_* flag bits (same values).
enum class NodeFlag : uint32_t {
  kNet = 0x00000010,       // PERFCTRS
  kReserved = 0x00000020,  // in an advanced reservation
  kUndrain = 0x00000040,   // request only: clear DRAIN
  kCloud = 0x00000080,
  kResume = 0x00000100,  // request only
  kDrain = 0x00000200,
  kCompleting = 0x00000400,
  kNoRespond = 0x00000800,
  kPoweredDown = 0x00001000,
  kFail = 0x00002000,
  kPoweringUp = 0x00004000,
  kMaint = 0x00008000,
  kRebootRequested = 0x00010000,
  kRebootCancel = 0x00020000,  // request only
  kPoweringDown = 0x00040000,
  kDynamicFuture = 0x00080000,
  kRebootIssued = 0x00100000,
  kPlanned = 0x00200000,  // reserved by backfill for a pending job
  kInvalidReg = 0x00400000,
  kPowerDown = 0x00800000,   // power down requested (pending)
  kPowerUp = 0x01000000,     // request only
  kPowerDrain = 0x02000000,  // request only
  kDynamicNorm = 0x04000000,
};

struct NodeState {
  NodeBaseState base = NodeBaseState::kUnknown;
  uint32_t flags = 0;  // bitwise OR of NodeFlag values; the low 4 bits are ignored

  bool Has(NodeFlag flag) const { return (flags & static_cast<uint32_t>(flag)) != 0; }
  NodeState& Set(NodeFlag flag) {
    flags |= static_cast<uint32_t>(flag);
    return *this;
  }
  NodeState& Clear(NodeFlag flag) {
    flags &= ~static_cast<uint32_t>(flag);
    return *this;
  }

  friend bool operator==(const NodeState&, const NodeState&) = default;
};

// "UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE".
std::string_view NodeBaseStateName(NodeBaseState state);
// The flag's word in the complete form ("DRAIN", "NOT_RESPONDING", "MAINTENANCE"); "?" for the
// request-only flags Slurm has no word for (UNDRAIN, REBOOT_CANCEL, POWER_DRAIN).
std::string_view NodeFlagName(NodeFlag flag);

std::string NodeStateString(const NodeState& state);    // long: "DRAINED*", "ALLOCATED+"
std::string NodeStateCompact(const NodeState& state);   // compact: "DRAIN*", "ALLOC+"
std::string SinfoStateLong(const NodeState& state);     // sinfo %T: "draining", "allocated"
std::string SinfoStateShort(const NodeState& state);    // sinfo %t: "drng", "alloc", "idle~"
std::string NodeStateComplete(const NodeState& state);  // scontrol State=: "IDLE+DRAIN"

// Reads the complete form back ("MIXED+DRAIN+NOT_RESPONDING"), case-insensitively. Errors name
// the text and the unknown or repeated word.
Result<NodeState> ParseNodeStateComplete(std::string_view text);

// Slurm's IS_NODE_DRAINING: DRAIN on a node with jobs (ALLOCATED, MIXED or COMPLETING);
// IS_NODE_DRAINED: DRAIN otherwise.
bool IsDraining(const NodeState& state);
bool IsDrained(const NodeState& state);

// What scontrol and sinfo show for a partly used node (node_info.c _set_node_mixed_op): the base
// becomes MIXED when some but not all effective CPUs are allocated, or when an ALLOCATED node has
// no CPU allocated but other TRES (memory, GRES). An IDLE node with memory allocated (a
// suspended job's, whose CPUs are free) stays IDLE, as on the reference cluster. Flags are kept.
NodeState WithMixed(NodeState state, int64_t alloc_cpus, int64_t effective_cpus,
                    bool has_alloc_tres);

// One word of `sinfo -t`.
struct SinfoStateSelector {
  enum class Kind {
    kBase,      // a base state (see SinfoStateFilter::Matches for IDLE and ALLOCATED)
    kFlag,      // nodes with the flag (DRAIN, COMPLETING, NO_RESPOND, POWERED_DOWN, ...)
    kDrained,   // IsDrained
    kDraining,  // IsDraining
  };
  Kind kind = Kind::kBase;
  NodeBaseState base = NodeBaseState::kUnknown;  // for kBase
  NodeFlag flag = NodeFlag::kDrain;              // for kFlag

  friend bool operator==(const SinfoStateSelector&, const SinfoStateSelector&) = default;
};

// sinfo's _node_state_id: the word, in any case, may be any prefix of a name, and the first name
// it begins in this order wins: the base states by long or compact name (UNKNOWN/UNK, DOWN,
// IDLE, ALLOCATED/ALLOC, MIXED/MIX, FUTURE/FUTR), then PLANNED/PLND, DRAIN, DRAINED,
// RESERVED/RESV, PERFCTRS/NPC, DRAINING/DRNG, COMPLETING/COMP, NO_RESPOND, POWERING_DOWN,
// POWERED_DOWN, POWER_DOWN, POWERING_UP, FAIL, MAINT, REBOOT/BOOT (requested), REBOOT^/BOOT^
// (issued), CLOUD. So "d" is DOWN, "dr" is DRAIN, "m" is MIXED, "ma" MAINT, "n" PERFCTRS.
Result<SinfoStateSelector> ParseSinfoStateSelector(std::string_view word);

// The argument of sinfo -t: comma-separated words (empty ones skipped) or "all".
struct SinfoStateFilter {
  std::vector<SinfoStateSelector> selectors;

  // sinfo's _filter_out, for a node with `alloc_cpus` allocated CPUs: a node is listed when any
  // selector matches. Flags match nodes having them; DRAINED/DRAINING as above; ALLOCATED
  // matches any node with allocated CPUs; IDLE matches a plain IDLE node (only NO_RESPOND may be
  // set); other base states match the base state.
  bool Matches(const NodeState& state, int64_t alloc_cpus) const;
};
// "all" (any case) selects every base state plus DRAIN and COMPLETING, as sinfo does; note that
// this still leaves out an IDLE node with flags other than NO_RESPOND, DRAIN or COMPLETING
// (e.g. IDLE+CLOUD+POWERED_DOWN), exactly like sinfo -t all.
Result<SinfoStateFilter> ParseSinfoStateFilter(std::string_view text);

// What `scontrol update NodeName=... State=<word>` asks for.
enum class NodeUpdateState {
  kNoResp,
  kCancelReboot,
  kDrain,
  kFail,
  kFuture,
  kResume,
  kPowerDownAsap,
  kPowerDownForce,
  kPowerDown,
  kPowerUp,
  kUndrain,
  kUnknown,
  kDown,
  kIdle,
  kAllocated,
  kMixed,
};

// scontrol's matching: case-insensitive, the word may be shortened to a prefix of at least 3
// characters (12 for POWER_DOWN_ASAP/POWER_DOWN_FORCE, 7 for POWER_DOWN/POWER_UP), tried in the
// order of the enum above ("POWER_DOWN" is POWER_DOWN, "POWER_DOWN_F" is POWER_DOWN_FORCE,
// "res" is RESUME, "dow" is DOWN).
Result<NodeUpdateState> ParseNodeUpdateState(std::string_view text);

// "NoResp", "CANCEL_REBOOT", "DRAIN", ..., "POWER_DOWN_ASAP", "DOWN", "IDLE", "ALLOCATED".
std::string_view NodeUpdateStateName(NodeUpdateState state);

// DOWN, DRAIN and FAIL need a Reason= ("You must specify a reason when DOWNING or DRAINING a
// node. Request denied").
bool NodeUpdateNeedsReason(NodeUpdateState state);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_NODE_STATE_H_
