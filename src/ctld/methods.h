// gantryd's side of each controller method (wire/methods.h), shared by its two transports: the
// gRPC service (ctld/services.h) and the command socket (ctld/command_socket.h). A call means
// the same, under the same permission rules, whichever way it came; the transports only
// authenticate the caller and carry bytes.
#ifndef GANTRY_CTLD_METHODS_H_
#define GANTRY_CTLD_METHODS_H_

#include <string>

#include "base/status.h"
#include "ctld/controller.h"
#include "ctld/diag_stats.h"
#include "gantry/v1/controller.pb.h"
#include "model/rpc_type.h"
#include "wire/frame.h"
#include "wire/methods.h"

namespace gantry::ctld {

// One call: who makes it, to which controller, and how sdiag counts it (a method whose request
// says more, such as a listing of one job, refines the type).
struct MethodCall {
  Controller* controller;
  const Caller& caller;
  const std::string& version;  // this gantryd's (Ping answers it)
  DiagStats::Call* stats;
};

// The handlers, one per method, overloaded on the request type.
#define GANTRY_DECLARE_SERVE(Name, Tag, Req, Rep, Type) \
  Result<v1::Rep> Serve(const MethodCall& call, const v1::Req& request);
GANTRY_CONTROLLER_METHODS(GANTRY_DECLARE_SERVE)
#undef GANTRY_DECLARE_SERVE

// The command socket's listing: the same as Serve's, as slices of the kept records.
Status ServeSerialized(const MethodCall& call, const v1::GetJobsRequest& request,
                       wire::Slices* out);

// What sdiag counts a call of `method` as before its request is read.
model::RpcType RpcTypeOf(wire::Method method);

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_METHODS_H_
