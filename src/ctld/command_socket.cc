#include "ctld/command_socket.h"

#include <optional>
#include <type_traits>

#include "ctld/methods.h"

namespace gantry::ctld {
namespace {

// Parses the request as `Request` and answers it with the method's handler.
template <typename Request>
Result<wire::Slices> Dispatch(const MethodCall& call, std::string_view bytes) {
  Request request;
  if (!request.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument("the request is not a valid " + request.GetTypeName() + " message");
  }
  if constexpr (std::is_same_v<Request, v1::GetJobsRequest>) {
    wire::Slices reply;  // the kept records, not copied into a reply message
    GANTRY_RETURN_IF_ERROR(ServeSerialized(call, request, &reply));
    return reply;
  } else {
    GANTRY_ASSIGN_OR_RETURN(auto reply, Serve(call, request));
    return wire::Slices::Of(reply.SerializeAsString());
  }
}

}  // namespace

Result<wire::Slices> HandleCommand(Controller* controller, const std::string& version,
                                   const Caller& caller, wire::Method method,
                                   std::string_view request) {
  if (method == wire::Method::kAsUser) {
    v1::AsUserRequest envelope;
    if (!envelope.ParseFromArray(request.data(), static_cast<int>(request.size()))) {
      return InvalidArgument("the request is not a valid " + envelope.GetTypeName() + " message");
    }
    const std::optional<wire::Method> inner =
        envelope.method() <= 255 ? wire::MethodFromTag(static_cast<uint8_t>(envelope.method()))
                                 : std::nullopt;
    if (!inner || *inner == wire::Method::kAsUser) {
      return InvalidArgument("AsUser: method " + std::to_string(envelope.method()) +
                             " is not a controller method");
    }
    GANTRY_ASSIGN_OR_RETURN(TokenUser holder,
                            controller->tokens().Holder(envelope.token(), envelope.user_name()));
    return HandleCommand(controller, version, Caller{holder.uid, holder.gid}, *inner,
                         envelope.request());
  }
  DiagStats::Call stats(&controller->stats(), RpcTypeOf(method), caller.uid);
  const MethodCall call{controller, caller, version, &stats};
  switch (method) {
#define GANTRY_DISPATCH(Name, Tag, Req, Rep, Type) \
  case wire::Method::k##Name:                      \
    return Dispatch<v1::Req>(call, request);
    GANTRY_CONTROLLER_METHODS(GANTRY_DISPATCH)
#undef GANTRY_DISPATCH
    case wire::Method::kAsUser:  // answered above
      break;
  }
  return InvalidArgument("unknown method " + std::to_string(static_cast<int>(method)));
}

}  // namespace gantry::ctld
