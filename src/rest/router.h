// gantry-restd's routes: one table (routes.cc) declares each route once, and the router matches
// requests against it, authenticates the caller, connects to gantryd as that caller, runs the
// handler and wraps its payload in the envelope (rest/api.h). /openapi.json is made from the same
// table, so it lists exactly what the daemon serves.
//
// Paths match with or without a trailing slash (clients call both: "/jobs" and "/jobs/").
// A path nobody serves is 404, a served path with another method 405.
//
// Authentication, as slurmrestd's rest_auth/jwt and rest_auth/local:
//  - X-SLURM-USER-TOKEN (with X-SLURM-USER-NAME to act for someone else, root/SlurmUser tokens
//    only) or Authorization: Bearer <token>; both at once is refused (401);
//  - without a token, a unix-socket client whose uid is the daemon's own acts as that uid;
//  - anything else is 401. The token is checked by gantryd on every call (ctld/user_tokens.h):
//    the daemon holds no key and acts with no privilege of its own.
// Thread-safe: the router is immutable after construction.
#ifndef GANTRY_REST_ROUTER_H_
#define GANTRY_REST_ROUTER_H_

#include <functional>
#include <string>
#include <vector>

#include "http/http_server.h"
#include "rest/api.h"

namespace gantry::rest {

struct Route {
  const char* method;           // "GET", "POST", "DELETE"
  const char* path;             // "/slurm/v0.0.42/job/{job_id}" (no trailing slash)
  const char* operation_id;     // the spec's operationId
  const char* response_schema;  // the spec's response schema name, without "v0.0.42_"
  const char* summary;
  std::function<void(Call&, Reply&)> handler;
  bool needs_controller = true;
};

// Every route gantry-restd serves (routes.cc).
const std::vector<Route>& Routes();

class Router {
 public:
  explicit Router(RestConfig config) : config_(std::move(config)) {}
  HttpResponse Handle(const HttpRequest& request) const;
  const RestConfig& config() const { return config_; }

 private:
  RestConfig config_;
};

// The OpenAPI 3.0.3 document of `routes` (paths, operations, parameters, response references).
std::string OpenapiDocument(const std::vector<Route>& routes);

}  // namespace gantry::rest

#endif  // GANTRY_REST_ROUTER_H_
