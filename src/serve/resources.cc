#include "serve/resources.h"

#include <chrono>
#include <ctime>

#include "rpc/user_token.h"
#include "spec/spec_json.h"
#include "text/ascii.h"

namespace gantry::serve {

int RpcCodeNumber(int http_status) {
  switch (http_status) {
    case 400:
      return 3;
    case 401:
      return 16;
    case 403:
      return 7;
    case 404:
      return 5;
    case 409:
      return 9;
    case 429:
      return 8;
    case 503:
      return 14;
    default:
      return 13;
  }
}

namespace {

const char* RpcNameOfHttp(int http_status) {
  switch (http_status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 405:
      return "UNIMPLEMENTED";
    case 409:
      return "FAILED_PRECONDITION";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    default:
      return "INTERNAL";
  }
}

// The member `name` of `object` in snake_case or camelCase spelling, if present.
const nlohmann::json* Member(const nlohmann::json& object, const std::string& snake) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(snake); it != object.end()) return &*it;
  std::string camel;
  bool upper = false;
  for (const char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    camel += upper ? static_cast<char>(c - 'a' + 'A') : c;
    upper = false;
  }
  if (auto it = object.find(camel); it != object.end()) return &*it;
  return nullptr;
}

}  // namespace

Json ErrorBody(int http_status, const std::string& message,
               const std::vector<FieldViolation>& violations) {
  Json error = {
      {"code", http_status}, {"message", message}, {"status", RpcNameOfHttp(http_status)}};
  if (!violations.empty()) {
    Json list = Json::array();
    for (const FieldViolation& v : violations) {
      list.push_back({{"field", v.field}, {"description", v.description}});
    }
    error["details"] = Json::array(
        {{{"@type", "type.googleapis.com/google.rpc.BadRequest"}, {"fieldViolations", list}}});
  }
  return {{"error", error}};
}

std::vector<FieldViolation> ViolationsOf(const spec::Diagnostics& diagnostics) {
  std::vector<FieldViolation> out;
  for (const spec::Diagnostic& d : diagnostics.items()) out.push_back({d.path, d.message});
  return out;
}

Json ClusterResource(const Parent& parent, const std::string& id, const spec::ClusterSpec& spec,
                     const ClusterStatusView& status, const std::string& create_time,
                     const std::string& update_time) {
  Json out = {{"name", parent.Name() + "/modelDevelopmentClusters/" + id}};
  const Json members = spec::SpecToJson(spec);
  for (const auto& [key, value] : members.items()) out[key] = value;
  Json nodes = Json::array();
  for (const NodeStatus& n : status.nodes) {
    nodes.push_back({{"nodeId", n.node},
                     {"instanceName", n.node},
                     {"nodePool", n.pool},
                     {"nodeState", n.state}});
  }
  out["clusterStatus"] = {
      {"state", status.state}, {"detail", status.detail}, {"nodesStatus", nodes}};
  out["createTime"] = create_time;
  out["updateTime"] = update_time;
  return out;
}

std::string SnakeCase(std::string_view name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return std::string(name);
  std::string out;
  for (const char c : name) {
    if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

Result<MaskedUpdate> ApplyUpdateMask(const spec::ClusterSpec& current, const nlohmann::json& body,
                                     const std::string& mask,
                                     std::vector<FieldViolation>* violations) {
  nlohmann::json merged = nlohmann::json::parse(spec::SpecToJsonText(current));
  MaskedUpdate update;
  std::vector<std::string> paths;
  for (std::string_view entry : text::Split(mask, ',')) {
    while (!entry.empty() && text::IsAsciiSpace(entry.front())) entry.remove_prefix(1);
    while (!entry.empty() && text::IsAsciiSpace(entry.back())) entry.remove_suffix(1);
    std::string path;
    for (std::string_view part : text::Split(entry, '.')) {
      if (!path.empty()) path += '.';
      path += SnakeCase(part);
    }
    if (path.empty()) continue;
    bool known = false;
    for (const char* updatable : kUpdatablePaths) known = known || path == updatable;
    if (!known) {
      std::string list;
      for (const char* updatable : kUpdatablePaths) {
        list += std::string(list.empty() ? "" : ", ") + updatable;
      }
      violations->push_back({"updateMask", "\"" + std::string(entry) +
                                               "\" may not be updated (updatable: " + list + ")"});
      continue;
    }
    paths.push_back(path);
  }
  if (paths.empty() && violations->empty()) {
    violations->push_back({"updateMask", "name at least one field to update"});
  }
  if (!violations->empty()) return InvalidArgument("the update mask is not valid");
  for (const std::string& path : paths) {
    const std::vector<std::string_view> parts = text::Split(path, '.');
    const nlohmann::json* from = &body;
    nlohmann::json* to = &merged;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string part(parts[i]);
      from = from ? Member(*from, part) : nullptr;
      if (i + 1 < parts.size()) {
        if (!(*to)[part].is_object()) (*to)[part] = nlohmann::json::object();
        to = &(*to)[part];
        continue;
      }
      if (from) {
        (*to)[part] = *from;
      } else {
        to->erase(part);
      }
    }
    // Naming a Slurm settings member in the mask is asking to change it.
    update.touches_config = update.touches_config || path.ends_with(".config") ||
                            path.ends_with(".scheduling") || path.ends_with(".accounting");
  }
  update.spec_text = merged.dump();
  return update;
}

std::vector<FieldViolation> RefusedChanges(const std::vector<spec::SpecChange>& changes) {
  std::vector<FieldViolation> out;
  for (const spec::SpecChange& c : changes) {
    if (!c.allowed) out.push_back({c.path, c.ToString()});
  }
  return out;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Rfc3339(int64_t unix_ms) {
  const auto seconds = static_cast<time_t>(unix_ms / 1000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char text[64];
  snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
           utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
           static_cast<int>(unix_ms % 1000));
  return text;
}

std::string PageTokenAfter(const std::string& id) { return rpc::Base64UrlEncode(id); }

std::optional<std::string> IdOfPageToken(const std::string& token) {
  return rpc::Base64UrlDecode(token);
}

}  // namespace gantry::serve
