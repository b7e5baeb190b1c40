#include "rest/router.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "slurm/command_context.h"
#include "webui/webui.h"

namespace gantry::rest {
namespace {

// The path's parameters if `path` matches the template `pattern`.
std::optional<std::map<std::string, std::string>> Match(std::string_view pattern,
                                                        std::string_view path) {
  std::map<std::string, std::string> params;
  while (!pattern.empty() || !path.empty()) {
    if (pattern.empty() || path.empty() || pattern[0] != '/' || path[0] != '/') {
      return std::nullopt;
    }
    pattern.remove_prefix(1);
    path.remove_prefix(1);
    const std::string_view want = pattern.substr(0, pattern.find('/'));
    const std::string_view got = path.substr(0, path.find('/'));
    if (want.size() > 2 && want.front() == '{' && want.back() == '}') {
      if (got.empty()) return std::nullopt;
      params.emplace(std::string(want.substr(1, want.size() - 2)), std::string(got));
    } else if (want != got) {
      return std::nullopt;
    }
    pattern.remove_prefix(want.size());
    path.remove_prefix(got.size());
  }
  return params;
}

std::string NameOfUid(uid_t uid) {
  return slurm::LookupUserName(uid).value_or(std::to_string(uid));
}

// {"meta": ..., "errors": [...], "warnings": [...]} members, closing the top object.
void CloseEnvelope(const Call& call, const Route* route, const Reply& reply, JsonOut& out) {
  out.Key("meta").BeginObject();
  out.Key("plugin")
      .BeginObject()
      .Member("type", route != nullptr && std::string_view(route->path).starts_with("/slurmdb")
                          ? "openapi/slurmdbd"
                          : "openapi/slurmctld")
      .Member("name", "Gantry " + call.config.version + " (gantry-restd)")
      .Member("data_parser", std::string("data_parser/") + kApiVersion)
      .Member("accounting_storage", "accounting_storage/gantry")
      .EndObject();
  out.Key("client")
      .BeginObject()
      .Member("source", call.source)
      .Member("user", call.user)
      .Member("group", "")
      .EndObject();
  out.Key("command").BeginArray().EndArray();
  out.Key("slurm").BeginObject();
  out.Key("version")
      .BeginObject()
      .Member("major", kSlurmMajor)
      .Member("micro", kSlurmMicro)
      .Member("minor", kSlurmMinor)
      .EndObject();
  out.Member("release", std::string(kSlurmMajor) + "." + kSlurmMinor + "." + kSlurmMicro)
      .Member("cluster", call.config.cluster_name)
      .EndObject();
  out.EndObject();
  out.Key("errors").BeginArray();
  for (const ApiError& e : reply.errors()) {
    out.BeginObject()
        .Member("description", e.description)
        .MemberInt("error_number", e.error_number)
        .Member("error", e.error)
        .Member("source", e.source)
        .EndObject();
  }
  out.EndArray();
  out.Key("warnings").BeginArray();
  for (const ApiWarning& w : reply.warnings()) {
    out.BeginObject().Member("description", w.description).Member("source", w.source).EndObject();
  }
  out.EndArray();
  out.EndObject();
}

// An envelope with no payload: for requests refused before any route ran.
HttpResponse Refusal(const Call& call, int status, const std::string& description,
                     const std::string& error) {
  Reply reply;
  reply.Fail(status, {description, status == 401 ? 1007 : -1, error, call.request.path});
  JsonOut out;
  out.BeginObject();
  CloseEnvelope(call, nullptr, reply, out);
  return {status, "application/json", out.Take(), {}, {}};
}

// Who the caller is, as a transport to gantryd acting for them; an error (401) otherwise.
Result<std::unique_ptr<slurm::ControllerTransport>> Authenticate(const RestConfig& config,
                                                                 const HttpRequest& request,
                                                                 std::string* user) {
  GANTRY_ASSIGN_OR_RETURN(const std::optional<std::string> token, http::TokenOf(request));
  const std::string user_name = request.Header("x-slurm-user-name").value_or("");
  if (token) {
    *user = user_name;  // gantryd says who the token is; the reply names who was asked for
    return slurm::WithUserToken(slurm::CommandSocketTransport(config.command_socket), *token,
                                user_name);
  }
  if (request.peer && request.peer->uid == config.own_uid) {
    *user = NameOfUid(request.peer->uid);
    return slurm::CommandSocketTransport(config.command_socket);
  }
  if (request.peer) {
    return PermissionDenied("uid " + std::to_string(request.peer->uid) +
                            " is not this daemon's user: send a token (scontrol token)");
  }
  return PermissionDenied(
      "no token: send X-SLURM-USER-TOKEN or Authorization: Bearer "
      "(scontrol token prints one)");
}

// A response schema's name in the document: slurmrestd's carry the API version
// ("v0.0.42_openapi_resp"), Gantry's own ("gantry_...") do not.
std::string SchemaName(std::string_view schema) {
  if (schema.starts_with("gantry_")) return std::string(schema);
  return std::string(kApiVersion) + "_" + std::string(schema);
}

}  // namespace

HttpResponse Router::Handle(const HttpRequest& request) const {
  Call call{request, config_, {}, nullptr, "", ""};
  call.source = request.peer ? "[unix socket] uid " + std::to_string(request.peer->uid)
                             : std::string("[tcp]");
  if (webui::IsDashboardPath(request.path)) return webui::Serve(request);
  std::string path = request.path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const Route* route = nullptr;
  bool path_known = false;
  for (const Route& r : Routes()) {
    std::optional<std::map<std::string, std::string>> params = Match(r.path, path);
    if (!params) continue;
    path_known = true;
    if (request.method == r.method ||
        (request.method == "HEAD" && std::string_view(r.method) == "GET")) {
      route = &r;
      call.params = std::move(*params);
      break;
    }
  }
  if (route == nullptr) {
    return path_known ? Refusal(call, 405, "Method not allowed", request.method + " " + path)
                      : Refusal(call, 404, "Unable to find requested URL", path);
  }
  std::unique_ptr<slurm::ControllerClient> client;
  if (route->needs_controller) {
    Result<std::unique_ptr<slurm::ControllerTransport>> transport =
        Authenticate(config_, request, &call.user);
    if (!transport.ok()) {
      return Refusal(call, 401, "Authentication failed", transport.status().message());
    }
    client = std::make_unique<slurm::ControllerClient>(std::move(*transport), "");
    call.controller = client.get();
  }
  Reply reply;
  reply.out().BeginObject();
  route->handler(call, reply);
  if (reply.raw()) return std::move(*reply.raw());
  JsonOut& out = reply.out();
  CloseEnvelope(call, route, reply, out);
  HttpResponse response{reply.status(), "application/json", "", {}, {}};
  response.pieces = out.TakePieces();
  return response;
}

std::string OpenapiDocument(const std::vector<Route>& routes) {
  JsonOut out;
  out.BeginObject().Member("openapi", "3.0.3");
  out.Key("info")
      .BeginObject()
      .Member("title", "Gantry REST API (slurmrestd v0.0.42)")
      .Member("version", kApiVersion)
      .EndObject();
  out.Key("paths").BeginObject();
  // The routes of each path, paths in the table's order.
  std::vector<std::pair<std::string, std::vector<const Route*>>> paths;
  for (const Route& route : routes) {
    auto it = std::find_if(paths.begin(), paths.end(),
                           [&](const auto& p) { return p.first == route.path; });
    if (it == paths.end()) it = paths.insert(paths.end(), {route.path, {}});
    it->second.push_back(&route);
  }
  for (const auto& [path, path_routes] : paths) {
    out.Key(path).BeginObject();
    for (const Route* route : path_routes) {
      std::string method = route->method;
      for (char& c : method) c = static_cast<char>(c - 'A' + 'a');
      out.Key(method).BeginObject();
      out.Member("operationId", route->operation_id).Member("summary", route->summary);
      out.Key("parameters").BeginArray();
      for (size_t open = path.find('{'); open != std::string::npos;
           open = path.find('{', open + 1)) {
        const std::string name = path.substr(open + 1, path.find('}', open) - open - 1);
        out.BeginObject()
            .Member("name", name)
            .Member("in", "path")
            .MemberBool("required", true)
            .Key("schema")
            .BeginObject()
            .Member("type", "string")
            .EndObject()
            .EndObject();
      }
      out.EndArray();
      out.Key("responses").BeginObject();
      for (const char* code : {"200", "default"}) {
        out.Key(code).BeginObject().Member("description", route->summary);
        out.Key("content").BeginObject().Key("application/json").BeginObject();
        out.Key("schema")
            .BeginObject()
            .Member("$ref", "#/components/schemas/" + SchemaName(route->response_schema))
            .EndObject();
        out.EndObject().EndObject().EndObject();
      }
      out.EndObject().EndObject();
    }
    out.EndObject();
  }
  out.EndObject();  // paths
  // Each response schema the routes name, as a reference to slurmrestd's own: the answers
  // follow its v0.0.42 document (tests/rest validates them against it).
  std::set<std::string> schemas;
  for (const Route& route : routes) schemas.insert(route.response_schema);
  out.Key("components").BeginObject().Key("schemas").BeginObject();
  for (const std::string& schema : schemas) {
    out.Key(SchemaName(schema))
        .BeginObject()
        .Member("type", "object")
        .Member("description", schema.starts_with("gantry_")
                                   ? "Gantry's own, in slurmrestd's envelope (docs/rest.md)"
                                   : "slurmrestd's " + SchemaName(schema) +
                                         " (https://slurm.schedmd.com/rest_api.html)")
        .EndObject();
  }
  out.EndObject().EndObject();
  out.EndObject();
  return out.Take();
}

}  // namespace gantry::rest
