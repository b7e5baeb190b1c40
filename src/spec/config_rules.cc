#include "spec/config_rules.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "spec/settings.h"
#include "spec/slurm_keys.h"
#include "text/ascii.h"
#include "text/duration.h"

namespace gantry::spec {

namespace {

// A setting resolved to its catalog entry.
struct Resolved {
  const SlurmKey* key;
  Setting setting;
};

// Checks each setting of one scope; returns the valid ones by normalized name.
std::map<std::string, Resolved> CheckScope(const std::vector<Setting>& settings, Scope scope,
                                           Diagnostics* d) {
  std::map<std::string, Resolved> out;
  for (const Setting& s : settings) {
    Result<const SlurmKey*> key = ResolveConfigKey(s.key, scope);
    if (!key.ok()) {
      d->Add(s.path, key.status().message());
      continue;
    }
    const std::string norm = NormalizeKey((*key)->name);
    if (auto it = out.find(norm); it != out.end()) {
      d->Add(s.path, Quote(s.key) + " is also set as " + Quote(it->second.setting.key) +
                         " (keys ignore case and '_'); keep one");
      continue;
    }
    if (Status st = ValidateSlurmValue(**key, s.value); !st.ok()) {
      d->Add(s.path, st.message());
      continue;
    }
    out.emplace(norm, Resolved{*key, s});
  }
  return out;
}

std::set<std::string> Words(const std::string& list) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string w = text::AsciiToUpper(list.substr(start, comma - start));
    if (!w.empty()) out.insert(w);
    start = comma + 1;
  }
  return out;
}

const Resolved* Find(const std::map<std::string, Resolved>& m, const char* name) {
  const auto it = m.find(NormalizeKey(name));
  return it == m.end() ? nullptr : &it->second;
}

void CheckExclusive(const std::map<std::string, Resolved>& m, const char* a, const char* b,
                    Diagnostics* d) {
  const Resolved* x = Find(m, a);
  const Resolved* y = Find(m, b);
  if (x != nullptr && y != nullptr) {
    d->Add(y->setting.path,
           std::string(b) + " cannot be combined with " + a + " (Slurm takes one or the other)");
  }
}

// Preemption combinations Slurm accepts at start-up (slurm.conf(5) PreemptMode/PreemptType).
void CheckPreemption(const std::map<std::string, Resolved>& cluster, Diagnostics* d) {
  const Resolved* type_setting = Find(cluster, "PreemptType");
  const Resolved* mode_setting = Find(cluster, "PreemptMode");
  const std::string type = type_setting ? type_setting->setting.value : "preempt/none";
  const std::set<std::string> mode = Words(mode_setting ? mode_setting->setting.value : "OFF");
  const std::string mode_path =
      mode_setting ? mode_setting->setting.path : std::string(kSlurmSpecPath) + ".config";
  const std::string mode_text = mode_setting ? Quote(mode_setting->setting.value) : "OFF (default)";

  int base_modes = 0;
  for (const char* m : {"CANCEL", "REQUEUE", "SUSPEND"}) base_modes += mode.contains(m) ? 1 : 0;
  if (mode.contains("OFF") && mode.size() > 1) {
    d->Add(mode_path, mode_text + ": OFF cannot be combined with other modes");
    return;
  }
  if (base_modes > 1) {
    d->Add(mode_path, mode_text + ": choose one of CANCEL, REQUEUE or SUSPEND");
    return;
  }
  const bool preempts = base_modes > 0;
  if (type == "preempt/none") {
    if (preempts || mode.contains("WITHIN") || mode.contains("PRIORITY")) {
      d->Add(mode_path, mode_text +
                            " needs PreemptType preempt/partition_prio or preempt/qos "
                            "(PreemptType is preempt/none, which allows only OFF or GANG)");
    }
    return;
  }
  const std::string type_path = type_setting->setting.path;
  if (!preempts) {
    d->Add(type_path, Quote(type) +
                          " needs PreemptMode CANCEL, REQUEUE or SUSPEND,GANG "
                          "(PreemptMode is " +
                          mode_text + ")");
    return;
  }
  if (type == "preempt/partition_prio" && mode.contains("SUSPEND") && !mode.contains("GANG")) {
    d->Add(mode_path, mode_text +
                          ": SUSPEND needs GANG under preempt/partition_prio "
                          "(write SUSPEND,GANG)");
  }
  if (mode.contains("WITHIN") && type != "preempt/qos") {
    d->Add(mode_path, mode_text + ": WITHIN applies only to preempt/qos");
  }
}

void CheckPartition(const std::map<std::string, Resolved>& part,
                    const std::map<std::string, Resolved>& cluster, Diagnostics* d) {
  CheckExclusive(part, "DefMemPerCPU", "DefMemPerNode", d);
  CheckExclusive(part, "MaxMemPerCPU", "MaxMemPerNode", d);
  if (const Resolved* m = Find(part, "PreemptMode")) {
    const std::set<std::string> words = Words(m->setting.value);
    const Resolved* cluster_mode = Find(cluster, "PreemptMode");
    const std::set<std::string> cluster_words =
        Words(cluster_mode ? cluster_mode->setting.value : "OFF");
    if (words.contains("GANG")) {
      d->Add(m->setting.path, Quote(m->setting.value) +
                                  ": GANG is a cluster-wide mode; set it in the cluster config");
    } else if (words.contains("SUSPEND") && !cluster_words.contains("GANG")) {
      d->Add(m->setting.path,
             Quote(m->setting.value) + ": SUSPEND needs GANG in the cluster-wide PreemptMode");
    }
  }
  const Resolved* max_time = Find(part, "MaxTime");
  const Resolved* def_time = Find(part, "DefaultTime");
  if (max_time != nullptr && def_time != nullptr) {
    const Result<int64_t> max = text::ParseDurationSeconds(max_time->setting.value);
    const Result<int64_t> def = text::ParseDurationSeconds(def_time->setting.value);
    if (max.ok() && def.ok() && *max != text::kInfiniteDuration &&
        (*def == text::kInfiniteDuration || *def > *max)) {
      d->Add(def_time->setting.path, "DefaultTime " + Quote(def_time->setting.value) +
                                         " exceeds the partition's MaxTime " +
                                         Quote(max_time->setting.value));
    }
  }
}

}  // namespace

void ValidateConfigMaps(const ClusterSpec& spec, Diagnostics* d) {
  const std::map<std::string, Resolved> cluster =
      CheckScope(ClusterSettings(spec), kClusterScope, d);
  CheckExclusive(cluster, "DefMemPerCPU", "DefMemPerNode", d);
  CheckExclusive(cluster, "MaxMemPerCPU", "MaxMemPerNode", d);
  CheckPreemption(cluster, d);
  for (size_t i = 0; i < spec.slurm.partitions.size(); ++i) {
    CheckPartition(CheckScope(PartitionSettings(spec, i), kPartitionScope, d), cluster, d);
  }
  for (size_t i = 0; i < spec.slurm.node_sets.size(); ++i) {
    CheckScope(NodeSetSettings(spec, i), kNodeScope, d);
  }
}

}  // namespace gantry::spec
