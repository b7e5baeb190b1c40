#include "state/partition_settings.h"

#include <charconv>
#include <cstdint>

#include "spec/slurm_keys.h"
#include "state/cluster_state.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::state {
namespace {

using text::EqualsIgnoreCase;

bool IsKey(std::string_view key, std::string_view want) {
  return spec::NormalizeKey(key) == spec::NormalizeKey(want);
}

bool IsUnlimitedWord(std::string_view value) {
  return EqualsIgnoreCase(value, "UNLIMITED") || EqualsIgnoreCase(value, "INFINITE");
}

// A decimal integer, or `fallback` when the text is not one (values were checked, so that only
// happens for words such as UNLIMITED, which callers handle first).
uint64_t ParseUint(std::string_view value, uint64_t fallback) {
  uint64_t out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) return fallback;
  return out;
}

uint32_t ParseCount(std::string_view value, uint32_t fallback) {
  if (IsUnlimitedWord(value)) return kUnlimited;
  const uint64_t v = ParseUint(value, fallback);
  return v > kUnlimited ? kUnlimited : static_cast<uint32_t>(v);
}

// MaxTime / DefaultTime: minutes, UNLIMITED for no limit.
uint32_t ParseMinutes(std::string_view value, uint32_t fallback) {
  auto minutes = text::ParseDurationMinutes(value);
  if (!minutes.ok()) return fallback;
  if (*minutes == text::kInfiniteDuration || *minutes >= kUnlimited) return kUnlimited;
  return static_cast<uint32_t>(*minutes);
}

uint64_t ParseMemory(std::string_view value) {
  return IsUnlimitedWord(value) ? 0 : ParseUint(value, 0);
}

bool ParseBool(std::string_view value) {
  for (std::string_view yes : {"YES", "TRUE", "UP", "1"}) {
    if (EqualsIgnoreCase(value, yes)) return true;
  }
  return false;
}

// What scontrol update may change on a partition (Slurm 22.05's scontrol_parse_part_options),
// in the catalog's spelling; Nodes, Default and Priority are not slurm.conf catalog entries of
// their own kind and are checked here.
constexpr std::string_view kUpdatable[] = {"AllocNodes",    "AllowAccounts", "AllowGroups",
                                           "AllowQos",      "Alternate",     "CpuBind",
                                           "DefaultTime",   "DefMemPerCPU",  "DefMemPerNode",
                                           "DenyAccounts",  "DenyQos",       "DisableRootJobs",
                                           "ExclusiveUser", "GraceTime",     "Hidden",
                                           "JobDefaults",   "LLN",           "MaxCPUsPerNode",
                                           "MaxMemPerCPU",  "MaxMemPerNode", "MaxNodes",
                                           "MaxTime",       "MinNodes",      "OverSubscribe",
                                           "OverTimeLimit", "PreemptMode",   "PriorityJobFactor",
                                           "PriorityTier",  "QOS",           "ReqResv",
                                           "RootOnly",      "State",         "TRESBillingWeights"};

}  // namespace

void SetPartitionKey(std::string_view key, const std::string& value, v1::Partition* p) {
  if (IsKey(key, "MaxTime")) {
    p->set_max_time_min(ParseMinutes(value, kUnlimited));
  } else if (IsKey(key, "DefaultTime")) {
    p->set_default_time_min(ParseMinutes(value, 0));
  } else if (IsKey(key, "PriorityTier")) {
    p->set_priority_tier(ParseCount(value, 1));
  } else if (IsKey(key, "PriorityJobFactor")) {
    p->set_priority_job_factor(ParseCount(value, 1));
  } else if (IsKey(key, "Priority")) {  // before 16.05: both
    p->set_priority_tier(ParseCount(value, 1));
    p->set_priority_job_factor(ParseCount(value, 1));
  } else if (IsKey(key, "MaxNodes")) {
    p->set_max_nodes(ParseCount(value, kUnlimited));
  } else if (IsKey(key, "MinNodes")) {
    p->set_min_nodes(ParseCount(value, 0));
  } else if (IsKey(key, "ExclusiveUser")) {
    p->set_exclusive_user(ParseBool(value));
  } else if (IsKey(key, "OverSubscribe") || IsKey(key, "Shared")) {
    p->set_oversubscribe(text::AsciiToUpper(value));
  } else if (IsKey(key, "PreemptMode")) {
    p->set_preempt_mode(text::AsciiToUpper(value));
  } else if (IsKey(key, "DefMemPerCPU")) {
    p->set_def_mem_per_cpu_mb(ParseMemory(value));
    p->set_def_mem_per_node_mb(0);  // one default or the other, as in Slurm
  } else if (IsKey(key, "DefMemPerNode")) {
    p->set_def_mem_per_node_mb(ParseMemory(value));
    p->set_def_mem_per_cpu_mb(0);
  } else if (IsKey(key, "MaxMemPerCPU")) {
    p->set_max_mem_per_cpu_mb(ParseMemory(value));
    p->set_max_mem_per_node_mb(0);
  } else if (IsKey(key, "MaxMemPerNode")) {
    p->set_max_mem_per_node_mb(ParseMemory(value));
    p->set_max_mem_per_cpu_mb(0);
  } else if (IsKey(key, "AllowAccounts")) {
    p->set_allow_accounts(value);
  } else if (IsKey(key, "AllowQos")) {
    p->set_allow_qos(value);
  } else if (IsKey(key, "AllowGroups")) {
    p->set_allow_groups(value);
  } else if (IsKey(key, "RootOnly")) {
    p->set_root_only(ParseBool(value));
  } else if (IsKey(key, "GraceTime")) {
    p->set_grace_time_sec(ParseCount(value, 0));
  } else if (IsKey(key, "TRESBillingWeights")) {
    p->set_tres_billing_weights(value);
  } else if (IsKey(key, "Hidden")) {
    p->set_hidden(ParseBool(value));
  } else if (IsKey(key, "State")) {
    p->set_state(text::AsciiToUpper(value));
  } else {
    (*p->mutable_extra())[std::string(key)] = value;
  }
}

Result<std::string> CheckPartitionSetting(std::string_view key, std::string_view value) {
  const std::string setting = std::string(key) + "=" + std::string(value);
  if (IsKey(key, "Nodes")) return std::string("Nodes");
  if (IsKey(key, "Default") || IsKey(key, "Priority")) {
    const std::string name = IsKey(key, "Default") ? "Default" : "Priority";
    const bool ok = name == "Default"
                        ? EqualsIgnoreCase(value, "YES") || EqualsIgnoreCase(value, "NO")
                        : ParseUint(value, 65534) <= 65533;
    if (!ok) {
      return InvalidArgument("Invalid input: " + setting +
                             (name == "Default" ? ": Acceptable Default values are YES and NO"
                                                : ": an integer from 0 to 65533"));
    }
    return name;
  }
  const spec::SlurmKey* found = spec::FindSlurmKey(key, spec::kPartitionScope);
  bool updatable = false;
  for (std::string_view name : kUpdatable) {
    updatable = updatable || (found != nullptr && IsKey(found->name, name));
  }
  if (found != nullptr && IsKey(found->name, "Shared")) {
    found = spec::FindSlurmKey("OverSubscribe", spec::kPartitionScope);
    updatable = true;
  }
  if (!updatable) return InvalidArgument("Update of this parameter is not supported: " + setting);
  if (Status valid = spec::ValidateSlurmValue(*found, value); !valid.ok()) {
    return InvalidArgument("Invalid input: " + setting + ": " + valid.message());
  }
  return std::string(found->name);
}

Status ApplyPartitionSetting(ClusterState* s, int p, const std::string& key,
                             const std::string& value) {
  v1::Partition& part = s->partitions[static_cast<size_t>(p)];
  if (key == "Nodes") {
    std::optional<std::vector<uint32_t>> nodes = s->NodeIndexesOf(value);
    if (!nodes) return InvalidArgument("Invalid node name specified: Nodes=" + value);
    part.clear_nodes();
    for (uint32_t i : *nodes) part.add_nodes(s->nodes[i].name());
    RefreshPartitionMembers(s);
    return Status::Ok();
  }
  if (key == "Default") {
    const bool yes = EqualsIgnoreCase(value, "YES");
    if (yes) {
      for (v1::Partition& other : s->partitions) other.set_is_default(false);
    }
    part.set_is_default(yes);
    return Status::Ok();
  }
  SetPartitionKey(key, value, &part);
  return Status::Ok();
}

void RefreshPartitionMembers(ClusterState* s) {
  for (v1::Node& node : s->nodes) node.clear_partitions();
  RebuildIndexes(s);
  for (size_t p = 0; p < s->partitions.size(); ++p) {
    for (uint32_t i : s->partition_nodes[p]) s->nodes[i].add_partitions(s->partitions[p].name());
  }
}

}  // namespace gantry::state
