#include "spec/settings.h"

#include "spec/slurm_keys.h"

namespace gantry::spec {

namespace {

std::vector<Setting> FromMap(const ConfigMap& map, const std::string& path) {
  std::vector<Setting> out;
  for (const ConfigEntry& e : map) out.push_back({e.key, e.value, path + "." + e.key});
  return out;
}

}  // namespace

std::vector<Setting> ClusterSettings(const ClusterSpec& spec) {
  const std::string base = kSlurmSpecPath;
  if (spec.slurm.config) return FromMap(*spec.slurm.config, base + ".config");

  std::vector<Setting> out;
  if (spec.slurm.accounting && !spec.slurm.accounting->accounting_storage_enforce.empty()) {
    out.push_back({"AccountingStorageEnforce", spec.slurm.accounting->accounting_storage_enforce,
                   base + ".accounting.accounting_storage_enforce"});
  }
  if (spec.slurm.scheduling) {
    const Scheduling& s = *spec.slurm.scheduling;
    const std::string p = base + ".scheduling.";
    auto text = [&](const char* key, const std::string& value, const char* field) {
      if (!value.empty()) out.push_back({key, value, p + field});
    };
    auto number = [&](const char* key, const std::optional<int64_t>& value, const char* field) {
      if (value) out.push_back({key, std::to_string(*value), p + field});
    };
    text("PriorityType", s.priority_type, "priority_type");
    number("PriorityWeightAge", s.priority_weight_age, "priority_weight_age");
    number("PriorityWeightAssoc", s.priority_weight_assoc, "priority_weight_assoc");
    number("PriorityWeightFairshare", s.priority_weight_fairshare, "priority_weight_fairshare");
    number("PriorityWeightJobSize", s.priority_weight_job_size, "priority_weight_job_size");
    number("PriorityWeightPartition", s.priority_weight_partition, "priority_weight_partition");
    number("PriorityWeightQOS", s.priority_weight_qos, "priority_weight_qos");
    if (s.priority_weight_tres) {
      out.push_back({"PriorityWeightTRES", *s.priority_weight_tres, p + "priority_weight_tres"});
    }
    text("PreemptType", s.preempt_type, "preempt_type");
    text("PreemptMode", s.preempt_mode, "preempt_mode");
    if (s.preempt_exempt_time) {
      out.push_back({"PreemptExemptTime", *s.preempt_exempt_time, p + "preempt_exempt_time"});
    }
  }
  return out;
}

std::vector<Setting> PartitionSettings(const ClusterSpec& spec, size_t index) {
  return FromMap(spec.slurm.partitions.at(index).config,
                 std::string(kSlurmSpecPath) + ".partitions[" + std::to_string(index) + "].config");
}

std::vector<Setting> NodeSetSettings(const ClusterSpec& spec, size_t index) {
  return FromMap(spec.slurm.node_sets.at(index).config,
                 std::string(kSlurmSpecPath) + ".node_sets[" + std::to_string(index) + "].config");
}

std::optional<std::string> FindSetting(const std::vector<Setting>& settings, std::string_view key) {
  const std::string want = NormalizeKey(key);
  std::optional<std::string> found;
  for (const Setting& s : settings) {
    if (NormalizeKey(s.key) == want) found = s.value;  // the last one wins, as in slurm.conf
  }
  return found;
}

}  // namespace gantry::spec
