// The effective configuration of a validated spec: what the cluster really runs with. Node
// names `<display_name>-<pool>-<index>`, node resources from the machine catalog (or the
// spec's node_resources override), partitions with their nodes and the default partition, and
// the slurm.conf settings under their canonical names. Settings the spec leaves unset are
// absent here; SlurmDefault() gives Slurm's default for them. Pure; thread-safe.
#ifndef GANTRY_SPEC_EFFECTIVE_CONFIG_H_
#define GANTRY_SPEC_EFFECTIVE_CONFIG_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "spec/cluster_spec.h"

namespace gantry::spec {

// Canonical slurm.conf key and its value, in the order they should be written.
using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Whether `key` is present, comparing keys as slurm.conf does (case and '_' ignored).
bool HasKey(const KeyValues& kv, std::string_view key);
// Replaces the value of `key` in place, or appends the pair when absent.
void SetKey(KeyValues* kv, const std::string& key, std::string value);

struct EffectivePool {
  std::string id;
  bool login = false;
  std::string machine_type;
  std::vector<std::string> node_names;
  std::string hostlist;  // node_names compressed, e.g. "demo-a4-[0-3]"
  int64_t cpus = 0;
  int64_t real_memory_mib = 0;
  int64_t gpus = 0;
  std::string gpu_type;   // GRES type ("b200"); empty for untyped
  KeyValues node_config;  // from node_sets (Weight, Features, ...), canonical keys
};

struct EffectivePartition {
  std::string name;
  bool is_default = false;
  std::vector<std::string> pool_ids;
  std::vector<std::string> node_names;  // in pool order, then index order
  std::string hostlist;
  // Canonical keys as set in the spec, plus DefMemPerCPU when no memory default is set (the
  // smallest memory per CPU of the partition's pools, at least 100, as the managed service does).
  KeyValues config;
};

struct EffectiveConfig {
  std::string cluster_name;
  std::string home_directory_storage;
  KeyValues settings;                // cluster-level, canonical keys, as set in the spec
  std::vector<EffectivePool> pools;  // every pool, login included, in spec order
  std::vector<EffectivePartition> partitions;
  std::vector<std::string> prolog_scripts;
  std::vector<std::string> epilog_scripts;

  // The cluster-level value of a canonical key: the spec's, else Slurm's default, else "".
  std::string Get(std::string_view key) const;
  // Only the spec's value.
  std::optional<std::string> Explicit(std::string_view key) const;

  const EffectivePool* FindPool(std::string_view id) const;
  const EffectivePartition* DefaultPartition() const;
  int64_t ComputeNodeCount() const;
};

// Builds the effective configuration. The spec must have passed ValidateClusterSpec; a spec
// that did not yields FailedPrecondition with the validation problems.
Result<EffectiveConfig> BuildEffectiveConfig(const ClusterSpec& spec);

// A non-negative integer setting of `config` (its effective value), or `fallback` when it has
// none. InvalidArgument "KEY=VALUE: not a non-negative integer" otherwise.
Result<uint32_t> UintSetting(const EffectiveConfig& config, std::string_view key,
                             uint32_t fallback);

// The effective configuration and the canonical spec as one JSON document (`gantry spec render
// --format json`), pretty-printed with a final newline.
std::string EffectiveConfigToJsonText(const ClusterSpec& spec, const EffectiveConfig& config);

// Node name for a pool member.
std::string NodeName(std::string_view cluster, std::string_view pool, int64_t index);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_EFFECTIVE_CONFIG_H_
