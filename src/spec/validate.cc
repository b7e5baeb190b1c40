#include "spec/validate.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "spec/config_rules.h"
#include "spec/machine_types.h"
#include "spec/spec_parser.h"
#include "text/suggest.h"

namespace gantry::spec {

namespace {

constexpr int64_t kMaxNodesPerCluster = 65536;          // Slurm's MAX_SLURM_NODES
constexpr size_t kMaxScriptBytes = size_t{256} * 1024;  // the service's startup-script limit

const std::vector<std::string> kProvisioningModels = {"ON_DEMAND", "SPOT", "RESERVATION",
                                                      "FLEX_START"};
const std::vector<std::string> kBootDiskTypes = {"pd-standard", "pd-balanced", "pd-ssd",
                                                 "hyperdisk-balanced"};

std::string PoolPath(size_t i) { return "node_pools[" + std::to_string(i) + "]"; }
std::string SlurmPath(const std::string& rest) { return std::string(kSlurmSpecPath) + "." + rest; }

bool OneOf(const std::string& value, const std::vector<std::string>& allowed) {
  return std::ranges::find(allowed, value) != allowed.end();
}

void CheckEnum(const std::string& path, const std::string& value,
               const std::vector<std::string>& allowed, Diagnostics* d) {
  if (value.empty() || OneOf(value, allowed)) return;
  d->Add(path, Quote(value) + " is not one of " + JoinWords(allowed) +
                   text::DidYouMean(text::Suggest(value, allowed)));
}

void CheckId(const std::string& path, const std::string& id, const char* what, Diagnostics* d) {
  if (id.empty()) {
    d->Add(path, std::string(what) + " id is required");
  } else if (!IsValidId(id)) {
    d->Add(path, Quote(id) +
                     " is not a valid id (lower-case letters, digits and '-', starting with a "
                     "letter, not ending with '-', at most 63 characters)");
  }
}

// home_directory_storage: a Filestore instance name, an NFS export HOST:/PATH, or (local
// clusters) an absolute path.
bool IsValidHomeStorage(const std::string& s) {
  if (s.starts_with("/")) return true;
  if (const size_t colon = s.find(":/"); colon != std::string::npos && colon > 0) {
    const std::string host = s.substr(0, colon);
    return host.find_first_of("/ ") == std::string::npos;
  }
  // projects/P/locations/L/instances/I
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t slash = s.find('/', start);
    parts.push_back(s.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() != 6) return false;
  for (const std::string& p : parts) {
    if (p.empty()) return false;
  }
  return parts[0] == "projects" && parts[2] == "locations" && parts[4] == "instances";
}

struct PoolIndex {
  std::map<std::string, size_t> by_id;
  std::vector<std::string> ids;  // document order, for hints
};

void ValidateDisplayName(const ClusterSpec& spec, Diagnostics* d) {
  const std::string& n = spec.display_name;
  if (n.empty()) {
    d->Add("display_name", "is required (it prefixes every node name)");
    return;
  }
  bool ok = n.size() <= 10 && n[0] >= 'a' && n[0] <= 'z';
  for (char c : n) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'));
  if (!ok) {
    d->Add("display_name", Quote(n) +
                               " must be 1 to 10 lower-case letters or digits, starting with a "
                               "letter");
  }
}

void ValidateResources(const std::string& path, const NodePool& pool, Diagnostics* d) {
  const MachineSpec& m = pool.machine_spec;
  const MachineType* type = m.machine_type.empty() ? nullptr : FindMachineType(m.machine_type);
  const NodeResources* res = pool.node_resources ? &*pool.node_resources : nullptr;
  const bool overridden = res != nullptr && res->cpus && res->memory_mib;
  if (m.machine_type.empty()) {
    if (!overridden) {
      d->Add(path + ".machine_spec.machine_type",
             "is required (or give node_resources with cpus and memory_mib)");
    }
  } else if (type == nullptr && !overridden) {
    std::vector<std::string> known;
    for (std::string_view k : KnownMachineTypes()) known.emplace_back(k);
    d->Add(path + ".machine_spec.machine_type",
           "unknown machine type " + Quote(m.machine_type) +
               text::DidYouMean(text::Suggest(m.machine_type, known)) +
               "; give node_resources with cpus and memory_mib for machine types outside the "
               "catalog");
  }
  if (!m.accelerator_type.empty()) {
    const std::string gres = GpuTypeForAccelerator(m.accelerator_type);
    if (gres.empty()) {
      CheckEnum(path + ".machine_spec.accelerator_type", m.accelerator_type, KnownAccelerators(),
                d);
    } else if (type != nullptr && type->gpu_count > 0 && gres != type->gpu_type) {
      d->Add(path + ".machine_spec.accelerator_type",
             Quote(m.accelerator_type) + " does not match machine type " + Quote(m.machine_type) +
                 ", which has " + std::string(type->accelerator));
    } else if (type != nullptr && type->gpu_count == 0) {
      d->Add(path + ".machine_spec.accelerator_type",
             "machine type " + Quote(m.machine_type) + " has no accelerators");
    }
    if (!m.accelerator_count) {
      d->Add(path + ".machine_spec.accelerator_count", "is required with accelerator_type");
    }
  }
  if (m.accelerator_count) {
    const int64_t n = *m.accelerator_count;
    if (m.accelerator_type.empty()) {
      d->Add(path + ".machine_spec.accelerator_count", "needs accelerator_type");
    } else if (n <= 0) {
      d->Add(path + ".machine_spec.accelerator_count",
             std::to_string(n) + " must be a positive integer");
    } else if (type != nullptr && type->gpu_count > 0 && n != type->gpu_count) {
      d->Add(path + ".machine_spec.accelerator_count",
             std::to_string(n) + " does not match machine type " + Quote(m.machine_type) +
                 ", which has " + std::to_string(type->gpu_count));
    }
  }
  if (res != nullptr) {
    const std::string rp = path + ".node_resources";
    if (res->cpus && *res->cpus <= 0) {
      d->Add(rp + ".cpus", std::to_string(*res->cpus) + " must be a positive integer");
    }
    if (res->memory_mib && *res->memory_mib <= 0) {
      d->Add(rp + ".memory_mib", std::to_string(*res->memory_mib) + " must be a positive integer");
    }
    if (res->gpus && *res->gpus < 0) {
      d->Add(rp + ".gpus", std::to_string(*res->gpus) + " must not be negative");
    }
    if (!res->gpu_type.empty() && !IsValidId(res->gpu_type)) {
      d->Add(rp + ".gpu_type",
             Quote(res->gpu_type) + " must be lower-case letters, digits and '-' (a GRES type)");
    }
  }
}

void ValidatePool(size_t i, const NodePool& pool, int64_t* total_nodes, Diagnostics* d) {
  const std::string path = PoolPath(i);
  CheckId(path + ".id", pool.id, "node pool", d);
  ValidateResources(path, pool, d);
  CheckEnum(path + ".provisioning_model", pool.provisioning_model, kProvisioningModels, d);
  if (!pool.flex_start_max_duration.empty() && pool.provisioning_model != "FLEX_START") {
    d->Add(path + ".flex_start_max_duration", "applies only with provisioning_model FLEX_START");
  }
  const ScalingSpec& s = pool.scaling_spec;
  const std::string sp = path + ".scaling_spec";
  if (!s.min_node_count || !s.max_node_count) {
    if (!s.min_node_count) d->Add(sp + ".min_node_count", "is required");
    if (!s.max_node_count) d->Add(sp + ".max_node_count", "is required");
  } else if (*s.min_node_count != *s.max_node_count) {
    d->Add(sp, "min_node_count " + std::to_string(*s.min_node_count) + " and max_node_count " +
                   std::to_string(*s.max_node_count) +
                   " differ; node pools are static (min_node_count == max_node_count)");
  } else if (*s.max_node_count < 1) {
    d->Add(sp + ".max_node_count",
           std::to_string(*s.max_node_count) + " must be at least 1 (a static pool)");
  } else if (*s.max_node_count > kMaxNodesPerCluster) {
    d->Add(sp + ".max_node_count", std::to_string(*s.max_node_count) + " exceeds the limit of " +
                                       std::to_string(kMaxNodesPerCluster) + " nodes");
  } else {
    *total_nodes += *s.max_node_count;
  }
  CheckEnum(path + ".boot_disk.boot_disk_type", pool.boot_disk.boot_disk_type, kBootDiskTypes, d);
  if (pool.boot_disk.boot_disk_size_gb && *pool.boot_disk.boot_disk_size_gb < 10) {
    d->Add(path + ".boot_disk.boot_disk_size_gb",
           std::to_string(*pool.boot_disk.boot_disk_size_gb) + " is below the minimum of 10");
  }
}

PoolIndex ValidatePools(const ClusterSpec& spec, Diagnostics* d) {
  PoolIndex index;
  int64_t total_nodes = 0;
  if (spec.node_pools.empty()) {
    d->Add("node_pools", "at least a login pool and one compute pool are required");
  }
  for (size_t i = 0; i < spec.node_pools.size(); ++i) {
    const NodePool& pool = spec.node_pools[i];
    ValidatePool(i, pool, &total_nodes, d);
    if (pool.id.empty()) continue;
    if (index.by_id.contains(pool.id)) {
      d->Add(PoolPath(i) + ".id", "duplicate node pool id " + Quote(pool.id) + " (also " +
                                      PoolPath(index.by_id[pool.id]) + ")");
    } else {
      index.by_id[pool.id] = i;
      index.ids.push_back(pool.id);
    }
  }
  if (total_nodes > kMaxNodesPerCluster) {
    d->Add("node_pools", "the pools hold " + std::to_string(total_nodes) + " nodes; the limit is " +
                             std::to_string(kMaxNodesPerCluster));
  }
  return index;
}

void CheckPoolRef(const std::string& path, const std::string& id, const PoolIndex& pools,
                  Diagnostics* d) {
  if (id.empty()) {
    d->Add(path, "a node pool id is required");
  } else if (!pools.by_id.contains(id)) {
    d->Add(path, "unknown node pool " + Quote(id) + " (known: " + JoinWords(pools.ids) + ")");
  }
}

void ValidateSlurm(const ClusterSpec& spec, const PoolIndex& pools, Diagnostics* d) {
  const SlurmSpec& s = spec.slurm;
  const std::string& login = s.login_node_pool_id;
  if (login.empty()) {
    d->Add(SlurmPath("login_node_pool_id"), "is required");
  } else {
    CheckPoolRef(SlurmPath("login_node_pool_id"), login, pools, d);
  }
  if (s.home_directory_storage.empty()) {
    d->Add(SlurmPath("home_directory_storage"), "is required (the shared /home)");
  } else if (!IsValidHomeStorage(s.home_directory_storage)) {
    d->Add(SlurmPath("home_directory_storage"),
           Quote(s.home_directory_storage) +
               " must be a Filestore instance (projects/P/locations/L/instances/I), an NFS "
               "export (HOST:/PATH) or an absolute local path");
  }

  std::set<std::string> pools_in_partitions;
  std::map<std::string, size_t> partition_ids;
  if (s.partitions.empty()) d->Add(SlurmPath("partitions"), "at least one partition is required");
  for (size_t i = 0; i < s.partitions.size(); ++i) {
    const Partition& p = s.partitions[i];
    const std::string path = SlurmPath("partitions[" + std::to_string(i) + "]");
    CheckId(path + ".id", p.id, "partition", d);
    if (!p.id.empty()) {
      if (auto [it, inserted] = partition_ids.emplace(p.id, i); !inserted) {
        d->Add(path + ".id", "duplicate partition id " + Quote(p.id) + " (also partitions[" +
                                 std::to_string(it->second) + "])");
      }
    }
    if (p.node_pool_ids.empty()) {
      d->Add(path + ".node_pool_ids", "at least one node pool is required");
    }
    std::set<std::string> seen;
    for (size_t j = 0; j < p.node_pool_ids.size(); ++j) {
      const std::string& id = p.node_pool_ids[j];
      const std::string ref = path + ".node_pool_ids[" + std::to_string(j) + "]";
      CheckPoolRef(ref, id, pools, d);
      if (!seen.insert(id).second) d->Add(ref, "node pool " + Quote(id) + " listed twice");
      if (!login.empty() && id == login) {
        d->Add(ref, "the login pool " + Quote(id) + " cannot be in a partition");
      }
      pools_in_partitions.insert(id);
    }
  }
  if (!s.default_partition_id.empty() && !partition_ids.contains(s.default_partition_id)) {
    std::vector<std::string> known;
    for (const Partition& p : s.partitions) known.push_back(p.id);
    d->Add(SlurmPath("default_partition_id"), "unknown partition " + Quote(s.default_partition_id) +
                                                  " (known: " + JoinWords(known) + ")");
  }
  bool has_compute_pool = false;
  for (const NodePool& pool : spec.node_pools) {
    if (!pool.id.empty() && pool.id != login) has_compute_pool = true;
  }
  if (!spec.node_pools.empty() && !has_compute_pool) {
    d->Add("node_pools", "at least one compute pool besides the login pool is required");
  }

  std::map<std::string, size_t> node_set_pools;
  for (size_t i = 0; i < s.node_sets.size(); ++i) {
    const NodeSet& n = s.node_sets[i];
    const std::string path = SlurmPath("node_sets[" + std::to_string(i) + "].node_pool_id");
    CheckPoolRef(path, n.node_pool_id, pools, d);
    if (!login.empty() && n.node_pool_id == login) {
      d->Add(path, "node sets configure compute pools; " + Quote(login) + " is the login pool");
    }
    if (auto [it, inserted] = node_set_pools.emplace(n.node_pool_id, i);
        !inserted && !n.node_pool_id.empty()) {
      d->Add(path, "node pool " + Quote(n.node_pool_id) + " already has node_sets[" +
                       std::to_string(it->second) + "] (at most one per pool)");
    }
  }

  auto check_scripts = [&](const std::vector<std::string>& scripts, const char* field) {
    for (size_t i = 0; i < scripts.size(); ++i) {
      const std::string path = SlurmPath(std::string(field) + "[" + std::to_string(i) + "]");
      if (scripts[i].find_first_not_of(" \t\r\n") == std::string::npos) {
        d->Add(path, "script is empty");
      } else if (scripts[i].size() > kMaxScriptBytes) {
        d->Add(path, "script is " + std::to_string(scripts[i].size()) + " bytes; the limit is " +
                         std::to_string(kMaxScriptBytes));
      }
    }
  };
  check_scripts(s.prolog_bash_scripts, "prolog_bash_scripts");
  check_scripts(s.epilog_bash_scripts, "epilog_bash_scripts");

  if (s.config && (s.scheduling || s.accounting)) {
    d->Add(SlurmPath("config"), std::string("cannot be combined with the legacy ") +
                                    (s.scheduling ? "\"scheduling\"" : "\"accounting\"") +
                                    " block; move those settings into config");
  }
}

}  // namespace

bool IsValidId(std::string_view id) {
  if (id.empty() || id.size() > 63) return false;
  if (id.front() < 'a' || id.front() > 'z' || id.back() == '-') return false;
  return std::ranges::all_of(
      id, [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

Diagnostics ValidateClusterSpec(const ClusterSpec& spec) {
  Diagnostics d;
  ValidateDisplayName(spec, &d);
  const PoolIndex pools = ValidatePools(spec, &d);
  ValidateSlurm(spec, pools, &d);
  ValidateConfigMaps(spec, &d);
  return d;
}

CheckedSpec CheckSpecText(std::string_view json_text) {
  ParsedSpec parsed = ParseClusterSpec(json_text);
  CheckedSpec out{std::move(parsed.spec), parsed.diagnostics};
  if (!out.spec) return out;
  const Diagnostics problems = ValidateClusterSpec(*out.spec);
  for (const Diagnostic& v : problems.items()) {
    bool reported = false;
    for (const Diagnostic& p : parsed.diagnostics.items()) {
      reported = reported || (!p.path.empty() && v.path.starts_with(p.path));
    }
    if (!reported) out.diagnostics.Add(v.path, v.message);
  }
  return out;
}

}  // namespace gantry::spec
