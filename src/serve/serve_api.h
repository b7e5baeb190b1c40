// `gantry serve`'s HTTP API: the clusters under $GANTRY_HOME, in the Vertex AI API's shape
// (docs/serve.md):
//   POST   /v1beta1/projects/P/locations/L/modelDevelopmentClusters?model_development_cluster_id=ID
//   GET    .../modelDevelopmentClusters[?pageSize=N&pageToken=T]
//   GET    .../modelDevelopmentClusters/ID
//   PATCH  .../modelDevelopmentClusters/ID?updateMask=a,b[&updateMode=...]
//   DELETE .../modelDevelopmentClusters/ID
//   POST   .../modelDevelopmentClusters/ID:callSlurmRestApi   {method, path, body}
//   POST   .../modelDevelopmentClusters/ID:reportFaultyNodes  {nodeActions: [{nodeId, ...}]}
//   GET    /v1/projects/P/locations/L/operations/OP (and under /v1beta1/)
//   POST   /gantry/v1/serve/token[?lifespan=S&username=U]
// Create, update, delete and fault reports answer a long-running operation (operations.h).
// A cluster lives in $GANTRY_HOME/ID (the layout `gantry cluster create` makes), with the
// project and location it was created under in ID/serve.json; a cluster made by the command
// (no serve.json) is listed under every project and location.
//
// Who may call, as gantry-restd's rules: a token (X-SLURM-USER-TOKEN or Authorization: Bearer,
// signed with serve's own key, $GANTRY_HOME/serve.key), or the peer credentials of a caller on
// the unix socket. The server's own user and root manage clusters; every user may read them and
// call a cluster's REST API as themselves (callSlurmRestApi passes a short-lived token for the
// caller, signed with that cluster's key, to its gantry-restd).
// Thread-safe.
#ifndef GANTRY_SERVE_SERVE_API_H_
#define GANTRY_SERVE_SERVE_API_H_

#include <sys/types.h>

#include <string>

#include "cluster/environment.h"
#include "cluster/lifecycle.h"
#include "http/http_server.h"
#include "rpc/user_token.h"
#include "serve/operations.h"

namespace gantry::serve {

struct ServeConfig {
  std::string state_root;  // $GANTRY_HOME
  uid_t own_uid = 0;
  cluster::Environment env;  // finds the daemons' binaries
  rpc::TokenKey token_key;
  cluster::LifecycleOptions lifecycle;
};

class ServeApi {
 public:
  ServeApi(ServeConfig config, OperationStore* operations)
      : config_(std::move(config)), operations_(operations) {}
  http::HttpResponse Handle(const http::HttpRequest& request) const;

 private:
  ServeConfig config_;
  OperationStore* operations_;
};

}  // namespace gantry::serve

#endif  // GANTRY_SERVE_SERVE_API_H_
