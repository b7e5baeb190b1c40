// The few controller calls `gantry up/status` make, over the controller's unix socket
// (gRPC target "unix:DIR/gantryd.sock"; the caller's identity is its peer credentials, so no
// credential is attached). Each call has a deadline and returns the gRPC error as a Status
// (kUnavailable when nothing answers, kUnimplemented-like codes as kFailedPrecondition).
// Thread-safety: thread-safe; each call opens its own channel.
#ifndef GANTRY_CLUSTER_CONTROLLER_CLIENT_H_
#define GANTRY_CLUSTER_CONTROLLER_CLIENT_H_

#include <chrono>
#include <string>

#include "base/status.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::cluster {

// Controller.Ping.
Result<v1::PingReply> PingController(const std::string& socket_path,
                                     std::chrono::milliseconds timeout);

// Controller.GetNodes for every node.
Result<v1::GetNodesReply> GetControllerNodes(const std::string& socket_path,
                                             std::chrono::milliseconds timeout);

// Whether a failed call means the controller does not implement it (gRPC UNIMPLEMENTED).
bool IsUnimplemented(const Status& status);

}  // namespace gantry::cluster

#endif  // GANTRY_CLUSTER_CONTROLLER_CLIENT_H_
