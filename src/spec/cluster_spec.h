// The cluster spec: the JSON document (Vertex AI training cluster shape) that describes a whole
// Gantry cluster, as plain values. Parsing lives in spec_parser.h, checks in validate.h, the
// Slurm view in effective_config.h. Optional scalars are std::optional so that "unset" (take the
// default) differs from an explicit zero or empty string.
#ifndef GANTRY_SPEC_CLUSTER_SPEC_H_
#define GANTRY_SPEC_CLUSTER_SPEC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gantry::spec {

// One slurm.conf `Key=Value` pair from a `config` map, key as the user spelled it.
struct ConfigEntry {
  std::string key;
  std::string value;
  friend bool operator==(const ConfigEntry&, const ConfigEntry&) = default;
};
using ConfigMap = std::vector<ConfigEntry>;  // in document order

struct MachineSpec {
  std::string machine_type;
  std::string accelerator_type;
  std::optional<int64_t> accelerator_count;
  friend bool operator==(const MachineSpec&, const MachineSpec&) = default;
};

struct ScalingSpec {
  std::optional<int64_t> min_node_count;
  std::optional<int64_t> max_node_count;
  friend bool operator==(const ScalingSpec&, const ScalingSpec&) = default;
};

struct BootDisk {
  std::string boot_disk_type;
  std::optional<int64_t> boot_disk_size_gb;
  friend bool operator==(const BootDisk&, const BootDisk&) = default;
};

// Gantry extension: explicit node resources for local clusters and machine types missing from
// the catalog. Any field set here overrides the catalog's value.
struct NodeResources {
  std::optional<int64_t> cpus;
  std::optional<int64_t> memory_mib;
  std::optional<int64_t> gpus;
  std::string gpu_type;
  friend bool operator==(const NodeResources&, const NodeResources&) = default;
};

struct NodePool {
  std::string id;
  MachineSpec machine_spec;
  std::string provisioning_model;
  std::string flex_start_max_duration;
  ScalingSpec scaling_spec;
  std::string zone;
  std::optional<bool> enable_public_ips;
  BootDisk boot_disk;
  std::map<std::string, std::string> labels;
  std::string startup_script;
  std::vector<std::string> filestores;
  std::vector<std::string> lustres;
  std::string node_image;
  std::optional<NodeResources> node_resources;
  friend bool operator==(const NodePool&, const NodePool&) = default;
};

struct Partition {
  std::string id;
  std::vector<std::string> node_pool_ids;
  ConfigMap config;
  friend bool operator==(const Partition&, const Partition&) = default;
};

struct NodeSet {
  std::string node_pool_id;
  ConfigMap config;
  friend bool operator==(const NodeSet&, const NodeSet&) = default;
};

// The legacy `scheduling` block; the cluster `config` map is its newer alternative.
struct Scheduling {
  std::string priority_type;
  std::optional<int64_t> priority_weight_age;
  std::optional<int64_t> priority_weight_assoc;
  std::optional<int64_t> priority_weight_fairshare;
  std::optional<int64_t> priority_weight_job_size;
  std::optional<int64_t> priority_weight_partition;
  std::optional<int64_t> priority_weight_qos;
  std::optional<std::string> priority_weight_tres;
  std::string preempt_type;
  std::string preempt_mode;
  std::optional<std::string> preempt_exempt_time;
  friend bool operator==(const Scheduling&, const Scheduling&) = default;
};

// The legacy `accounting` block.
struct Accounting {
  std::string accounting_storage_enforce;
  friend bool operator==(const Accounting&, const Accounting&) = default;
};

struct SlurmSpec {
  std::vector<Partition> partitions;
  std::string default_partition_id;  // optional; else the first partition is the default
  std::string login_node_pool_id;
  std::string home_directory_storage;
  std::optional<Accounting> accounting;
  std::optional<Scheduling> scheduling;
  std::optional<ConfigMap> config;
  std::vector<NodeSet> node_sets;
  std::vector<std::string> prolog_bash_scripts;
  std::vector<std::string> epilog_bash_scripts;
  friend bool operator==(const SlurmSpec&, const SlurmSpec&) = default;
};

struct Network {
  std::string network;
  std::string subnetwork;
  friend bool operator==(const Network&, const Network&) = default;
};

struct ClusterSpec {
  std::string display_name;
  std::optional<Network> network;
  std::vector<NodePool> node_pools;
  SlurmSpec slurm;              // orchestrator_spec.slurm_spec
  std::string service_account;  // runtime_spec.service_account
  friend bool operator==(const ClusterSpec&, const ClusterSpec&) = default;
};

// JSON paths used in diagnostics, snake_case.
inline constexpr char kSlurmSpecPath[] = "orchestrator_spec.slurm_spec";

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_CLUSTER_SPEC_H_
