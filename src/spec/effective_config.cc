#include "spec/effective_config.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "spec/machine_types.h"
#include "spec/settings.h"
#include "spec/slurm_keys.h"
#include "spec/spec_json.h"
#include "spec/validate.h"
#include "text/hostlist.h"

namespace gantry::spec {

namespace {

// Slurm 22.05's defaults for the cluster settings Gantry itself reads.
const std::vector<std::pair<std::string_view, std::string_view>> kDefaults = {
    {"AccountingStorageEnforce", ""},
    {"DefMemPerCPU", "0"},
    {"FairShareDampeningFactor", "1"},
    {"FirstJobId", "1"},
    {"JobRequeue", "1"},
    {"KillWait", "30"},
    {"MaxArraySize", "1001"},
    {"MaxJobCount", "10000"},
    {"MaxJobId", "67043328"},
    {"MinJobAge", "300"},
    {"OverTimeLimit", "0"},
    {"PreemptExemptTime", "00:00:00"},
    {"PreemptMode", "OFF"},
    {"PreemptType", "preempt/none"},
    {"PriorityCalcPeriod", "5"},
    {"PriorityDecayHalfLife", "7-0"},
    {"PriorityFavorSmall", "NO"},
    {"PriorityFlags", ""},
    {"PriorityMaxAge", "7-0"},
    {"PriorityType", "priority/basic"},
    {"PriorityUsageResetPeriod", "NONE"},
    {"PriorityWeightAge", "0"},
    {"PriorityWeightAssoc", "0"},
    {"PriorityWeightFairshare", "0"},
    {"PriorityWeightJobSize", "0"},
    {"PriorityWeightPartition", "0"},
    {"PriorityWeightQOS", "0"},
    {"PriorityWeightTRES", ""},
    {"ReturnToService", "0"},
    {"SchedulerParameters", ""},
    {"SchedulerTimeSlice", "30"},
    {"SelectTypeParameters", "CR_Core_Memory"},
    {"SlurmdTimeout", "300"},
};

// Canonical slurm.conf spelling of a key at a scope; the key as written when unknown.
std::string Canonical(const std::string& key, Scope scope) {
  const SlurmKey* k = FindSlurmKey(key, scope);
  return k != nullptr ? std::string(k->name) : key;
}

KeyValues CanonicalMap(const std::vector<Setting>& settings, Scope scope) {
  KeyValues out;
  for (const Setting& s : settings) SetKey(&out, Canonical(s.key, scope), s.value);
  return out;
}

EffectivePool BuildPool(const ClusterSpec& spec, size_t index) {
  const NodePool& p = spec.node_pools[index];
  EffectivePool pool;
  pool.id = p.id;
  pool.login = p.id == spec.slurm.login_node_pool_id;
  pool.machine_type = p.machine_spec.machine_type;
  if (const MachineType* m = FindMachineType(p.machine_spec.machine_type)) {
    pool.cpus = m->vcpus;
    pool.real_memory_mib = m->memory_mib;
    pool.gpus = m->gpu_count;
    pool.gpu_type = std::string(m->gpu_type);
  }
  if (!p.machine_spec.accelerator_type.empty()) {
    pool.gpu_type = GpuTypeForAccelerator(p.machine_spec.accelerator_type);
  }
  if (p.machine_spec.accelerator_count) pool.gpus = *p.machine_spec.accelerator_count;
  if (const auto& r = p.node_resources) {
    if (r->cpus) pool.cpus = *r->cpus;
    if (r->memory_mib) pool.real_memory_mib = *r->memory_mib;
    if (r->gpus) pool.gpus = *r->gpus;
    if (!r->gpu_type.empty()) pool.gpu_type = r->gpu_type;
  }
  if (pool.gpus == 0) pool.gpu_type.clear();
  const int64_t count = p.scaling_spec.max_node_count.value_or(0);
  for (int64_t i = 0; i < count; ++i) {
    pool.node_names.push_back(NodeName(spec.display_name, p.id, i));
  }
  pool.hostlist = text::CompressHostlist(pool.node_names);
  for (size_t i = 0; i < spec.slurm.node_sets.size(); ++i) {
    if (spec.slurm.node_sets[i].node_pool_id == p.id) {
      pool.node_config = CanonicalMap(NodeSetSettings(spec, i), kNodeScope);
    }
  }
  return pool;
}

// Without a memory default, Slurm (CR_Core_Memory) gives a job that asks for no memory the whole
// node's memory, so it never shares a node. Like the managed service, a partition without
// DefMemPerCPU/DefMemPerNode (here or cluster-wide) gets DefMemPerCPU = the smallest
// memory-per-CPU of its pools, at least 100 MiB.
void AddDefaultMemory(const EffectiveConfig& c, EffectivePartition* part) {
  for (const char* key : {"DefMemPerCPU", "DefMemPerNode"}) {
    if (HasKey(part->config, key) || HasKey(c.settings, key)) return;
  }
  int64_t per_cpu = 0;
  for (const std::string& id : part->pool_ids) {
    const EffectivePool* pool = c.FindPool(id);
    if (pool == nullptr || pool->cpus <= 0) continue;
    const int64_t v = std::max<int64_t>(100, pool->real_memory_mib / pool->cpus);
    per_cpu = per_cpu == 0 ? v : std::min(per_cpu, v);
  }
  if (per_cpu > 0) part->config.emplace_back("DefMemPerCPU", std::to_string(per_cpu));
}

}  // namespace

bool HasKey(const KeyValues& kv, std::string_view key) {
  const std::string want = NormalizeKey(key);
  return std::ranges::any_of(kv,
                             [&](const auto& pair) { return NormalizeKey(pair.first) == want; });
}

void SetKey(KeyValues* kv, const std::string& key, std::string value) {
  const std::string want = NormalizeKey(key);
  for (auto& [k, v] : *kv) {
    if (NormalizeKey(k) == want) {
      v = std::move(value);
      return;
    }
  }
  kv->emplace_back(key, std::move(value));
}

std::string NodeName(std::string_view cluster, std::string_view pool, int64_t index) {
  return std::string(cluster) + "-" + std::string(pool) + "-" + std::to_string(index);
}

std::optional<std::string> EffectiveConfig::Explicit(std::string_view key) const {
  for (const auto& [k, v] : settings) {
    if (NormalizeKey(k) == NormalizeKey(key)) return v;
  }
  return std::nullopt;
}

std::string EffectiveConfig::Get(std::string_view key) const {
  if (std::optional<std::string> v = Explicit(key)) return *v;
  for (const auto& [k, v] : kDefaults) {
    if (NormalizeKey(k) == NormalizeKey(key)) return std::string(v);
  }
  return "";
}

const EffectivePool* EffectiveConfig::FindPool(std::string_view id) const {
  for (const EffectivePool& p : pools) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const EffectivePartition* EffectiveConfig::DefaultPartition() const {
  for (const EffectivePartition& p : partitions) {
    if (p.is_default) return &p;
  }
  return nullptr;
}

int64_t EffectiveConfig::ComputeNodeCount() const {
  int64_t n = 0;
  for (const EffectivePool& p : pools) {
    if (!p.login) n += static_cast<int64_t>(p.node_names.size());
  }
  return n;
}

Result<uint32_t> UintSetting(const EffectiveConfig& config, std::string_view key,
                             uint32_t fallback) {
  const std::string value = config.Get(key);
  if (value.empty()) return fallback;
  uint32_t out = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || ptr != value.data() + value.size()) {
    return InvalidArgument(std::string(key) + "=" + value + ": not a non-negative integer");
  }
  return out;
}

Result<EffectiveConfig> BuildEffectiveConfig(const ClusterSpec& spec) {
  if (Diagnostics d = ValidateClusterSpec(spec); !d.empty()) {
    return FailedPrecondition("the spec is not valid:\n" + d.ToStatus().message());
  }
  EffectiveConfig c;
  c.cluster_name = spec.display_name;
  c.home_directory_storage = spec.slurm.home_directory_storage;
  c.settings = CanonicalMap(ClusterSettings(spec), kClusterScope);
  for (size_t i = 0; i < spec.node_pools.size(); ++i) c.pools.push_back(BuildPool(spec, i));
  for (size_t i = 0; i < spec.slurm.partitions.size(); ++i) {
    const Partition& p = spec.slurm.partitions[i];
    EffectivePartition part;
    part.name = p.id;
    part.is_default =
        spec.slurm.default_partition_id.empty() ? i == 0 : p.id == spec.slurm.default_partition_id;
    part.pool_ids = p.node_pool_ids;
    for (const std::string& pool_id : p.node_pool_ids) {
      const EffectivePool* pool = c.FindPool(pool_id);
      part.node_names.insert(part.node_names.end(), pool->node_names.begin(),
                             pool->node_names.end());
    }
    part.hostlist = text::CompressHostlist(part.node_names);
    part.config = CanonicalMap(PartitionSettings(spec, i), kPartitionScope);
    AddDefaultMemory(c, &part);
    c.partitions.push_back(std::move(part));
  }
  c.prolog_scripts = spec.slurm.prolog_bash_scripts;
  c.epilog_scripts = spec.slurm.epilog_bash_scripts;
  return c;
}

std::string EffectiveConfigToJsonText(const ClusterSpec& spec, const EffectiveConfig& c) {
  using Json = nlohmann::ordered_json;
  auto kv_json = [](const KeyValues& kv) {
    Json j = Json::object();
    for (const auto& [k, v] : kv) j[k] = v;
    return j;
  };
  Json pools = Json::array();
  for (const EffectivePool& p : c.pools) {
    Json j = {{"id", p.id},
              {"login", p.login},
              {"machine_type", p.machine_type},
              {"nodes", p.hostlist},
              {"node_count", p.node_names.size()},
              {"cpus", p.cpus},
              {"real_memory_mib", p.real_memory_mib},
              {"gpus", p.gpus}};
    if (!p.gpu_type.empty()) j["gpu_type"] = p.gpu_type;
    if (!p.node_config.empty()) j["node_config"] = kv_json(p.node_config);
    pools.push_back(j);
  }
  Json partitions = Json::array();
  for (const EffectivePartition& p : c.partitions) {
    partitions.push_back({{"name", p.name},
                          {"default", p.is_default},
                          {"node_pool_ids", p.pool_ids},
                          {"nodes", p.hostlist},
                          {"config", kv_json(p.config)}});
  }
  Json out = {{"cluster_name", c.cluster_name},
              {"home_directory_storage", c.home_directory_storage},
              {"settings", kv_json(c.settings)},
              {"pools", pools},
              {"partitions", partitions},
              {"prolog_scripts", c.prolog_scripts.size()},
              {"epilog_scripts", c.epilog_scripts.size()},
              {"spec", SpecToJson(spec)}};
  return out.dump(2) + "\n";
}

}  // namespace gantry::spec
