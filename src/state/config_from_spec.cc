// ConfigFromSpec: the node and partition definitions of an effective configuration.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/render_slurm_conf.h"
#include "spec/slurm_keys.h"
#include "state/cluster_state.h"
#include "state/partition_settings.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::state {
namespace {

using text::EqualsIgnoreCase;

bool IsKey(std::string_view key, std::string_view want) {
  return spec::NormalizeKey(key) == spec::NormalizeKey(want);
}

// A decimal integer, or `fallback` when the text is not one (the spec was validated).
uint64_t ParseUint(std::string_view value, uint64_t fallback) {
  uint64_t out = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) return fallback;
  return out;
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
    own_mem_default = own_mem_default || IsKey(key, "DefMemPerCPU") || IsKey(key, "DefMemPerNode");
    own_mem_max = own_mem_max || IsKey(key, "MaxMemPerCPU") || IsKey(key, "MaxMemPerNode");
    SetPartitionKey(key, value, &p);
  }
  // Slurm: a partition without its own memory default or limit takes the cluster's.
  for (const char* key : {"DefMemPerCPU", "DefMemPerNode", "MaxMemPerCPU", "MaxMemPerNode"}) {
    const bool own = key[0] == 'D' ? own_mem_default : own_mem_max;
    if (const auto v = config.Explicit(key); v && !own) SetPartitionKey(key, *v, &p);
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
