// The controller's command socket: the Controller RPCs over the local command protocol
// (wire/frame.h), for the Slurm commands on this host. The same domain calls and the same caller
// identity (the kernel's peer credentials) as the gRPC unix socket, without gRPC's cost to a
// short-lived command.
#ifndef GANTRY_CTLD_COMMAND_SOCKET_H_
#define GANTRY_CTLD_COMMAND_SOCKET_H_

#include <string>
#include <string_view>

#include "base/status.h"
#include "ctld/controller.h"
#include "gantry/v1/controller.pb.h"
#include "wire/frame.h"

namespace gantry::ctld {

// Answers one command-socket request with the method's handler (ctld/methods.h): the
// serialized reply (slices of kept records for a listing), or the controller's error.
// A request that does not parse as the method's message is InvalidArgument.
Result<wire::Slices> HandleCommand(Controller* controller, const std::string& version,
                                   const Caller& caller, wire::Method method,
                                   std::string_view request);

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_COMMAND_SOCKET_H_
