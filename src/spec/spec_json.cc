#include "spec/spec_json.h"

namespace gantry::spec {

namespace {

using Json = nlohmann::ordered_json;

void PutString(Json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}
void PutInt(Json& j, const char* key, const std::optional<int64_t>& v) {
  if (v) j[key] = *v;
}
void PutList(Json& j, const char* key, const std::vector<std::string>& v) {
  if (!v.empty()) j[key] = v;
}
Json ConfigJson(const ConfigMap& config) {
  Json j = Json::object();
  for (const ConfigEntry& e : config) j[e.key] = e.value;
  return j;
}

Json PoolJson(const NodePool& p) {
  Json j = Json::object();
  PutString(j, "id", p.id);
  Json m = Json::object();
  PutString(m, "machine_type", p.machine_spec.machine_type);
  PutString(m, "accelerator_type", p.machine_spec.accelerator_type);
  PutInt(m, "accelerator_count", p.machine_spec.accelerator_count);
  if (!m.empty()) j["machine_spec"] = m;
  PutString(j, "provisioning_model", p.provisioning_model);
  PutString(j, "flex_start_max_duration", p.flex_start_max_duration);
  Json s = Json::object();
  PutInt(s, "min_node_count", p.scaling_spec.min_node_count);
  PutInt(s, "max_node_count", p.scaling_spec.max_node_count);
  if (!s.empty()) j["scaling_spec"] = s;
  PutString(j, "zone", p.zone);
  if (p.enable_public_ips) j["enable_public_ips"] = *p.enable_public_ips;
  Json b = Json::object();
  PutString(b, "boot_disk_type", p.boot_disk.boot_disk_type);
  PutInt(b, "boot_disk_size_gb", p.boot_disk.boot_disk_size_gb);
  if (!b.empty()) j["boot_disk"] = b;
  if (!p.labels.empty()) j["labels"] = p.labels;
  PutString(j, "startup_script", p.startup_script);
  PutList(j, "filestores", p.filestores);
  PutList(j, "lustres", p.lustres);
  PutString(j, "node_image", p.node_image);
  if (p.node_resources) {
    Json r = Json::object();
    PutInt(r, "cpus", p.node_resources->cpus);
    PutInt(r, "memory_mib", p.node_resources->memory_mib);
    PutInt(r, "gpus", p.node_resources->gpus);
    PutString(r, "gpu_type", p.node_resources->gpu_type);
    j["node_resources"] = r;
  }
  return j;
}

Json SlurmJson(const SlurmSpec& s) {
  Json j = Json::object();
  if (!s.partitions.empty()) {
    Json parts = Json::array();
    for (const Partition& p : s.partitions) {
      Json pj = Json::object();
      PutString(pj, "id", p.id);
      PutList(pj, "node_pool_ids", p.node_pool_ids);
      if (!p.config.empty()) pj["config"] = ConfigJson(p.config);
      parts.push_back(pj);
    }
    j["partitions"] = parts;
  }
  PutString(j, "default_partition_id", s.default_partition_id);
  PutString(j, "login_node_pool_id", s.login_node_pool_id);
  PutString(j, "home_directory_storage", s.home_directory_storage);
  if (s.accounting) {
    Json a = Json::object();
    PutString(a, "accounting_storage_enforce", s.accounting->accounting_storage_enforce);
    j["accounting"] = a;
  }
  if (s.scheduling) {
    const Scheduling& c = *s.scheduling;
    Json sj = Json::object();
    PutString(sj, "priority_type", c.priority_type);
    PutInt(sj, "priority_weight_age", c.priority_weight_age);
    PutInt(sj, "priority_weight_assoc", c.priority_weight_assoc);
    PutInt(sj, "priority_weight_fairshare", c.priority_weight_fairshare);
    PutInt(sj, "priority_weight_job_size", c.priority_weight_job_size);
    PutInt(sj, "priority_weight_partition", c.priority_weight_partition);
    PutInt(sj, "priority_weight_qos", c.priority_weight_qos);
    if (c.priority_weight_tres) sj["priority_weight_tres"] = *c.priority_weight_tres;
    PutString(sj, "preempt_type", c.preempt_type);
    PutString(sj, "preempt_mode", c.preempt_mode);
    if (c.preempt_exempt_time) sj["preempt_exempt_time"] = *c.preempt_exempt_time;
    j["scheduling"] = sj;
  }
  if (s.config) j["config"] = ConfigJson(*s.config);
  if (!s.node_sets.empty()) {
    Json sets = Json::array();
    for (const NodeSet& n : s.node_sets) {
      Json nj = Json::object();
      PutString(nj, "node_pool_id", n.node_pool_id);
      if (!n.config.empty()) nj["config"] = ConfigJson(n.config);
      sets.push_back(nj);
    }
    j["node_sets"] = sets;
  }
  PutList(j, "prolog_bash_scripts", s.prolog_bash_scripts);
  PutList(j, "epilog_bash_scripts", s.epilog_bash_scripts);
  return j;
}

}  // namespace

nlohmann::ordered_json SpecToJson(const ClusterSpec& spec) {
  Json j = Json::object();
  PutString(j, "display_name", spec.display_name);
  if (spec.network) {
    Json n = Json::object();
    PutString(n, "network", spec.network->network);
    PutString(n, "subnetwork", spec.network->subnetwork);
    j["network"] = n;
  }
  if (!spec.node_pools.empty()) {
    Json pools = Json::array();
    for (const NodePool& p : spec.node_pools) pools.push_back(PoolJson(p));
    j["node_pools"] = pools;
  }
  j["orchestrator_spec"] = Json{{"slurm_spec", SlurmJson(spec.slurm)}};
  if (!spec.service_account.empty()) {
    j["runtime_spec"] = Json{{"service_account", spec.service_account}};
  }
  return j;
}

std::string SpecToJsonText(const ClusterSpec& spec) { return SpecToJson(spec).dump(2) + "\n"; }

}  // namespace gantry::spec
