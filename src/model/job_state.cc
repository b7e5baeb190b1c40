#include "model/job_state.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/ascii.h"

namespace gantry::model {
namespace {

using text::EqualsIgnoreCase;

struct BaseNames {
  std::string_view name;
  std::string_view code;
};

// Indexed by JobBaseState.
constexpr std::array<BaseNames, kJobBaseStateCount> kBaseNames = {{
    {"PENDING", "PD"},
    {"RUNNING", "R"},
    {"SUSPENDED", "S"},
    {"COMPLETED", "CD"},
    {"CANCELLED", "CA"},
    {"FAILED", "F"},
    {"TIMEOUT", "TO"},
    {"NODE_FAIL", "NF"},
    {"PREEMPTED", "PR"},
    {"BOOT_FAIL", "BF"},
    {"DEADLINE", "DL"},
    {"OUT_OF_MEMORY", "OOM"},
}};

struct FlagNames {
  JobFlag flag;
  std::string_view name;
  std::string_view code;  // "" for flags never displayed
};

// Every flag in job_state_string_complete's order.
constexpr std::array<FlagNames, 16> kCompleteOrder = {{
    {JobFlag::kLaunchFailed, "LAUNCH_FAILED", ""},
    {JobFlag::kUpdateDb, "UPDATE_DB", ""},
    {JobFlag::kCompleting, "COMPLETING", "CG"},
    {JobFlag::kConfiguring, "CONFIGURING", "CF"},
    {JobFlag::kPowerUpNode, "POWER_UP_NODE", ""},
    {JobFlag::kReconfigFail, "RECONFIG_FAIL", ""},
    {JobFlag::kResizing, "RESIZING", "RS"},
    {JobFlag::kRequeue, "REQUEUED", "RQ"},
    {JobFlag::kRequeueFed, "REQUEUE_FED", "RF"},
    {JobFlag::kRequeueHold, "REQUEUE_HOLD", "RH"},
    {JobFlag::kSpecialExit, "SPECIAL_EXIT", "SE"},
    {JobFlag::kStopped, "STOPPED", "ST"},
    {JobFlag::kRevoked, "REVOKED", "RV"},
    {JobFlag::kResvDelHold, "RESV_DEL_HOLD", "RD"},
    {JobFlag::kSignaling, "SIGNALING", "SI"},
    {JobFlag::kStageOut, "STAGE_OUT", "SO"},
}};

// Flags shown instead of the base state, in display precedence (job_state_string); their
// names are those of kCompleteOrder.
constexpr std::array<JobFlag, 12> kDisplayedFlags = {
    JobFlag::kCompleting, JobFlag::kStageOut,   JobFlag::kConfiguring, JobFlag::kResizing,
    JobFlag::kRequeue,    JobFlag::kRequeueFed, JobFlag::kRequeueHold, JobFlag::kSpecialExit,
    JobFlag::kStopped,    JobFlag::kRevoked,    JobFlag::kResvDelHold, JobFlag::kSignaling,
};

// The flags job_state_num recognises after the base states, in its order.
constexpr std::array<JobFlag, 12> kParsedFlags = {
    JobFlag::kCompleting, JobFlag::kConfiguring, JobFlag::kResizing,    JobFlag::kResvDelHold,
    JobFlag::kRequeue,    JobFlag::kRequeueFed,  JobFlag::kRequeueHold, JobFlag::kRevoked,
    JobFlag::kSignaling,  JobFlag::kSpecialExit, JobFlag::kStageOut,    JobFlag::kStopped,
};

const BaseNames& NamesOf(JobBaseState state) {
  return kBaseNames[static_cast<size_t>(state) % kBaseNames.size()];
}

std::string ValidStateNames() {
  std::string out;
  for (const BaseNames& names : kBaseNames) {
    if (!out.empty()) out += ", ";
    out += std::string(names.name) + " (" + std::string(names.code) + ")";
  }
  for (JobFlag flag : kParsedFlags) {
    out += ", " + std::string(JobFlagName(flag)) + " (" + std::string(JobFlagCode(flag)) + ")";
  }
  return out;
}

// "RUNNING, CANCELLED, FAILED or DEADLINE".
std::string JoinOr(const std::vector<std::string_view>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += (i + 1 == words.size()) ? " or " : ", ";
    out += words[i];
  }
  return out;
}

}  // namespace

std::string_view JobBaseStateName(JobBaseState state) { return NamesOf(state).name; }
std::string_view JobBaseStateCode(JobBaseState state) { return NamesOf(state).code; }

std::string_view JobFlagName(JobFlag flag) {
  for (const FlagNames& names : kCompleteOrder) {
    if (names.flag == flag) return names.name;
  }
  return "?";
}

std::string_view JobFlagCode(JobFlag flag) {
  for (const FlagNames& names : kCompleteOrder) {
    if (names.flag == flag) return names.code;
  }
  return "";
}

// The flags of kDisplayedFlags as one mask: most jobs have none of them.
constexpr uint32_t kDisplayedMask = [] {
  uint32_t mask = 0;
  for (JobFlag flag : kDisplayedFlags) mask |= static_cast<uint32_t>(flag);
  return mask;
}();

std::string_view JobStateName(const JobState& state) {
  if ((state.flags & kDisplayedMask) == 0) return JobBaseStateName(state.base);
  for (JobFlag flag : kDisplayedFlags) {
    if (state.Has(flag)) return JobFlagName(flag);
  }
  return JobBaseStateName(state.base);
}

std::string_view JobStateCode(const JobState& state) {
  if ((state.flags & kDisplayedMask) == 0) return JobBaseStateCode(state.base);
  for (JobFlag flag : kDisplayedFlags) {
    if (state.Has(flag)) return JobFlagCode(flag);
  }
  return JobBaseStateCode(state.base);
}

std::string JobStateComplete(const JobState& state) {
  std::string out(JobBaseStateName(state.base));
  for (const FlagNames& names : kCompleteOrder) {
    if (state.Has(names.flag)) {
      out += ',';
      out += names.name;
    }
  }
  return out;
}

bool IsPending(JobBaseState state) { return state == JobBaseState::kPending; }

bool IsActive(JobBaseState state) {
  return state == JobBaseState::kRunning || state == JobBaseState::kSuspended;
}

bool IsFinished(JobBaseState state) { return !IsPending(state) && !IsActive(state); }

bool IsCompleted(const JobState& state) {
  return IsFinished(state.base) && !state.Has(JobFlag::kCompleting);
}

Result<JobStateSelector> ParseJobStateSelector(std::string_view text) {
  JobStateSelector selector;
  for (JobBaseState base : kAllJobBaseStates) {
    if (EqualsIgnoreCase(text, JobBaseStateName(base)) ||
        EqualsIgnoreCase(text, JobBaseStateCode(base))) {
      selector.base = base;
      return selector;
    }
  }
  for (JobFlag flag : kParsedFlags) {
    if (EqualsIgnoreCase(text, JobFlagName(flag)) || EqualsIgnoreCase(text, JobFlagCode(flag))) {
      selector.is_flag = true;
      selector.flag = flag;
      return selector;
    }
  }
  return InvalidArgument("invalid job state \"" + std::string(text) +
                         "\" (valid states: " + ValidStateNames() + ")");
}

bool SacctSupportsJobState(const JobStateSelector& selector) {
  if (!selector.is_flag) return true;
  return selector.flag == JobFlag::kRequeue || selector.flag == JobFlag::kResizing ||
         selector.flag == JobFlag::kRevoked;
}

bool JobStateFilter::Matches(const JobState& state) const {
  if (all) return true;
  const uint32_t flags = state.flags & ~static_cast<uint32_t>(JobFlag::kUpdateDb);
  for (const JobStateSelector& selector : selectors) {
    if (selector.is_flag) {
      if (state.Has(selector.flag)) return true;
    } else if (selector.base == state.base && flags == 0) {
      return true;
    }
  }
  return false;
}

Result<JobStateFilter> ParseJobStateFilter(std::string_view text) {
  JobStateFilter filter;
  if (EqualsIgnoreCase(text, "all")) {
    filter.all = true;
    return filter;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    if (!item.empty()) {
      GANTRY_ASSIGN_OR_RETURN(JobStateSelector selector, ParseJobStateSelector(item));
      filter.selectors.push_back(selector);
    }
    start = comma + 1;
  }
  if (filter.selectors.empty()) {
    return InvalidArgument("invalid job state list \"" + std::string(text) +
                           "\": no state given (use \"all\" for every state)");
  }
  return filter;
}

bool IsShownBySqueueByDefault(const JobState& state) {
  return IsPending(state.base) || IsActive(state.base) || state.Has(JobFlag::kStageOut) ||
         state.Has(JobFlag::kCompleting);
}

std::optional<JobTransition> FindJobTransition(JobBaseState from, JobBaseState to) {
  for (const JobTransition& transition : kJobTransitions) {
    if (transition.from == from && transition.to == to) return transition;
  }
  return std::nullopt;
}

Status CheckJobTransition(JobBaseState from, JobBaseState to) {
  if (FindJobTransition(from, to).has_value()) return Status::Ok();
  std::vector<std::string_view> allowed;
  for (const JobTransition& transition : kJobTransitions) {
    if (transition.from == from) allowed.push_back(JobBaseStateName(transition.to));
  }
  return FailedPrecondition("job state " + std::string(JobBaseStateName(from)) +
                            " cannot change to " + std::string(JobBaseStateName(to)) + " (" +
                            std::string(JobBaseStateName(from)) + " may change to " +
                            JoinOr(allowed) + ")");
}

}  // namespace gantry::model
