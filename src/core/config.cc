#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "core/context.h"
#include "state/admission.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::core {
namespace {

// AuthInfo's cred_expire=N (Slurm: at least 5 s; 120 s when not given).
Result<uint32_t> CredExpire(const spec::EffectiveConfig& config) {
  const std::string value = config.Get("AuthInfo");
  for (std::string_view item : text::Split(value, ',')) {
    if (!item.starts_with("cred_expire=")) continue;
    const std::string_view number = item.substr(12);
    uint32_t out = 0;
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), out);
    if (ec != std::errc() || ptr != number.data() + number.size() || out < 5) {
      return InvalidArgument("AuthInfo=" + value + ": cred_expire must be a whole number of " +
                             "seconds, at least 5");
    }
    return out;
  }
  return 120;
}

}  // namespace

Result<Config> ConfigFromSpec(const spec::EffectiveConfig& config) {
  Config out;
  GANTRY_ASSIGN_OR_RETURN(out.kill_wait_sec, spec::UintSetting(config, "KillWait", 30));
  GANTRY_ASSIGN_OR_RETURN(out.node_timeout_sec, spec::UintSetting(config, "SlurmdTimeout", 300));
  if (out.node_timeout_sec == 0) out.node_timeout_sec = 300;
  GANTRY_ASSIGN_OR_RETURN(out.cred_expire_sec, CredExpire(config));
  out.return_to_service = state::ReturnToServiceFromConfig(config);
  const state::AdmitOptions admit = state::AdmitOptionsFromConfig(config);
  out.enforce_limits = admit.enforce_limits;
  out.enforce_safe = admit.enforce_safe;
  if (const std::string half_life = config.Get("PriorityDecayHalfLife"); !half_life.empty()) {
    Result<int64_t> seconds = text::ParseDurationSeconds(half_life);
    if (!seconds.ok() || *seconds < 0) {
      return InvalidArgument("PriorityDecayHalfLife: \"" + half_life +
                             "\" is not a duration ([days-]hours:minutes:seconds)");
    }
    out.usage_half_life_sec = *seconds;
  }
  GANTRY_ASSIGN_OR_RETURN(out.priority,
                          sched::PriorityConfig::FromKeys(
                              [&config](std::string_view key) -> std::optional<std::string> {
                                std::string value = config.Get(key);
                                if (value.empty()) return std::nullopt;
                                return value;
                              }));
  GANTRY_ASSIGN_OR_RETURN(out.scheduler,
                          sched::SchedulerOptions::FromConfig(config.Get("SchedulerType"),
                                                              config.Get("SchedulerParameters")));
  out.scheduler.whole_nodes = config.Get("SelectType") == "select/linear";
  GANTRY_ASSIGN_OR_RETURN(const uint32_t slice,
                          spec::UintSetting(config, "SchedulerTimeSlice", 30));
  out.scheduler.time_slice_sec = slice < 5 ? 30 : slice;  // Slurm's floor
  GANTRY_ASSIGN_OR_RETURN(
      out.scheduler.preempt,
      sched::PreemptOptions::FromConfig(config.Get("PreemptType"), config.Get("PreemptMode"),
                                        config.Get("PreemptExemptTime")));
  out.health.program = config.Get("HealthCheckProgram");
  GANTRY_ASSIGN_OR_RETURN(out.health.interval_sec,
                          spec::UintSetting(config, "HealthCheckInterval", 0));
  out.health.node_state = config.Get("HealthCheckNodeState");
  out.health.home_storage = config.home_directory_storage;
  if (std::string tmp_fs = config.Get("TmpFS"); !tmp_fs.empty()) out.health.tmp_fs = tmp_fs;
  return out;
}

void ConfigureState(const Config& config, state::ClusterState* state) {
  state->return_to_service = config.return_to_service;
  state->enforce_limits = config.enforce_limits;
  state->enforce_safe = config.enforce_safe;
  state->billing_max_tres = config.priority.max_tres;
  state->preemption = config.scheduler.preempt.type != sched::PreemptType::kNone;
  state->preempt_exempt_sec = config.scheduler.preempt.exempt_sec;
  state->accounting.usage_half_life_sec = config.usage_half_life_sec;
}

}  // namespace gantry::core
