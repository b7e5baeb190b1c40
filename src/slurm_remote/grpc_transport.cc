#include "slurm_remote/grpc_transport.h"

#include <chrono>
#include <cstdio>

#include "gantry/v1/controller.grpc.pb.h"
#include "model/standby.h"
#include "slurm/slurm_errors.h"
#include "tls/cluster_tls.h"

namespace gantry::slurm {
namespace {

class Transport final : public ControllerTransport {
 public:
  Transport(std::shared_ptr<grpc::Channel> channel, std::optional<rpc::ClusterKey> key,
            bool use_munge, std::string cluster)
      : stub_(v1::Controller::NewStub(std::move(channel))),
        key_(std::move(key)),
        use_munge_(use_munge),
        cluster_(std::move(cluster)) {}

  Result<std::string> Call(wire::Method method, const std::string& request,
                           int timeout_seconds) override {
    using Stub = v1::Controller::Stub;
    switch (method) {
#define GANTRY_FORWARD(Name, Tag, Req, Rep, Type) \
  case wire::Method::k##Name:                     \
    return Forward<v1::Req, v1::Rep>(request, timeout_seconds, &Stub::Name);
      GANTRY_CONTROLLER_METHODS(GANTRY_FORWARD)
#undef GANTRY_FORWARD
      case wire::Method::kAsUser:  // the command socket's only
        break;
    }
    return Internal(kUnexpectedMessage);
  }

 private:
  template <typename Request, typename Reply, typename Method>
  Result<std::string> Forward(const std::string& bytes, int timeout_seconds, Method method) {
    Request request;
    if (!request.ParseFromString(bytes)) return Internal(kUnexpectedMessage);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(timeout_seconds));
    if (key_.has_value()) {
      rpc::AttachCredential(&context, *key_, rpc::BindCall(request, cluster_));
    } else if (use_munge_) {
      // Without munged the call goes out bare and the controller refuses it, which reads as
      // "Protocol authentication error".
      (void)rpc::AttachMungeCredential(&context, rpc::BindCall(request, cluster_));
    }
    Reply reply;
    const grpc::Status status = ((*stub_).*method)(&context, request, &reply);
    // gRPC's texts for a connection that was never made (not one lost during the call).
    const std::string& text = status.error_message();
    unsent_ = status.error_code() == grpc::StatusCode::UNAVAILABLE &&
              (text.find("failed to connect") != std::string::npos ||
               text.find("Connection refused") != std::string::npos ||
               text.find("connections to all backends failing") != std::string::npos);
    if (!status.ok()) return FromGrpcStatus(status);
    return reply.SerializeAsString();
  }

 public:
  bool last_call_unsent() const override { return unsent_; }

 private:
  bool unsent_ = false;

  std::unique_ptr<v1::Controller::Stub> stub_;
  std::optional<rpc::ClusterKey> key_;
  bool use_munge_ = false;
  std::string cluster_;  // the audience of credentials
};

Result<std::unique_ptr<ControllerTransport>> ConnectGrpc(const ClientConfig& config,
                                                         const Endpoint& endpoint) {
  std::optional<rpc::ClusterKey> key;
  if (!endpoint.local && !config.key_file.empty()) {
    Result<rpc::ClusterKey> loaded = rpc::LoadClusterKey(config.key_file);
    if (loaded.ok()) key = std::move(loaded).value();
  }
  grpc::ChannelArguments args;
  // A controller restart must not leave commands waiting out a long reconnect backoff.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  // gRPC gives a connection attempt at least this long: a controller whose host is cut off
  // fails the call within a second, and a replicated cluster's commands move on to the next.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
  // squeue of a 100k-job queue is ~12 MB: no limit on what the controller may send.
  args.SetMaxReceiveMessageSize(-1);
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!endpoint.local) {
    // Across hosts only TLS, trusting only the cluster's CA and the controller's name in it.
    Result<std::string> ca = tls::LoadAuthority(config.ca_file);
    if (config.ca_file.empty() || !ca.ok()) {
      std::fprintf(stderr, "%s: CaFile%s%s\n", config.path.c_str(),
                   config.ca_file.empty() ? " is not set" : ": ",
                   config.ca_file.empty() ? "" : ca.status().message().c_str());
      return Unavailable(kConnectFailure);
    }
    credentials = tls::ChannelCredentials(*ca, nullptr);
    tls::ExpectServerName(&args, tls::kControllerName);
  }
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(endpoint.target, credentials, args);
  const bool use_munge = !endpoint.local && !key.has_value();
  return GrpcTransport(std::move(channel), std::move(key), use_munge, config.cluster_name);
}

}  // namespace

void UseGrpcForRemoteControllers() { SetRemoteConnector(ConnectGrpc); }

std::unique_ptr<ControllerTransport> GrpcTransport(std::shared_ptr<grpc::Channel> channel,
                                                   std::optional<rpc::ClusterKey> key,
                                                   bool use_munge, std::string cluster) {
  return std::make_unique<Transport>(std::move(channel), std::move(key), use_munge,
                                     std::move(cluster));
}

Status FromGrpcStatus(const grpc::Status& status) {
  const std::string& message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::UNAVAILABLE:  // a standby replica's refusal keeps its text
      return Unavailable(model::IsStandbyRefusal(message) ? message : kConnectFailure);
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

}  // namespace gantry::slurm
