#include "slurm/controller_client.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "slurm/slurm_errors.h"

namespace gantry::slurm {

Status FromGrpcStatus(const grpc::Status& status) {
  const std::string& message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::UNAVAILABLE:
      return Unavailable(kConnectFailure);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Unavailable(kSocketTimeout);
    case grpc::StatusCode::UNAUTHENTICATED:
      return PermissionDenied(kAuthFailure);
    case grpc::StatusCode::UNIMPLEMENTED:
      return Internal(kUnexpectedMessage);
    case grpc::StatusCode::INVALID_ARGUMENT:
      return InvalidArgument(message);
    case grpc::StatusCode::NOT_FOUND:
      return NotFound(message);
    case grpc::StatusCode::ALREADY_EXISTS:
      return AlreadyExists(message);
    case grpc::StatusCode::PERMISSION_DENIED:
      return PermissionDenied(message.empty() ? std::string(kAccessDenied) : message);
    case grpc::StatusCode::FAILED_PRECONDITION:
      return FailedPrecondition(message);
    case grpc::StatusCode::OUT_OF_RANGE:
      return OutOfRange(message);
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return ResourceExhausted(message);
    default:
      return Internal(message.empty() ? std::string(kUnexpectedMessage) : message);
  }
}

Result<std::unique_ptr<ControllerClient>> ControllerClient::Connect(const ClientConfig& config) {
  Result<Endpoint> endpoint = ResolveEndpoint(config);
  if (!endpoint.ok()) return Unavailable(kConnectFailure);
  std::optional<rpc::ClusterKey> key;
  if (!endpoint->local && !config.key_file.empty()) {
    Result<rpc::ClusterKey> loaded = rpc::LoadClusterKey(config.key_file);
    if (loaded.ok()) key = std::move(loaded).value();
  }
  grpc::ChannelArguments args;
  // A controller restart must not leave commands waiting out a long reconnect backoff.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  // squeue of a 100k-job queue is ~12 MB: no limit on what the controller may send.
  args.SetMaxReceiveMessageSize(-1);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(endpoint->target, grpc::InsecureChannelCredentials(), args);
  const bool use_munge = !endpoint->local && !key.has_value();
  return std::make_unique<ControllerClient>(std::move(channel), endpoint->host, std::move(key),
                                            use_munge);
}

ControllerClient::ControllerClient(std::shared_ptr<grpc::Channel> channel,
                                   std::string controller_host, std::optional<rpc::ClusterKey> key,
                                   bool use_munge)
    : stub_(v1::Controller::NewStub(std::move(channel))),
      controller_host_(std::move(controller_host)),
      key_(std::move(key)),
      use_munge_(use_munge) {}

void ControllerClient::Prepare(grpc::ClientContext* context) const {
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds));
  if (key_.has_value()) {
    rpc::AttachCredential(context, *key_);
  } else if (use_munge_) {
    // Without munged the call goes out bare and the controller refuses it, which reads as
    // "Protocol authentication error".
    (void)rpc::AttachMungeCredential(context);
  }
}

template <typename Reply, typename Request, typename Method>
Result<Reply> ControllerClient::Call(const Request& request, Method method) {
  grpc::ClientContext context;
  Prepare(&context);
  Reply reply;
  const grpc::Status status = ((*stub_).*method)(&context, request, &reply);
  if (!status.ok()) return FromGrpcStatus(status);
  return reply;
}

Result<v1::PingReply> ControllerClient::Ping() {
  return Call<v1::PingReply>(v1::PingRequest(), &v1::Controller::Stub::Ping);
}
Result<v1::SubmitJobReply> ControllerClient::SubmitJob(const v1::SubmitJobRequest& request) {
  return Call<v1::SubmitJobReply>(request, &v1::Controller::Stub::SubmitJob);
}
Result<v1::SignalJobReply> ControllerClient::SignalJob(const v1::SignalJobRequest& request) {
  return Call<v1::SignalJobReply>(request, &v1::Controller::Stub::SignalJob);
}
Result<v1::UpdateJobReply> ControllerClient::UpdateJob(const v1::UpdateJobRequest& request) {
  return Call<v1::UpdateJobReply>(request, &v1::Controller::Stub::UpdateJob);
}
Result<v1::GetJobsReply> ControllerClient::GetJobs(const v1::GetJobsRequest& request) {
  return Call<v1::GetJobsReply>(request, &v1::Controller::Stub::GetJobs);
}
Result<v1::GetNodesReply> ControllerClient::GetNodes(const v1::GetNodesRequest& request) {
  return Call<v1::GetNodesReply>(request, &v1::Controller::Stub::GetNodes);
}
Result<v1::UpdateNodeReply> ControllerClient::UpdateNode(const v1::UpdateNodeRequest& request) {
  return Call<v1::UpdateNodeReply>(request, &v1::Controller::Stub::UpdateNode);
}
Result<v1::GetConfigReply> ControllerClient::GetConfig(const v1::GetConfigRequest& request) {
  return Call<v1::GetConfigReply>(request, &v1::Controller::Stub::GetConfig);
}

}  // namespace gantry::slurm
