#include "cluster/controller_client.h"

#include <grpcpp/grpcpp.h>
#include <sys/un.h>

#include <memory>

#include "gantry/v1/controller.grpc.pb.h"

namespace gantry::cluster {

namespace {

constexpr char kUnimplementedPrefix[] = "not implemented by the controller: ";

Result<std::unique_ptr<v1::Controller::Stub>> Connect(const std::string& socket_path) {
  if (socket_path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return InvalidArgument("the controller socket path " + socket_path + " is longer than " +
                           std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) +
                           " bytes (a unix socket limit); use a shorter --state-dir");
  }
  auto channel = grpc::CreateChannel("unix:" + socket_path, grpc::InsecureChannelCredentials());
  return v1::Controller::NewStub(channel);
}

Status FromGrpc(const grpc::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  const std::string message = what + ": " + s.error_message();
  switch (s.error_code()) {
    case grpc::StatusCode::UNIMPLEMENTED:
      return FailedPrecondition(kUnimplementedPrefix + message);
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
      return PermissionDenied(message);
    case grpc::StatusCode::INVALID_ARGUMENT:
      return InvalidArgument(message);
    case grpc::StatusCode::NOT_FOUND:
      return NotFound(message);
    default:
      return Unavailable(message);
  }
}

void SetDeadline(grpc::ClientContext* context, std::chrono::milliseconds timeout) {
  context->set_deadline(std::chrono::system_clock::now() + timeout);
}

}  // namespace

Result<v1::PingReply> PingController(const std::string& socket_path,
                                     std::chrono::milliseconds timeout) {
  GANTRY_ASSIGN_OR_RETURN(std::unique_ptr<v1::Controller::Stub> stub, Connect(socket_path));
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::PingReply reply;
  GANTRY_RETURN_IF_ERROR(FromGrpc(stub->Ping(&context, v1::PingRequest(), &reply), "Ping"));
  return reply;
}

Result<v1::GetNodesReply> GetControllerNodes(const std::string& socket_path,
                                             std::chrono::milliseconds timeout) {
  GANTRY_ASSIGN_OR_RETURN(std::unique_ptr<v1::Controller::Stub> stub, Connect(socket_path));
  grpc::ClientContext context;
  SetDeadline(&context, timeout);
  v1::GetNodesReply reply;
  GANTRY_RETURN_IF_ERROR(
      FromGrpc(stub->GetNodes(&context, v1::GetNodesRequest(), &reply), "GetNodes"));
  return reply;
}

bool IsUnimplemented(const Status& status) {
  return status.code() == StatusCode::kFailedPrecondition &&
         status.message().starts_with(kUnimplementedPrefix);
}

}  // namespace gantry::cluster
