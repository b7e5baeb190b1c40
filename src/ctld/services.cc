#include "ctld/services.h"

#include <ctime>

#include "ctld/methods.h"
#include "rpc/grpc_status.h"
#include "tls/cluster_tls.h"

namespace gantry::ctld {

Result<Caller> Authenticator::Authenticate(const grpc::ServerContext& context,
                                           const google::protobuf::Message& request) const {
  const std::string peer = context.peer();
  if (peer.rfind("fd:", 0) == 0) {
    if (listener_ != nullptr) {
      if (std::optional<rpc::PeerIdentity> who = listener_->Lookup(peer)) {
        return Caller{who->uid, who->gid};
      }
    }
    return PermissionDenied("connection " + peer + " has no recorded peer credentials");
  }
  GANTRY_ASSIGN_OR_RETURN(
      rpc::PeerIdentity who,
      verifier_.Verify(context, rpc::BindCall(request, cluster_name_), std::time(nullptr)));
  return Caller{who.uid, who.gid};
}

Status Authenticator::AuthenticateNode(const grpc::ServerContext& context,
                                       const std::string& node) const {
  const std::optional<std::string> name = tls::PeerName(context);
  if (!name) {
    return PermissionDenied("node " + node +
                            ": the call carries no certificate of the cluster's CA");
  }
  const std::optional<std::string> certified = tls::NodeOfCertName(*name);
  if (certified != node) {
    return PermissionDenied("certificate " + *name + " may not speak for node " + node);
  }
  return Status::Ok();
}

namespace {

// An agent's call about `node`: only that node's certificate may make it; the
// controller then sees the cluster's own daemons (uid 0).
template <typename Body>
grpc::Status FromNode(Controller* controller, const Authenticator* auth,
                      grpc::ServerContext* context, const std::string& node, model::RpcType type,
                      Body body) {
  if (Status s = auth->AuthenticateNode(*context, node); !s.ok()) {
    return {grpc::StatusCode::UNAUTHENTICATED, s.message()};
  }
  DiagStats::Call call(&controller->stats(), type, 0);
  return rpc::ToGrpcStatus(NoThrow("request failed", [&] { return body(Caller{0, 0}); }));
}

// Copies a Result's value into a reply message.
template <typename T>
Status Into(Result<T> result, T* reply) {
  if (!result.ok()) return result.status();
  *reply = std::move(result).value();
  return Status::Ok();
}

}  // namespace

template <typename Request, typename Reply>
grpc::Status ControllerService::Answer(grpc::ServerContext* context, wire::Method method,
                                       const Request& request, Reply* reply) {
  Result<Caller> caller = auth_->Authenticate(*context, request);
  if (!caller.ok()) return {grpc::StatusCode::UNAUTHENTICATED, caller.status().message()};
  DiagStats::Call stats(&controller_->stats(), RpcTypeOf(method), caller->uid);
  const MethodCall call{controller_, *caller, version_, &stats};
  return rpc::ToGrpcStatus(
      NoThrow("request failed", [&] { return Into(Serve(call, request), reply); }));
}

#define GANTRY_DEFINE_RPC(Name, Tag, Req, Rep, Type)                                         \
  grpc::Status ControllerService::Name(grpc::ServerContext* context, const v1::Req* request, \
                                       v1::Rep* reply) {                                     \
    return Answer(context, wire::Method::k##Name, *request, reply);                          \
  }
GANTRY_CONTROLLER_METHODS(GANTRY_DEFINE_RPC)
#undef GANTRY_DEFINE_RPC

grpc::Status NodeLinkService::Register(grpc::ServerContext* context,
                                       const v1::RegisterRequest* request,
                                       v1::RegisterReply* reply) {
  return FromNode(
      controller_, auth_, context, request->node(), model::RpcType::kNodeRegistration,
      [&](const Caller& caller) { return Into(controller_->Register(caller, *request), reply); });
}

grpc::Status NodeLinkService::Heartbeat(grpc::ServerContext* context,
                                        const v1::HeartbeatRequest* request,
                                        v1::HeartbeatReply* reply) {
  return FromNode(
      controller_, auth_, context, request->node(), model::RpcType::kNodeHeartbeat,
      [&](const Caller& caller) { return Into(controller_->Heartbeat(caller, *request), reply); });
}

grpc::Status NodeLinkService::GetHealthSettings(grpc::ServerContext* context,
                                                const v1::GetHealthSettingsRequest* request,
                                                v1::HealthSettings* reply) {
  return FromNode(controller_, auth_, context, request->node(), model::RpcType::kNodeHealth,
                  [&](const Caller& caller) {
                    return Into(controller_->HealthSettings(caller, request->node()), reply);
                  });
}

grpc::Status NodeLinkService::ReportHealth(grpc::ServerContext* context,
                                           const v1::HealthReport* request,
                                           v1::ReportHealthReply* /*reply*/) {
  return FromNode(
      controller_, auth_, context, request->node(), model::RpcType::kNodeHealth,
      [&](const Caller& caller) { return controller_->ReportHealth(caller, *request); });
}

grpc::Status NodeLinkService::ReportJob(grpc::ServerContext* context, const v1::JobReport* request,
                                        v1::JobReportReply* /*reply*/) {
  return FromNode(controller_, auth_, context, request->node(), RpcTypeOf(*request),
                  [&](const Caller& caller) { return controller_->Report(caller, *request); });
}

}  // namespace gantry::ctld
