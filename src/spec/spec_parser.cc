#include "spec/spec_parser.h"

#include <charconv>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "text/ascii.h"
#include "text/suggest.h"

namespace gantry::spec {

namespace {

using Json = nlohmann::ordered_json;

std::string Describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case Json::value_t::string:
      return "string " + Quote(v.get_ref<const std::string&>());
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "number " + v.dump();
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "a list";
    default:
      return "an unsupported value";
  }
}

// Reads one JSON object: hands out fields under either spelling and, at Finish(), reports the
// members nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const Json& object, std::string path, Diagnostics* diags)
      : object_(object), path_(std::move(path)), diags_(diags) {}

  std::string PathOf(std::string_view field) const {
    return path_.empty() ? std::string(field) : path_ + "." + std::string(field);
  }

  // The value under `snake` or its camelCase spelling; nullptr when absent or null.
  const Json* Field(std::string_view snake) {
    known_.emplace_back(snake);
    const std::string camel = SnakeToCamel(snake);
    spellings_.emplace(snake);
    spellings_.insert(camel);
    const auto a = object_.find(std::string(snake));
    const auto b = camel == snake ? object_.end() : object_.find(camel);
    if (a != object_.end() && b != object_.end()) {
      diags_->Add(PathOf(snake), "set twice, as \"" + std::string(snake) + "\" and \"" + camel +
                                     "\"; keep one spelling");
    }
    const auto it = a != object_.end() ? a : b;
    if (it == object_.end() || it->is_null()) return nullptr;
    return &*it;
  }

  void String(std::string_view snake, std::string* out) {
    if (const Json* v = Field(snake)) {
      if (v->is_string()) {
        *out = v->get<std::string>();
      } else {
        diags_->Add(PathOf(snake), "expected a string, got " + Describe(*v));
      }
    }
  }

  void OptionalString(std::string_view snake, std::optional<std::string>* out) {
    if (const Json* v = Field(snake)) {
      if (v->is_string()) {
        *out = v->get<std::string>();
      } else {
        diags_->Add(PathOf(snake), "expected a string, got " + Describe(*v));
      }
    }
  }

  void Int(std::string_view snake, std::optional<int64_t>* out) {
    const Json* v = Field(snake);
    if (v == nullptr) return;
    if (v->is_number_integer()) {
      if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{INT64_MAX}) {
        diags_->Add(PathOf(snake), "integer " + v->dump() + " is too large");
        return;
      }
      *out = v->get<int64_t>();
      return;
    }
    if (v->is_string()) {  // proto3 JSON writes int64 as a decimal string
      const std::string& s = v->get_ref<const std::string&>();
      int64_t n = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
      if (!s.empty() && ec == std::errc() && end == s.data() + s.size()) {
        *out = n;
        return;
      }
    }
    diags_->Add(PathOf(snake), "expected an integer, got " + Describe(*v));
  }

  void Bool(std::string_view snake, std::optional<bool>* out) {
    if (const Json* v = Field(snake)) {
      if (v->is_boolean()) {
        *out = v->get<bool>();
      } else {
        diags_->Add(PathOf(snake), "expected true or false, got " + Describe(*v));
      }
    }
  }

  void StringList(std::string_view snake, std::vector<std::string>* out) {
    const Json* v = Field(snake);
    if (v == nullptr) return;
    if (!v->is_array()) {
      diags_->Add(PathOf(snake), "expected a list of strings, got " + Describe(*v));
      return;
    }
    for (size_t i = 0; i < v->size(); ++i) {
      const Json& item = (*v)[i];
      if (item.is_string()) {
        out->push_back(item.get<std::string>());
      } else {
        diags_->Add(PathOf(snake) + "[" + std::to_string(i) + "]",
                    "expected a string, got " + Describe(item));
      }
    }
  }

  // A JSON object whose values are all strings (labels, config maps). Keys keep their order.
  void StringMap(std::string_view snake, const std::function<void(std::string, std::string)>& add,
                 bool* present = nullptr) {
    const Json* v = Field(snake);
    if (present != nullptr) *present = v != nullptr;
    if (v == nullptr) return;
    if (!v->is_object()) {
      diags_->Add(PathOf(snake), "expected an object of string values, got " + Describe(*v));
      return;
    }
    for (const auto& [key, value] : v->items()) {
      if (value.is_string()) {
        add(key, value.get<std::string>());
      } else {
        diags_->Add(
            PathOf(snake) + "." + key,
            "expected a string, got " + Describe(value) +
                (value.is_number() ? " (write numbers as strings: \"" + value.dump() + "\")" : ""));
      }
    }
  }

  // Calls `read` with a reader for the nested object, if present and an object.
  bool Object(std::string_view snake, const std::function<void(ObjectReader&)>& read) {
    const Json* v = Field(snake);
    if (v == nullptr) return false;
    if (!v->is_object()) {
      diags_->Add(PathOf(snake), "expected an object, got " + Describe(*v));
      return false;
    }
    ObjectReader child(*v, PathOf(snake), diags_);
    read(child);
    child.Finish();
    return true;
  }

  // Calls `read` for each element of a list of objects.
  void ObjectList(std::string_view snake, const std::function<void(ObjectReader&)>& read) {
    const Json* v = Field(snake);
    if (v == nullptr) return;
    if (!v->is_array()) {
      diags_->Add(PathOf(snake), "expected a list, got " + Describe(*v));
      return;
    }
    for (size_t i = 0; i < v->size(); ++i) {
      const Json& item = (*v)[i];
      const std::string item_path = PathOf(snake) + "[" + std::to_string(i) + "]";
      if (!item.is_object()) {
        diags_->Add(item_path, "expected an object, got " + Describe(item));
        continue;
      }
      ObjectReader child(item, item_path, diags_);
      read(child);
      child.Finish();
    }
  }

  // Reports fields nobody asked for.
  void Finish() {
    for (const auto& [key, value] : object_.items()) {
      if (spellings_.contains(key)) continue;
      diags_->Add(PathOf(key),
                  "unknown field" + text::DidYouMean(text::Suggest(CamelToSnake(key), known_)));
    }
  }

 private:
  const Json& object_;
  std::string path_;
  Diagnostics* diags_;
  std::vector<std::string> known_;   // snake_case names asked for, in order (for hints)
  std::set<std::string> spellings_;  // every accepted spelling of those names
};

ConfigMap ReadConfig(ObjectReader& r, std::string_view field, bool* present = nullptr) {
  ConfigMap config;
  r.StringMap(
      field,
      [&](const std::string& k, std::string v) {
        config.push_back({k, std::move(v)});
      },
      present);
  return config;
}

void ReadNodePool(ObjectReader& r, NodePool* pool) {
  r.String("id", &pool->id);
  r.Object("machine_spec", [&](ObjectReader& m) {
    m.String("machine_type", &pool->machine_spec.machine_type);
    m.String("accelerator_type", &pool->machine_spec.accelerator_type);
    m.Int("accelerator_count", &pool->machine_spec.accelerator_count);
    m.Field("reservation_affinity");  // accepted, not used by a local cluster
  });
  r.String("provisioning_model", &pool->provisioning_model);
  r.String("flex_start_max_duration", &pool->flex_start_max_duration);
  r.Object("scaling_spec", [&](ObjectReader& s) {
    s.Int("min_node_count", &pool->scaling_spec.min_node_count);
    s.Int("max_node_count", &pool->scaling_spec.max_node_count);
  });
  r.String("zone", &pool->zone);
  r.Bool("enable_public_ips", &pool->enable_public_ips);
  r.Object("boot_disk", [&](ObjectReader& b) {
    b.String("boot_disk_type", &pool->boot_disk.boot_disk_type);
    b.Int("boot_disk_size_gb", &pool->boot_disk.boot_disk_size_gb);
  });
  r.StringMap("labels", [&](std::string k, std::string v) { pool->labels[k] = std::move(v); });
  r.String("startup_script", &pool->startup_script);
  r.StringList("filestores", &pool->filestores);
  r.StringList("lustres", &pool->lustres);
  r.String("node_image", &pool->node_image);
  r.Object("node_resources", [&](ObjectReader& n) {
    NodeResources res;
    n.Int("cpus", &res.cpus);
    n.Int("memory_mib", &res.memory_mib);
    n.Int("gpus", &res.gpus);
    n.String("gpu_type", &res.gpu_type);
    pool->node_resources = res;
  });
}

void ReadSlurmSpec(ObjectReader& r, SlurmSpec* slurm) {
  r.ObjectList("partitions", [&](ObjectReader& p) {
    Partition part;
    p.String("id", &part.id);
    p.StringList("node_pool_ids", &part.node_pool_ids);
    part.config = ReadConfig(p, "config");
    slurm->partitions.push_back(std::move(part));
  });
  r.String("default_partition_id", &slurm->default_partition_id);
  r.String("login_node_pool_id", &slurm->login_node_pool_id);
  r.String("home_directory_storage", &slurm->home_directory_storage);
  r.Object("accounting", [&](ObjectReader& a) {
    Accounting acct;
    a.String("accounting_storage_enforce", &acct.accounting_storage_enforce);
    slurm->accounting = acct;
  });
  r.Object("scheduling", [&](ObjectReader& s) {
    Scheduling sched;
    s.String("priority_type", &sched.priority_type);
    s.Int("priority_weight_age", &sched.priority_weight_age);
    s.Int("priority_weight_assoc", &sched.priority_weight_assoc);
    s.Int("priority_weight_fairshare", &sched.priority_weight_fairshare);
    s.Int("priority_weight_job_size", &sched.priority_weight_job_size);
    s.Int("priority_weight_partition", &sched.priority_weight_partition);
    s.Int("priority_weight_qos", &sched.priority_weight_qos);
    s.OptionalString("priority_weight_tres", &sched.priority_weight_tres);
    s.String("preempt_type", &sched.preempt_type);
    s.String("preempt_mode", &sched.preempt_mode);
    s.OptionalString("preempt_exempt_time", &sched.preempt_exempt_time);
    slurm->scheduling = sched;
  });
  bool has_config = false;
  ConfigMap config = ReadConfig(r, "config", &has_config);
  if (has_config) slurm->config = std::move(config);
  r.ObjectList("node_sets", [&](ObjectReader& n) {
    NodeSet set;
    n.String("node_pool_id", &set.node_pool_id);
    set.config = ReadConfig(n, "config");
    slurm->node_sets.push_back(std::move(set));
  });
  r.StringList("prolog_bash_scripts", &slurm->prolog_bash_scripts);
  r.StringList("epilog_bash_scripts", &slurm->epilog_bash_scripts);
}

// Converts nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
// into "JSON syntax error at line 3, column 5: ...".
std::string SyntaxMessage(const std::string& what) {
  const std::string marker = "parse error";
  size_t at = what.find(marker);
  std::string rest = at == std::string::npos ? what : what.substr(at + marker.size());
  if (rest.starts_with(": ")) rest = rest.substr(1);
  // nlohmann quotes the offending input raw; keep the message printable.
  std::string printable;
  for (char c : rest) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      printable += "\\x";
      printable += kHex[byte >> 4];
      printable += kHex[byte & 0xf];
    } else {
      printable += c;
    }
  }
  return "JSON syntax error" + printable;
}

}  // namespace

std::string CamelToSnake(std::string_view name) {
  std::string out;
  for (char c : name) {
    const char lower = text::AsciiLower(c);
    if (lower != c) {
      out += '_';
      out += lower;
    } else {
      out += c;
    }
  }
  return out;
}

std::string SnakeToCamel(std::string_view name) {
  std::string out;
  bool upper = false;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? text::AsciiUpper(c) : c;
    upper = false;
  }
  return out;
}

ParsedSpec ParseClusterSpec(std::string_view json_text) {
  ParsedSpec result;
  if (json_text.size() > kMaxSpecBytes) {
    result.diagnostics.Add("", "spec is " + std::to_string(json_text.size()) +
                                   " bytes; the limit is " + std::to_string(kMaxSpecBytes));
    return result;
  }
  if (json_text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    result.diagnostics.Add("", "the spec is empty (expected a JSON object)");
    return result;
  }
  Json doc;
  try {
    doc = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    result.diagnostics.Add("", SyntaxMessage(e.what()));
    return result;
  }
  if (!doc.is_object()) {
    result.diagnostics.Add("", "expected the spec to be a JSON object, got " + Describe(doc));
    return result;
  }
  ClusterSpec spec;
  Diagnostics* diags = &result.diagnostics;
  ObjectReader top(doc, "", diags);
  top.String("display_name", &spec.display_name);
  top.Object("network", [&](ObjectReader& n) {
    Network net;
    n.String("network", &net.network);
    n.String("subnetwork", &net.subnetwork);
    spec.network = net;
  });
  top.ObjectList("node_pools", [&](ObjectReader& r) {
    NodePool pool;
    ReadNodePool(r, &pool);
    spec.node_pools.push_back(std::move(pool));
  });
  top.Object("orchestrator_spec", [&](ObjectReader& o) {
    o.Object("slurm_spec", [&](ObjectReader& s) { ReadSlurmSpec(s, &spec.slurm); });
  });
  top.Object("runtime_spec",
             [&](ObjectReader& r) { r.String("service_account", &spec.service_account); });
  top.Finish();
  result.spec = std::move(spec);
  return result;
}

}  // namespace gantry::spec
