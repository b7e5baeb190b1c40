// ConfigFromSpec: the node and partition definitions of an effective configuration.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/render_slurm_conf.h"
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

// A decimal integer, or `fallback` when the text is not one (the spec was validated, so that
// only happens for words such as UNLIMITED, which callers handle first).
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

const std::string* Find(const spec::KeyValues& kv, std::string_view key) {
  for (const auto& [k, v] : kv) {
    if (IsKey(k, key)) return &v;
  }
  return nullptr;
}

// "gpu:b200:8" / "gpu:8", as the rendered slurm.conf writes a pool's Gres=.
std::string PoolGres(const spec::EffectivePool& pool) {
  if (pool.gpus <= 0) return "";
  return "gpu:" + (pool.gpu_type.empty() ? "" : pool.gpu_type + ":") + std::to_string(pool.gpus);
}

v1::Partition BuildPartition(const spec::EffectiveConfig& config,
                             const spec::EffectivePartition& part) {
  v1::Partition p;
  p.set_name(part.name);
  for (const std::string& node : part.node_names) p.add_nodes(node);
  p.set_is_default(part.is_default);
  p.set_state("UP");
  p.set_max_time_min(kUnlimited);
  p.set_default_time_min(0);
  p.set_priority_tier(1);
  p.set_priority_job_factor(1);
  p.set_max_nodes(kUnlimited);
  p.set_min_nodes(0);
  p.set_oversubscribe("NO");
  p.set_preempt_mode(text::AsciiToUpper(config.Get("PreemptMode")));

  bool own_mem_default = false;
  bool own_mem_max = false;
  for (const auto& [key, value] : part.config) {
    if (IsKey(key, "MaxTime")) {
      p.set_max_time_min(ParseMinutes(value, kUnlimited));
    } else if (IsKey(key, "DefaultTime")) {
      p.set_default_time_min(ParseMinutes(value, 0));
    } else if (IsKey(key, "PriorityTier")) {
      p.set_priority_tier(ParseCount(value, 1));
    } else if (IsKey(key, "PriorityJobFactor")) {
      p.set_priority_job_factor(ParseCount(value, 1));
    } else if (IsKey(key, "MaxNodes")) {
      p.set_max_nodes(ParseCount(value, kUnlimited));
    } else if (IsKey(key, "MinNodes")) {
      p.set_min_nodes(ParseCount(value, 0));
    } else if (IsKey(key, "ExclusiveUser")) {
      p.set_exclusive_user(ParseBool(value));
    } else if (IsKey(key, "OverSubscribe") || IsKey(key, "Shared")) {
      p.set_oversubscribe(text::AsciiToUpper(value));
    } else if (IsKey(key, "PreemptMode")) {
      p.set_preempt_mode(text::AsciiToUpper(value));
    } else if (IsKey(key, "DefMemPerCPU")) {
      p.set_def_mem_per_cpu_mb(ParseMemory(value));
      own_mem_default = true;
    } else if (IsKey(key, "DefMemPerNode")) {
      p.set_def_mem_per_node_mb(ParseMemory(value));
      own_mem_default = true;
    } else if (IsKey(key, "MaxMemPerCPU")) {
      p.set_max_mem_per_cpu_mb(ParseMemory(value));
      own_mem_max = true;
    } else if (IsKey(key, "MaxMemPerNode")) {
      p.set_max_mem_per_node_mb(ParseMemory(value));
      own_mem_max = true;
    } else if (IsKey(key, "AllowAccounts")) {
      p.set_allow_accounts(value);
    } else if (IsKey(key, "AllowQos")) {
      p.set_allow_qos(value);
    } else if (IsKey(key, "AllowGroups")) {
      p.set_allow_groups(value);
    } else if (IsKey(key, "RootOnly")) {
      p.set_root_only(ParseBool(value));
    } else if (IsKey(key, "GraceTime")) {
      p.set_grace_time_sec(ParseCount(value, 0));
    } else if (IsKey(key, "TRESBillingWeights")) {
      p.set_tres_billing_weights(value);
    } else if (IsKey(key, "Hidden")) {
      p.set_hidden(ParseBool(value));
    } else if (IsKey(key, "State")) {
      p.set_state(text::AsciiToUpper(value));
    } else {
      (*p.mutable_extra())[key] = value;
    }
  }
  // Slurm: a partition without its own memory default or limit takes the cluster's.
  if (!own_mem_default) {
    if (const auto v = config.Explicit("DefMemPerCPU")) p.set_def_mem_per_cpu_mb(ParseMemory(*v));
    if (const auto v = config.Explicit("DefMemPerNode")) p.set_def_mem_per_node_mb(ParseMemory(*v));
  }
  if (!own_mem_max) {
    if (const auto v = config.Explicit("MaxMemPerCPU")) p.set_max_mem_per_cpu_mb(ParseMemory(*v));
    if (const auto v = config.Explicit("MaxMemPerNode")) p.set_max_mem_per_node_mb(ParseMemory(*v));
  }
  return p;
}

}  // namespace

v1::ConfigLoaded ConfigFromSpec(const spec::EffectiveConfig& config) {
  v1::ConfigLoaded out;
  for (const spec::EffectivePartition& part : config.partitions) {
    *out.add_partitions() = BuildPartition(config, part);
  }
  for (const spec::EffectivePool& pool : config.pools) {
    if (pool.login) continue;
    std::string gres = PoolGres(pool);
    uint64_t cpus = static_cast<uint64_t>(pool.cpus);
    uint64_t memory = static_cast<uint64_t>(pool.real_memory_mib);
    std::string features;
    // node_sets may override what the pool's machine type gives (as in the rendered NodeName=).
    if (const std::string* v = Find(pool.node_config, "CPUs")) cpus = ParseUint(*v, cpus);
    if (const std::string* v = Find(pool.node_config, "RealMemory")) memory = ParseUint(*v, memory);
    if (const std::string* v = Find(pool.node_config, "Gres")) gres = *v;
    if (const std::string* v = Find(pool.node_config, "Features")) features = *v;
    if (const std::string* v = Find(pool.node_config, "Feature")) features = *v;
    uint64_t weight = 1;
    if (const std::string* v = Find(pool.node_config, "Weight")) weight = ParseUint(*v, weight);
    for (const std::string& name : pool.node_names) {
      v1::Node& node = *out.add_nodes();
      node.set_name(name);
      node.set_pool(pool.id);
      for (const spec::EffectivePartition& part : config.partitions) {
        for (const std::string& id : part.pool_ids) {
          if (id == pool.id) {
            node.add_partitions(part.name);
            break;
          }
        }
      }
      node.set_cpus(static_cast<uint32_t>(cpus));
      node.set_real_memory_mb(memory);
      node.set_gres(gres);
      node.set_features(features);
      node.set_weight(static_cast<uint32_t>(weight));
    }
  }
  return out;
}

int32_t ReturnToServiceFromConfig(const spec::EffectiveConfig& config) {
  for (const auto& [key, value] : spec::ClusterConfLines(config, spec::SlurmConfOptions{})) {
    if (IsKey(key, "ReturnToService")) return static_cast<int32_t>(ParseUint(value, 0));
  }
  return 0;
}

}  // namespace gantry::state
