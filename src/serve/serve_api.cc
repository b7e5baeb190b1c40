#include "serve/serve_api.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <streambuf>

#include "cluster/cluster_files.h"
#include "cluster/state_dir.h"
#include "http/http_client.h"
#include "rpc/credential.h"
#include "spec/effective_config.h"
#include "spec/spec_json.h"
#include "spec/spec_update.h"
#include "spec/validate.h"
#include "sys/files.h"
#include "sys/passwd.h"
#include "text/ascii.h"
#include "text/hostlist.h"

namespace gantry::serve {
namespace {

constexpr char kClusterType[] =
    "type.googleapis.com/google.cloud.aiplatform.v1beta1.ModelDevelopmentCluster";
constexpr size_t kMostSlurmRequestBytes = 1 << 20;  // callSlurmRestApi's limit
constexpr int kDefaultPageSize = 50;
constexpr int kMostPageSize = 1000;
constexpr int64_t kCallTokenLifespan = 120;

http::HttpResponse JsonAnswer(int status, const Json& body) {
  return {status, "application/json", body.dump(2) + "\n", {}, {}};
}

http::HttpResponse Error(int status, const std::string& message,
                         const std::vector<FieldViolation>& violations = {}) {
  return JsonAnswer(status, ErrorBody(status, message, violations));
}

http::HttpResponse ErrorOf(const Status& status) {
  return Error(HttpStatusOf(status.code()), status.message());
}

struct Caller {
  uid_t uid = 0;
  std::string name;
  bool admin = false;
};

// Who calls: a token signed with serve's key, or a unix-socket peer. Unauthenticated otherwise.
Result<Caller> Authenticate(const ServeConfig& config, const http::HttpRequest& request) {
  GANTRY_ASSIGN_OR_RETURN(const std::optional<std::string> token, http::TokenOf(request));
  Caller caller;
  if (token) {
    GANTRY_ASSIGN_OR_RETURN(const rpc::TokenClaims claims,
                            rpc::VerifyUserToken(config.token_key, *token, NowMs() / 1000));
    const std::optional<uid_t> uid = sys::LookupUid(claims.user);
    if (!uid) return Unauthenticated("the token's user " + claims.user + " does not exist");
    caller.uid = *uid;
    caller.name = claims.user;
  } else if (request.peer) {
    caller.uid = request.peer->uid;
    caller.name = sys::LookupUserName(caller.uid).value_or(std::to_string(caller.uid));
  } else {
    return Unauthenticated(
        "no token: send X-SLURM-USER-TOKEN or Authorization: Bearer (gantry serve token)");
  }
  caller.admin = caller.uid == 0 || caller.uid == config.own_uid;
  return caller;
}

// The project, location, times a cluster was made under (ID/serve.json); none for a cluster the
// command made.
struct ClusterMeta {
  std::optional<Parent> parent;
  std::string create_time;
  std::string update_time;
};

std::string MetaPath(const cluster::StateDir& dir) { return dir.dir() + "/serve.json"; }

ClusterMeta ReadMeta(const cluster::StateDir& dir) {
  ClusterMeta meta;
  Result<std::string> text = sys::ReadText(MetaPath(dir));
  if (!text.ok()) return meta;
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return meta;
  meta.parent = Parent{j.value("project", ""), j.value("location", "")};
  meta.create_time = j.value("createTime", "");
  meta.update_time = j.value("updateTime", "");
  return meta;
}

Status WriteMeta(const cluster::StateDir& dir, const Parent& parent, const std::string& created,
                 const std::string& updated) {
  const nlohmann::json j = {{"project", parent.project},
                            {"location", parent.location},
                            {"createTime", created},
                            {"updateTime", updated}};
  return sys::WriteFileAtomically(MetaPath(dir), j.dump(2) + "\n", 0600);
}

// Lines written to it become an operation's progress message.
class ProgressBuf : public std::streambuf {
 public:
  explicit ProgressBuf(const Progress& progress) : progress_(progress) {}

 protected:
  int overflow(int c) override {
    if (c == '\n') {
      if (!line_.empty()) progress_.Say(line_);
      line_.clear();
    } else if (c != EOF) {
      line_ += static_cast<char>(c);
    }
    return c;
  }

 private:
  const Progress& progress_;
  std::string line_;
};

class Api {
 public:
  Api(const ServeConfig& config, OperationStore& operations, const http::HttpRequest& request)
      : config_(config), operations_(operations), request_(request) {}

  http::HttpResponse Run();

 private:
  http::HttpResponse Clusters(const Parent& parent, const std::string& rest);
  http::HttpResponse Create(const Parent& parent);
  http::HttpResponse List(const Parent& parent);
  http::HttpResponse Get(const Parent& parent, const std::string& id);
  http::HttpResponse Patch(const Parent& parent, const std::string& id);
  http::HttpResponse Delete(const Parent& parent, const std::string& id);
  http::HttpResponse CallSlurmRestApi(const Parent& parent, const std::string& id);
  http::HttpResponse ReportFaultyNodes(const Parent& parent, const std::string& id);
  http::HttpResponse Token();

  // The cluster ID under `parent`; NotFound otherwise.
  Result<cluster::Cluster> Load(const Parent& parent, const std::string& id) const;
  Json Resource(const Parent& parent, const std::string& id, const cluster::Cluster& c) const;
  cluster::StateDir DirOf(const std::string& id) const {
    return cluster::StateDir(config_.state_root + "/" + id);
  }
  std::optional<http::HttpResponse> RequireAdmin(const std::string& what) const {
    if (caller_.admin) return std::nullopt;
    return Error(403, "user " + caller_.name + " may not " + what +
                          " (only root and the server's own user manage clusters)");
  }

  const ServeConfig& config_;
  OperationStore& operations_;
  const http::HttpRequest& request_;
  Caller caller_;
};

http::HttpResponse Api::Run() {
  Result<Caller> caller = Authenticate(config_, request_);
  if (!caller.ok()) return Error(401, caller.status().message());
  caller_ = *caller;
  if (request_.path == "/gantry/v1/serve/token") {
    return request_.method == "POST" ? Token() : Error(405, "use POST");
  }
  // /VERSION/projects/P/locations/L/KIND[/...]
  std::vector<std::string> parts;
  for (std::string_view part : text::Split(request_.path, '/')) parts.emplace_back(part);
  if (parts.size() < 7 || !parts[0].empty() || (parts[1] != "v1beta1" && parts[1] != "v1") ||
      parts[2] != "projects" || parts[4] != "locations" || parts[3].empty() || parts[5].empty()) {
    return Error(404, "no such resource: " + request_.path);
  }
  const Parent parent{parts[3], parts[5]};
  if (parts[6] == "operations") {
    if (parts.size() != 8 || parts[7].empty()) return Error(404, "no such operation");
    if (request_.method != "GET") return Error(405, "operations are read with GET");
    std::optional<Json> op = operations_.Get(parent, parts[7]);
    if (!op) {
      return Error(404, "operation " + parent.Name() + "/operations/" + parts[7] + " not found");
    }
    return JsonAnswer(200, *op);
  }
  if (parts[1] != "v1beta1" || parts[6] != "modelDevelopmentClusters") {
    return Error(404, "no such resource: " + request_.path);
  }
  std::string rest;
  for (size_t i = 7; i < parts.size(); ++i) rest += (i > 7 ? "/" : "") + parts[i];
  return Clusters(parent, rest);
}

http::HttpResponse Api::Clusters(const Parent& parent, const std::string& rest) {
  const std::string& method = request_.method;
  if (rest.empty()) {
    if (method == "POST") return Create(parent);
    if (method == "GET") return List(parent);
    return Error(405, method + " is not a method of the cluster collection");
  }
  const size_t colon = rest.find(':');
  const std::string id = rest.substr(0, colon);
  if (id.find('/') != std::string::npos) return Error(404, "no such resource: " + request_.path);
  if (colon != std::string::npos) {
    const std::string verb = rest.substr(colon + 1);
    if (method != "POST") return Error(405, ":" + verb + " is called with POST");
    if (verb == "callSlurmRestApi") return CallSlurmRestApi(parent, id);
    if (verb == "reportFaultyNodes") return ReportFaultyNodes(parent, id);
    return Error(404, "no such method :" + verb + " (known: callSlurmRestApi, reportFaultyNodes)");
  }
  if (method == "GET") return Get(parent, id);
  if (method == "PATCH") return Patch(parent, id);
  if (method == "DELETE") return Delete(parent, id);
  return Error(405, method + " is not a method of a cluster");
}

Result<cluster::Cluster> Api::Load(const Parent& parent, const std::string& id) const {
  const std::string name = parent.Name() + "/modelDevelopmentClusters/" + id;
  if (!spec::IsValidId(id)) return NotFound("cluster " + name + " not found");
  const cluster::StateDir dir = DirOf(id);
  if (!dir.HoldsCluster()) return NotFound("cluster " + name + " not found");
  const ClusterMeta meta = ReadMeta(dir);
  if (meta.parent &&
      (meta.parent->project != parent.project || meta.parent->location != parent.location)) {
    return NotFound("cluster " + name + " not found");
  }
  return cluster::LoadCluster(dir);
}

Json Api::Resource(const Parent& parent, const std::string& id, const cluster::Cluster& c) const {
  ClusterStatusView view;
  const std::optional<std::string> running = operations_.RunningOn(id);
  const cluster::ClusterStatus status =
      cluster::InspectCluster(c, /*ask_controller=*/true, std::chrono::seconds(2));
  if (running) {
    view.state = running->starts_with("Create")   ? "PROVISIONING"
                 : running->starts_with("Delete") ? "STOPPING"
                                                  : "UPDATING";
  } else if (status.AllRunning()) {
    view.state = "RUNNING";
  } else {
    view.state = "ERROR";
    view.detail = status.NoneRunning() ? "the cluster's daemons are not running (gantry up)"
                                       : "some of the cluster's daemons are not running";
  }
  for (const cluster::AgentStatus& agent : status.agents) {
    if (!agent.expected) continue;
    NodeStatus node{agent.node, "", ""};
    for (const spec::EffectivePool& pool : c.config.pools) {
      if (std::find(pool.node_names.begin(), pool.node_names.end(), agent.node) !=
          pool.node_names.end()) {
        node.pool = pool.id;
      }
    }
    if (agent.pid == 0) {
      node.state = running ? "PREPARING" : "ERROR";
    } else if (agent.controller_state.find("DRAIN") != std::string::npos) {
      node.state = "REPAIRING";
    } else if (agent.controller_state.empty() || agent.controller_state.ends_with("*")) {
      node.state = "PREPARING";
    } else {
      node.state = "RUNNING";
    }
    view.nodes.push_back(std::move(node));
  }
  const ClusterMeta meta = ReadMeta(c.dir);
  return ClusterResource(parent, id, c.spec, view, meta.create_time, meta.update_time);
}

// A spec in a request body, or every problem with it.
Result<spec::ClusterSpec> SpecOfText(const std::string& text,
                                     std::vector<FieldViolation>* violations) {
  spec::CheckedSpec checked = spec::CheckSpecText(text);
  if (checked.ok()) return std::move(*checked.spec);
  *violations = ViolationsOf(checked.diagnostics);
  return InvalidArgument("the cluster spec has " + std::to_string(violations->size()) +
                         (violations->size() == 1 ? " problem" : " problems"));
}

http::HttpResponse Api::Create(const Parent& parent) {
  if (auto refused = RequireAdmin("create clusters")) return *refused;
  const std::string id = request_.Query("model_development_cluster_id")
                             .value_or(request_.Query("modelDevelopmentClusterId").value_or(""));
  if (!spec::IsValidId(id)) {
    return Error(400, "model_development_cluster_id \"" + id + "\" is not a valid id",
                 {{"model_development_cluster_id",
                   "a lower-case letter, then letters, digits or '-', at most 63 characters"}});
  }
  std::vector<FieldViolation> violations;
  Result<spec::ClusterSpec> spec = SpecOfText(request_.body, &violations);
  if (!spec.ok()) return Error(400, spec.status().message(), violations);
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*spec);
  if (!config.ok()) return ErrorOf(config.status());
  const cluster::StateDir dir = DirOf(id);
  if (Status s = dir.CheckSocketPath(); !s.ok()) return ErrorOf(s);
  if (dir.HoldsCluster() || std::filesystem::exists(dir.dir())) {
    return Error(409, "cluster " + parent.Name() + "/modelDevelopmentClusters/" + id +
                          " already exists (or " + dir.dir() + " is taken)");
  }
  if (operations_.RunningOn(id)) return Error(409, "an operation on " + id + " runs");
  Result<cluster::Cluster> created = cluster::CreateClusterFiles(*spec, dir);
  if (!created.ok()) return ErrorOf(created.status());
  const std::string now = Rfc3339(NowMs());
  if (Status s = WriteMeta(dir, parent, now, now); !s.ok()) return ErrorOf(s);
  const ServeConfig& config_ref = config_;
  Result<Json> op = operations_.Start(
      parent, id, "CreateModelDevelopmentClusterOperationMetadata",
      "Create Model Development Cluster request received, provisioning...",
      [&config_ref, parent, id, cluster = *created](const Progress& progress) -> OperationOutcome {
        ProgressBuf buf(progress);
        std::ostream out(&buf);
        const Status up = cluster::Up(cluster, config_ref.env, config_ref.lifecycle, out);
        out.flush();
        if (!up.ok()) {
          return {std::nullopt, OperationError{HttpStatusOf(up.code()),
                                               "the cluster did not start: " + up.message()}};
        }
        Json response = {{"@type", kClusterType},
                         {"name", parent.Name() + "/modelDevelopmentClusters/" + id}};
        const Json members = spec::SpecToJson(cluster.spec);
        for (const auto& [key, value] : members.items()) response[key] = value;
        return {response, std::nullopt};
      });
  if (!op.ok()) return ErrorOf(op.status());
  return JsonAnswer(200, *op);
}

http::HttpResponse Api::List(const Parent& parent) {
  int page_size = kDefaultPageSize;
  if (const std::optional<std::string> text = request_.Query("pageSize")) {
    char* end = nullptr;
    const int64_t value = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || value < 0 || value > kMostPageSize) {
      return Error(400, "pageSize \"" + *text + "\" is not a number from 0 to 1000",
                   {{"pageSize", "0 (the default, 50) to 1000"}});
    }
    if (value > 0) page_size = static_cast<int>(value);
  }
  std::string after;
  if (const std::optional<std::string> token = request_.Query("pageToken");
      token && !token->empty()) {
    const std::optional<std::string> id = IdOfPageToken(*token);
    if (!id || !spec::IsValidId(*id)) {
      return Error(400, "pageToken is not one this server gave", {{"pageToken", "not valid"}});
    }
    after = *id;
  }
  Json clusters = Json::array();
  std::string last;
  bool more = false;
  for (const std::string& path : cluster::ListClusterDirs(config_.state_root)) {
    const std::string id = std::filesystem::path(path).filename().string();
    if (!after.empty() && id <= after) continue;
    Result<cluster::Cluster> c = Load(parent, id);
    if (!c.ok()) continue;
    if (static_cast<int>(clusters.size()) == page_size) {
      more = true;
      break;
    }
    clusters.push_back(Resource(parent, id, *c));
    last = id;
  }
  Json answer = {{"modelDevelopmentClusters", clusters}};
  if (more) answer["nextPageToken"] = PageTokenAfter(last);
  return JsonAnswer(200, answer);
}

http::HttpResponse Api::Get(const Parent& parent, const std::string& id) {
  Result<cluster::Cluster> c = Load(parent, id);
  if (!c.ok()) return ErrorOf(c.status());
  return JsonAnswer(200, Resource(parent, id, *c));
}

http::HttpResponse Api::Patch(const Parent& parent, const std::string& id) {
  if (auto refused = RequireAdmin("update clusters")) return *refused;
  Result<cluster::Cluster> before = Load(parent, id);
  if (!before.ok()) return ErrorOf(before.status());
  const std::string mode = request_.Query("updateMode").value_or("UPDATE_MODE_UNSPECIFIED");
  if (mode != "UPDATE_MODE_UNSPECIFIED" && mode != "USER_ONLY" && mode != "USER_AND_SERVICE") {
    return Error(400, "updateMode \"" + mode + "\" is not known",
                 {{"updateMode", "UPDATE_MODE_UNSPECIFIED, USER_ONLY or USER_AND_SERVICE"}});
  }
  const nlohmann::json body = nlohmann::json::parse(request_.body, nullptr, false);
  if (!body.is_object()) {
    return Error(400, "the body is not a JSON object (the desired cluster)",
                 {{"body", "not JSON"}});
  }
  std::vector<FieldViolation> violations;
  const std::string mask =
      request_.Query("updateMask").value_or(request_.Query("update_mask").value_or(""));
  Result<MaskedUpdate> update = ApplyUpdateMask(before->spec, body, mask, &violations);
  if (!update.ok()) return Error(400, update.status().message(), violations);
  Result<spec::ClusterSpec> after = SpecOfText(update->spec_text, &violations);
  if (!after.ok()) return Error(400, after.status().message(), violations);
  spec::UpdatePolicy policy;
  policy.allow_config_changes = update->touches_config;
  const std::vector<spec::SpecChange> changes = spec::DiffSpecs(before->spec, *after, policy);
  violations = RefusedChanges(changes);
  if (!violations.empty()) {
    return Error(400,
                 std::to_string(violations.size()) + " of " + std::to_string(changes.size()) +
                     " changes refused; the cluster is unchanged",
                 violations);
  }
  Result<spec::EffectiveConfig> config = spec::BuildEffectiveConfig(*after);
  if (!config.ok()) return ErrorOf(config.status());
  const ServeConfig& config_ref = config_;
  Result<Json> op = operations_.Start(
      parent, id, "UpdateModelDevelopmentClusterOperationMetadata",
      changes.empty() ? "no changes" : std::to_string(changes.size()) + " changes received",
      [&config_ref, parent, id, before = *before,
       after = cluster::Cluster{before->dir, *after, *config},
       changes](const Progress& progress) -> OperationOutcome {
        Json response = {{"@type", kClusterType},
                         {"name", parent.Name() + "/modelDevelopmentClusters/" + id}};
        const Json members = spec::SpecToJson(after.spec);
        for (const auto& [key, value] : members.items()) response[key] = value;
        if (changes.empty()) return {response, std::nullopt};
        for (const spec::SpecChange& c : changes) progress.Say(c.ToString());
        if (Status s = cluster::WriteSpecFile(after.dir, after.spec); !s.ok()) {
          return {std::nullopt, OperationError{HttpStatusOf(s.code()), s.message()}};
        }
        const ClusterMeta meta = ReadMeta(after.dir);
        if (Status s = WriteMeta(after.dir, parent, meta.create_time, Rfc3339(NowMs())); !s.ok()) {
          return {std::nullopt, OperationError{HttpStatusOf(s.code()), s.message()}};
        }
        ProgressBuf buf(progress);
        std::ostream out(&buf);
        const Status s =
            cluster::RestartForUpdate(before, after, config_ref.env, config_ref.lifecycle, out);
        out.flush();
        if (!s.ok()) return {std::nullopt, OperationError{HttpStatusOf(s.code()), s.message()}};
        return {response, std::nullopt};
      });
  if (!op.ok()) return ErrorOf(op.status());
  return JsonAnswer(200, *op);
}

http::HttpResponse Api::Delete(const Parent& parent, const std::string& id) {
  if (auto refused = RequireAdmin("delete clusters")) return *refused;
  Result<cluster::Cluster> c = Load(parent, id);
  if (!c.ok()) return ErrorOf(c.status());
  const ServeConfig& config_ref = config_;
  Result<Json> op = operations_.Start(
      parent, id, "DeleteOperationMetadata", "Delete request received, stopping the cluster",
      [&config_ref, dir = c->dir](const Progress& progress) -> OperationOutcome {
        ProgressBuf buf(progress);
        std::ostream out(&buf);
        const Status s = cluster::DeleteCluster(dir, config_ref.lifecycle, out);
        out.flush();
        if (!s.ok()) return {std::nullopt, OperationError{HttpStatusOf(s.code()), s.message()}};
        return {Json{{"@type", "type.googleapis.com/google.protobuf.Empty"}}, std::nullopt};
      });
  if (!op.ok()) return ErrorOf(op.status());
  return JsonAnswer(200, *op);
}

// Calls the cluster's gantry-restd on its unix socket; with `token` as that user, else as this
// server's own user (whom gantry-restd trusts on its socket: the same uid started it).
Result<http::ClientReply> CallRestd(const cluster::StateDir& dir, const std::string& method,
                                    const std::string& path, const std::string& body,
                                    const std::string& token) {
  http::ClientRequest request;
  request.method = method;
  request.target = path;
  request.body = body;
  if (!body.empty()) request.headers["Content-Type"] = "application/json";
  if (!token.empty()) request.headers["X-SLURM-USER-TOKEN"] = token;
  if (!cluster::LiveRestd(dir)) {
    return Unavailable("the cluster's REST daemon is not running (gantry up)");
  }
  return http::CallUnixSocket(dir.restd_socket(), request);
}

http::HttpResponse Api::CallSlurmRestApi(const Parent& parent, const std::string& id) {
  if (request_.body.size() > kMostSlurmRequestBytes) {
    return Error(400, "the request is larger than 1 MB", {{"body", "at most 1 MB"}});
  }
  Result<cluster::Cluster> c = Load(parent, id);
  if (!c.ok()) return ErrorOf(c.status());
  const nlohmann::json body = nlohmann::json::parse(request_.body, nullptr, false);
  std::vector<FieldViolation> violations;
  if (!body.is_object()) return Error(400, "the body is not a JSON object", {{"body", "not JSON"}});
  std::string method = body.value("method", "");
  if (method.starts_with("HTTP_METHOD_")) method = method.substr(12);
  if (method != "GET" && method != "POST" && method != "DELETE") {
    violations.push_back({"method", "\"" + body.value("method", "") +
                                        "\": expected HTTP_METHOD_GET, HTTP_METHOD_POST or "
                                        "HTTP_METHOD_DELETE"});
  }
  const std::string path = body.contains("path") && body["path"].is_string() ? body["path"] : "";
  if (!(path.starts_with("/slurm/") || path.starts_with("/slurmdb/") ||
        path.starts_with("/gantry/v1/")) ||
      path.find_first_of(" \r\n\t#") != std::string::npos) {
    violations.push_back({"path", "\"" + path +
                                      "\": a path of the cluster's REST API (/slurm/..., "
                                      "/slurmdb/..., /gantry/v1/...)"});
  }
  std::string payload;
  if (body.contains("body") && !body["body"].is_null()) {
    payload = body["body"].is_string() ? body["body"].get<std::string>() : body["body"].dump();
  }
  if (!violations.empty()) return Error(400, "the Slurm REST request is not valid", violations);
  Result<rpc::ClusterKey> key = rpc::LoadClusterKey(c->dir.key());
  if (!key.ok()) return ErrorOf(key.status());
  const int64_t now = NowMs() / 1000;
  const std::string token =
      rpc::SignUserToken(rpc::TokenKeyOf(*key), {caller_.name, now, now + kCallTokenLifespan});
  Result<http::ClientReply> reply = CallRestd(c->dir, method, path, payload, token);
  if (!reply.ok()) return ErrorOf(reply.status());
  return JsonAnswer(200, Json{{"status", reply->status}, {"body", reply->body}});
}

http::HttpResponse Api::ReportFaultyNodes(const Parent& parent, const std::string& id) {
  if (auto refused = RequireAdmin("report faulty nodes")) return *refused;
  Result<cluster::Cluster> c = Load(parent, id);
  if (!c.ok()) return ErrorOf(c.status());
  const nlohmann::json body = nlohmann::json::parse(request_.body, nullptr, false);
  const nlohmann::json* actions =
      body.is_object() && body.contains("nodeActions") ? &body["nodeActions"] : nullptr;
  if (actions == nullptr || !actions->is_array() || actions->size() != 1 ||
      !(*actions)[0].is_object()) {
    return Error(400, "nodeActions: exactly one node per call",
                 {{"nodeActions", "one {\"nodeId\": ...} per call"}});
  }
  const nlohmann::json& action = (*actions)[0];
  const std::string node = action.contains("nodeId") && action["nodeId"].is_string()
                               ? action["nodeId"].get<std::string>()
                               : "";
  const std::vector<std::string> nodes = cluster::ComputeNodes(c->config);
  const bool known = std::find(nodes.begin(), nodes.end(), node) != nodes.end();
  if (!known) {
    return Error(400, "nodeId \"" + node + "\" is not a compute node of cluster " + id,
                 {{"nodeActions[0].nodeId", "a node of the cluster (CLUSTER-POOL-INDEX)"}});
  }
  std::string reason;
  if (action.contains("reportFaultyHost") && action["reportFaultyHost"].is_object()) {
    for (const auto& fault :
         action["reportFaultyHost"].value("faultReasons", nlohmann::json::array())) {
      if (!fault.is_object()) continue;
      std::string one = fault.value("behavior", "");
      const std::string description = fault.value("description", "");
      if (!description.empty()) one += (one.empty() ? "" : ": ") + description;
      if (!one.empty()) reason += (reason.empty() ? "" : "; ") + one;
    }
  }
  reason = "reported faulty" + (reason.empty() ? "" : ": " + reason);
  Result<Json> op = operations_.Start(
      parent, id, "ReportFaultyNodesOperationMetadata", "draining " + node,
      [dir = c->dir, node, reason](const Progress& progress) -> OperationOutcome {
        const auto fail = [](const std::string& what, const Result<http::ClientReply>& reply) {
          return OperationOutcome{
              std::nullopt,
              OperationError{reply.ok() ? reply->status : HttpStatusOf(reply.status().code()),
                             what + ": " + (reply.ok() ? reply->body : reply.status().message())}};
        };
        const nlohmann::json drain = {{"state", {"DRAIN"}}, {"reason", reason}};
        Result<http::ClientReply> drained =
            CallRestd(dir, "POST", "/slurm/v0.0.42/node/" + node, drain.dump(), "");
        if (!drained.ok() || drained->status != 200) return fail("drain " + node, drained);
        progress.Say(node + " drained; requeueing its jobs");
        Result<http::ClientReply> jobs = CallRestd(dir, "GET", "/slurm/v0.0.42/jobs", "", "");
        if (!jobs.ok() || jobs->status != 200) return fail("list the jobs", jobs);
        Json requeued = Json::array();
        Json not_requeued = Json::array();
        const nlohmann::json listing = nlohmann::json::parse(jobs->body, nullptr, false);
        for (const auto& job : listing.value("jobs", nlohmann::json::array())) {
          const auto states = job.value("job_state", nlohmann::json::array());
          bool live = false;
          for (const auto& s : states) {
            live = live || s == "RUNNING" || s == "SUSPENDED" || s == "CONFIGURING";
          }
          if (!live) continue;
          Result<std::vector<std::string>> hosts = text::ExpandHostlist(job.value("nodes", ""));
          if (!hosts.ok() || std::find(hosts->begin(), hosts->end(), node) == hosts->end()) {
            continue;
          }
          const int64_t job_id = job.value("job_id", 0);
          Result<http::ClientReply> done = CallRestd(
              dir, "POST", "/gantry/v1/job/" + std::to_string(job_id) + "/requeue", "{}", "");
          if (done.ok() && done->status == 200) {
            requeued.push_back(job_id);
          } else {
            const nlohmann::json answer =
                done.ok() ? nlohmann::json::parse(done->body, nullptr, false) : nlohmann::json();
            std::string why =
                done.ok() ? "HTTP " + std::to_string(done->status) : done.status().message();
            if (answer.is_object() && answer.contains("errors") && !answer["errors"].empty()) {
              why = answer["errors"][0].value("error", why);
            }
            not_requeued.push_back({{"jobId", job_id}, {"reason", why}});
          }
        }
        return {Json{{"@type",
                      "type.googleapis.com/google.cloud.aiplatform.v1beta1."
                      "ReportFaultyNodesResponse"},
                     {"nodeId", node},
                     {"reason", reason},
                     {"requeuedJobs", requeued},
                     {"notRequeuedJobs", not_requeued}},
                std::nullopt};
      });
  if (!op.ok()) return ErrorOf(op.status());
  return JsonAnswer(200, *op);
}

http::HttpResponse Api::Token() {
  int64_t lifespan = rpc::kDefaultTokenLifespan;
  if (const std::optional<std::string> text = request_.Query("lifespan")) {
    char* end = nullptr;
    lifespan = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || lifespan < 1 || lifespan > 365LL * 86400) {
      return Error(400, "lifespan \"" + *text + "\": seconds from 1 to a year",
                   {{"lifespan", "1 to 31536000"}});
    }
  }
  const std::string user = request_.Query("username").value_or(caller_.name);
  if (user != caller_.name) {
    if (auto refused = RequireAdmin("make tokens for other users")) return *refused;
    if (!sys::LookupUid(user))
      return Error(400, "user " + user + " does not exist", {{"username", user}});
  }
  const int64_t now = NowMs() / 1000;
  const std::string token = rpc::SignUserToken(config_.token_key, {user, now, now + lifespan});
  return JsonAnswer(
      200,
      Json{{"token", token}, {"user", user}, {"expireTime", Rfc3339((now + lifespan) * 1000)}});
}

}  // namespace

http::HttpResponse ServeApi::Handle(const http::HttpRequest& request) const {
  return Api(config_, *operations_, request).Run();
}

}  // namespace gantry::serve
