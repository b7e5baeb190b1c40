#include "state/job_update.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "model/job_state.h"
#include "state/admission.h"
#include "state/priority.h"
#include "text/ascii.h"
#include "text/begin_time.h"
#include "text/dependency.h"
#include "text/duration.h"

namespace gantry::state {
namespace {

constexpr int64_t kMaxNice = 2147483645;  // Slurm's range (NICE_OFFSET - 3)

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return n;
}

enum class Key {
  kTimeLimit,
  kName,
  kNice,
  kComment,
  kPartition,
  kStartTime,
  kNumNodes,
  kDependency,
  kQos,
  kAccount
};

std::optional<Key> KeyOf(std::string_view name) {
  struct Entry {
    std::string_view name;
    Key key;
  };
  static constexpr Entry kKeys[] = {
      {"timelimit", Key::kTimeLimit},
      {"jobname", Key::kName},
      {"name", Key::kName},
      {"nice", Key::kNice},
      {"comment", Key::kComment},
      {"partition", Key::kPartition},
      {"starttime", Key::kStartTime},
      {"begintime", Key::kStartTime},
      {"numnodes", Key::kNumNodes},
      {"dependency", Key::kDependency},
      {"qos", Key::kQos},
      {"account", Key::kAccount},
  };
  for (const Entry& e : kKeys) {
    if (text::EqualsIgnoreCase(name, e.name)) return e.key;
  }
  return std::nullopt;
}

bool PendingOnly(Key key) {
  return key != Key::kTimeLimit && key != Key::kName && key != Key::kNice && key != Key::kComment;
}

}  // namespace

Result<v1::Job> UpdateJobFields(const ClusterState& state, const v1::Job& job,
                                const std::map<std::string, std::string>& fields,
                                const JobUpdateContext& context) {
  if (!context.operator_caller && !context.caller_owns_job) {
    return PermissionDenied("Invalid user id");  // slurmctld's update_job
  }
  const auto base = static_cast<model::JobBaseState>(job.state());
  const bool pending = base == model::JobBaseState::kPending;
  if (model::IsFinished(base)) return FailedPrecondition("Job is no longer pending execution");
  v1::Job out = job;
  v1::JobRequest& r = *out.mutable_request();
  for (const auto& [name, value] : fields) {
    const std::optional<Key> key = KeyOf(name);
    if (!key) {
      return InvalidArgument("Update of this parameter is not supported: " + name + "=" + value);
    }
    if (PendingOnly(*key) && !pending) {
      return FailedPrecondition("Job is no longer pending execution");
    }
    switch (*key) {
      case Key::kTimeLimit: {
        Result<int64_t> minutes = text::ParseDurationMinutes(value);
        if (!minutes.ok()) return InvalidArgument("Invalid time limit specified");
        const uint32_t limit = *minutes == text::kInfiniteDuration || *minutes >= kUnlimited
                                   ? kUnlimited
                                   : static_cast<uint32_t>(*minutes);
        const uint32_t current =
            job.time_limit_min() != 0 ? job.time_limit_min() : r.time_limit_min();
        if (!pending && !context.operator_caller && (current == 0 || limit > current)) {
          return PermissionDenied("Access/permission denied");
        }
        r.set_time_limit_min(limit);
        if (out.time_limit_min() != 0) out.set_time_limit_min(limit);
        break;
      }
      case Key::kName:
        r.set_name(value);
        break;
      case Key::kNice: {
        const std::optional<int64_t> nice = ParseInt(value);
        if (!nice || std::llabs(*nice) > kMaxNice) return InvalidArgument("Invalid nice value");
        if (*nice < 0 && !context.operator_caller) {
          return PermissionDenied("Access/permission denied");
        }
        r.set_nice(static_cast<int32_t>(*nice));
        if (pending && out.priority() != 0) out.set_priority(PriorityFromNice(r.nice()));
        break;
      }
      case Key::kComment:
        r.set_comment(value);
        break;
      case Key::kPartition: {
        r.clear_partitions();
        for (size_t at = 0; at <= value.size();) {
          const size_t comma = std::min(value.find(',', at), value.size());
          const std::string part = value.substr(at, comma - at);
          at = comma + 1;
          if (state.FindPartition(part) == nullptr) {
            return InvalidArgument("Invalid partition name specified");
          }
          r.add_partitions(part);
        }
        out.set_partition(r.partitions(0));
        break;
      }
      case Key::kStartTime: {
        Result<UnixTime> begin = text::ParseBeginTime(value, context.now, *context.time_zone);
        if (!begin.ok()) return InvalidArgument("Invalid time specification");
        r.set_begin_time(*begin);
        if (out.priority() != 0) out.set_eligible_time(std::max<int64_t>(*begin, context.now));
        break;
      }
      case Key::kNumNodes: {
        const size_t dash = value.find('-');
        const std::optional<int64_t> min = ParseInt(value.substr(0, dash));
        const std::optional<int64_t> max =
            dash == std::string::npos ? min : ParseInt(value.substr(dash + 1));
        if (!min || !max || *min < 1 || *max < *min || *max > 0x7fffffff) {
          return InvalidArgument("Invalid node count specified");
        }
        r.set_min_nodes(static_cast<uint32_t>(*min));
        r.set_max_nodes(static_cast<uint32_t>(*max));
        break;
      }
      case Key::kDependency:
        if (!value.empty() && !text::ParseDependency(value).ok()) {
          return InvalidArgument("Job dependency problem");
        }
        r.set_dependency(value);
        break;
      case Key::kQos:
        r.set_qos(value);
        break;
      case Key::kAccount:
        r.set_account(value);
        break;
    }
  }
  // The texts it may now hold follow a submission's rules.
  GANTRY_RETURN_IF_ERROR(CheckRequestLengths(r));
  GANTRY_RETURN_IF_ERROR(CheckRequestTexts(r));
  return out;
}

}  // namespace gantry::state
