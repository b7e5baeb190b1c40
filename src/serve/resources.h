// What `gantry serve` says and reads, in the Vertex AI API's shape (v1beta1
// ModelDevelopmentCluster, google.longrunning.Operation, google.rpc errors): pure functions that
// the handlers (serve_api.h) call, so that each rule is declared and tested once.
//
// Names: the API's own members in its JSON spelling (camelCase: clusterStatus, createTime,
// nextPageToken); the cluster spec's members as the spec is written (snake_case, canonical form
// of spec/spec_json.h), since that is the body a caller sent.
// Pure; thread-safe.
#ifndef GANTRY_SERVE_RESOURCES_H_
#define GANTRY_SERVE_RESOURCES_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "http/http_server.h"
#include "spec/cluster_spec.h"
#include "spec/diagnostics.h"
#include "spec/spec_update.h"

namespace gantry::serve {

using Json = nlohmann::ordered_json;

// "projects/P/locations/L" and what follows, as a path names it.
struct Parent {
  std::string project;
  std::string location;
  std::string Name() const { return "projects/" + project + "/locations/" + location; }
};

// google.rpc.Status as an error body: {"error": {code, message, status, details}}, `code` the
// HTTP status. `violations` become one google.rpc.BadRequest detail (field, description).
struct FieldViolation {
  std::string field;
  std::string description;
};
Json ErrorBody(int http_status, const std::string& message,
               const std::vector<FieldViolation>& violations = {});
using http::HttpStatusOf;
// The google.rpc.Code number of an HTTP status (Operation.error.code): 400 -> 3, 404 -> 5, ...
int RpcCodeNumber(int http_status);

// Every problem a spec's diagnostics name, as field violations ("node_pools[1].id").
std::vector<FieldViolation> ViolationsOf(const spec::Diagnostics& diagnostics);

// How a cluster stands, for clusterStatus.
struct NodeStatus {
  std::string node;   // "demo-a4-0"
  std::string pool;   // "a4"
  std::string state;  // PREPARING, RUNNING, ERROR
};
struct ClusterStatusView {
  std::string state;  // PROVISIONING, RUNNING, UPDATING, STOPPING, ERROR
  std::string detail;
  std::vector<NodeStatus> nodes;
};

// A ModelDevelopmentCluster: name, the spec's members, clusterStatus, createTime, updateTime.
Json ClusterResource(const Parent& parent, const std::string& id, const spec::ClusterSpec& spec,
                     const ClusterStatusView& status, const std::string& create_time,
                     const std::string& update_time);

// PATCH's updateMask: which paths may be named (Vertex's list, plus the `config` maps, which
// the update rules govern), each accepted in snake_case or camelCase.
inline constexpr const char* kUpdatablePaths[] = {
    "node_pools",
    "orchestrator_spec.slurm_spec.partitions",
    "orchestrator_spec.slurm_spec.login_node_pool_id",
    "orchestrator_spec.slurm_spec.prolog_bash_scripts",
    "orchestrator_spec.slurm_spec.epilog_bash_scripts",
    "orchestrator_spec.slurm_spec.config",
    "orchestrator_spec.slurm_spec.scheduling",
    "orchestrator_spec.slurm_spec.accounting",
};

struct MaskedUpdate {
  std::string spec_text;        // the current spec with the masked members taken from the body
  bool touches_config = false;  // the mask names config, scheduling or accounting (allowed then)
};
// The spec `current` with each member that `mask` ("a,b.c") names replaced by the body's (its
// snake_case or camelCase spelling, at every level); a member the body lacks is removed.
// InvalidArgument with one violation per bad mask entry otherwise (unknown or not updatable
// paths, an empty mask).
Result<MaskedUpdate> ApplyUpdateMask(const spec::ClusterSpec& current, const nlohmann::json& body,
                                     const std::string& mask,
                                     std::vector<FieldViolation>* violations);

// The refused changes of an update as violations (path: why).
std::vector<FieldViolation> RefusedChanges(const std::vector<spec::SpecChange>& changes);

// "nodePools" -> "node_pools" (names that start in lower case only; "MaxTime" stays).
std::string SnakeCase(std::string_view name);

// The wall clock in milliseconds since the epoch.
int64_t NowMs();
// An RFC 3339 time in UTC with milliseconds ("2026-12-07T17:30:00.123Z").
std::string Rfc3339(int64_t unix_ms);

// List paging: the page token is the base64url of the last id of the previous page.
std::string PageTokenAfter(const std::string& id);
std::optional<std::string> IdOfPageToken(const std::string& token);

}  // namespace gantry::serve

#endif  // GANTRY_SERVE_RESOURCES_H_
