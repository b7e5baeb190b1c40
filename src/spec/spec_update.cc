#include "spec/spec_update.h"

#include <nlohmann/json.hpp>
#include <set>

#include "spec/spec_json.h"

namespace gantry::spec {

namespace {

using Json = nlohmann::ordered_json;

const std::string kSlurm = "orchestrator_spec.slurm_spec";

// The identifying field of list items, for lists whose items have one.
const char* ItemKey(const std::string& list_path) {
  if (list_path == "node_pools" || list_path == kSlurm + ".partitions") return "id";
  if (list_path == kSlurm + ".node_sets") return "node_pool_id";
  return nullptr;
}

bool Under(const std::string& path, const std::string& prefix) {
  return path == prefix || path.starts_with(prefix + ".") || path.starts_with(prefix + "[");
}

void Classify(SpecChange* c, const UpdatePolicy& policy) {
  struct Rule {
    std::string prefix;
    bool allowed;
    const char* note;
  };
  const bool config_ok = policy.allow_config_changes;
  static const char* kFixedSlurm =
      "Slurm parameters are fixed at creation (create a new cluster to change them)";
  const std::vector<Rule> rules = {
      {"display_name", false, "fixed at creation (it prefixes every node name)"},
      {"network", false, "fixed at creation"},
      {"runtime_spec", false, "fixed at creation"},
      {kSlurm + ".home_directory_storage", false, "fixed at creation (the shared /home)"},
      {kSlurm + ".config", config_ok, config_ok ? "" : kFixedSlurm},
      {kSlurm + ".scheduling", config_ok, config_ok ? "" : kFixedSlurm},
      {kSlurm + ".accounting", config_ok, config_ok ? "" : kFixedSlurm},
      {kSlurm + ".node_sets", config_ok, config_ok ? "" : kFixedSlurm},
      {kSlurm + ".partitions", true, ""},
      {kSlurm + ".default_partition_id", true, ""},
      {kSlurm + ".login_node_pool_id", true, ""},
      {kSlurm + ".prolog_bash_scripts", true, ""},
      {kSlurm + ".epilog_bash_scripts", true, ""},
      {"node_pools", true, ""},
  };
  for (const Rule& r : rules) {
    if (!Under(c->path, r.prefix)) continue;
    c->allowed = r.allowed;
    c->note = r.note;
    if (r.allowed && c->kind == SpecChange::Kind::kChanged && r.prefix == "node_pools") {
      static const std::vector<std::string> kRecreate = {
          ".machine_spec", ".boot_disk", ".startup_script", ".node_image",
          ".filestores",   ".lustres",   ".zone",           ".provisioning_model"};
      for (const std::string& field : kRecreate) {
        if (c->path.find(field) != std::string::npos) c->note = "the pool's nodes are recreated";
      }
    }
    return;
  }
  c->allowed = false;
  c->note = "not a field that can change";
}

class Differ {
 public:
  Differ(const UpdatePolicy& policy, std::vector<SpecChange>* out) : policy_(policy), out_(out) {}

  void Diff(const std::string& path, const Json* a, const Json* b) {
    if (a != nullptr && b != nullptr && *a == *b) return;
    if (a != nullptr && b != nullptr && a->is_object() && b->is_object()) {
      DiffObjects(path, *a, *b);
    } else if (a != nullptr && b != nullptr && a->is_array() && b->is_array() &&
               ItemKey(path) != nullptr) {
      DiffKeyedLists(path, *a, *b, ItemKey(path));
    } else {
      Emit(path, a, b);
    }
  }

 private:
  void DiffObjects(const std::string& path, const Json& a, const Json& b) {
    for (const auto& [key, value] : a.items()) {
      const auto it = b.find(key);
      Diff(Join(path, key), &value, it == b.end() ? nullptr : &*it);
    }
    for (const auto& [key, value] : b.items()) {
      if (!a.contains(key)) Diff(Join(path, key), nullptr, &value);
    }
  }

  void DiffKeyedLists(const std::string& path, const Json& a, const Json& b, const char* key) {
    auto id_of = [&](const Json& item) {
      return item.is_object() && item.contains(key) ? item[key].get<std::string>() : "";
    };
    std::vector<std::string> order_a;
    std::vector<std::string> order_b;
    for (const Json& x : a) order_a.push_back(id_of(x));
    for (const Json& y : b) order_b.push_back(id_of(y));
    for (size_t i = 0; i < a.size(); ++i) {
      const Json* match = nullptr;
      for (const Json& y : b) {
        if (id_of(y) == order_a[i]) match = &y;
      }
      Diff(path + "[" + order_a[i] + "]", &a[i], match);
    }
    const std::set<std::string> in_a(order_a.begin(), order_a.end());
    for (size_t j = 0; j < b.size(); ++j) {
      if (!in_a.contains(order_b[j])) Diff(path + "[" + order_b[j] + "]", nullptr, &b[j]);
    }
    // Same members in a different order: the first partition is the default one.
    std::vector<std::string> common_a;
    std::vector<std::string> common_b;
    const std::set<std::string> in_b(order_b.begin(), order_b.end());
    for (const std::string& id : order_a) {
      if (in_b.contains(id)) common_a.push_back(id);
    }
    for (const std::string& id : order_b) {
      if (in_a.contains(id)) common_b.push_back(id);
    }
    if (common_a != common_b) {
      const Json ja = common_a;
      const Json jb = common_b;
      SpecChange c;
      c.kind = SpecChange::Kind::kChanged;
      c.path = path;
      c.old_value = ja.dump();
      c.new_value = jb.dump();
      Classify(&c, policy_);
      if (c.allowed) c.note = "order changed; the first one is the default";
      out_->push_back(c);
    }
  }

  void Emit(const std::string& path, const Json* a, const Json* b) {
    SpecChange c;
    c.kind = a == nullptr   ? SpecChange::Kind::kAdded
             : b == nullptr ? SpecChange::Kind::kRemoved
                            : SpecChange::Kind::kChanged;
    c.path = path;
    if (a != nullptr) c.old_value = a->dump();
    if (b != nullptr) c.new_value = b->dump();
    Classify(&c, policy_);
    out_->push_back(std::move(c));
  }

  static std::string Join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const UpdatePolicy& policy_;
  std::vector<SpecChange>* out_;
};

}  // namespace

std::string SpecChange::ToString() const {
  std::string line;
  switch (kind) {
    case Kind::kAdded:
      line = "+ " + path + ": " + new_value;
      break;
    case Kind::kRemoved:
      line = "- " + path + ": " + old_value;
      break;
    case Kind::kChanged:
      line = "~ " + path + ": " + old_value + " -> " + new_value;
      break;
  }
  if (!allowed) {
    line += "  (refused: " + note + ")";
  } else if (!note.empty()) {
    line += "  (" + note + ")";
  }
  return line;
}

std::vector<SpecChange> DiffSpecs(const ClusterSpec& before, const ClusterSpec& after,
                                  const UpdatePolicy& policy) {
  std::vector<SpecChange> changes;
  const Json a = SpecToJson(before);
  const Json b = SpecToJson(after);
  Differ(policy, &changes).Diff("", &a, &b);
  return changes;
}

}  // namespace gantry::spec
