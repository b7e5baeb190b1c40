#include "ctld/services.h"

#include <ctime>

#include "ctld/command_socket.h"
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

// Runs `body(caller)` for an authenticated caller, counted in sdiag's statistics as a call of
// `type`, mapping errors.
template <typename Body>
grpc::Status Authenticated(Controller* controller, const Authenticator* auth,
                           grpc::ServerContext* context, const google::protobuf::Message& request,
                           model::RpcType type, Body body) {
  Result<Caller> caller = auth->Authenticate(*context, request);
  if (!caller.ok()) return {grpc::StatusCode::UNAUTHENTICATED, caller.status().message()};
  DiagStats::Call call(&controller->stats(), type, caller->uid);
  return rpc::ToGrpcStatus(NoThrow("request failed", [&] { return body(*caller); }));
}

// The same for an agent's call about `node`: only that node's certificate may make it; the
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

grpc::Status ControllerService::Ping(grpc::ServerContext* context, const v1::PingRequest* request,
                                     v1::PingReply* reply) {
  return Authenticated(controller_, auth_, context, *request, model::RpcType::kPing,
                       [&](const Caller& caller) {
                         *reply = MakePingReply(controller_, caller, version_);
                         return Status::Ok();
                       });
}

grpc::Status ControllerService::SubmitJob(grpc::ServerContext* context,
                                          const v1::SubmitJobRequest* request,
                                          v1::SubmitJobReply* reply) {
  return Authenticated(
      controller_, auth_, context, *request, model::RpcType::kSubmitBatchJob,
      [&](const Caller& caller) { return Into(controller_->Submit(caller, *request), reply); });
}

grpc::Status ControllerService::SignalJob(grpc::ServerContext* context,
                                          const v1::SignalJobRequest* request,
                                          v1::SignalJobReply* reply) {
  return Authenticated(
      controller_, auth_, context, *request, model::RpcType::kKillJob,
      [&](const Caller& caller) { return Into(controller_->Signal(caller, *request), reply); });
}

grpc::Status ControllerService::UpdateJob(grpc::ServerContext* context,
                                          const v1::UpdateJobRequest* request,
                                          v1::UpdateJobReply* reply) {
  return Authenticated(
      controller_, auth_, context, *request, model::RpcType::kUpdateJob,
      [&](const Caller& caller) { return Into(controller_->UpdateJob(caller, *request), reply); });
}

grpc::Status ControllerService::GetJobs(grpc::ServerContext* context,
                                        const v1::GetJobsRequest* request,
                                        v1::GetJobsReply* reply) {
  return Authenticated(controller_, auth_, context, *request, RpcTypeOf(*request),
                       [&](const Caller&) { return controller_->GetJobs(*request, reply); });
}

grpc::Status ControllerService::GetNodes(grpc::ServerContext* context,
                                         const v1::GetNodesRequest* request,
                                         v1::GetNodesReply* reply) {
  return Authenticated(controller_, auth_, context, *request, model::RpcType::kNodeInfo,
                       [&](const Caller&) {
                         controller_->GetNodes(*request, reply);
                         return Status::Ok();
                       });
}

grpc::Status ControllerService::UpdateNode(grpc::ServerContext* context,
                                           const v1::UpdateNodeRequest* request,
                                           v1::UpdateNodeReply* /*reply*/) {
  return Authenticated(
      controller_, auth_, context, *request, model::RpcType::kUpdateNode,
      [&](const Caller& caller) { return controller_->UpdateNode(caller, *request); });
}

grpc::Status ControllerService::JobStep(grpc::ServerContext* context,
                                        const v1::JobStepRequest* request,
                                        v1::JobStepReply* reply) {
  return Authenticated(
      controller_, auth_, context, *request, RpcTypeOf(*request),
      [&](const Caller& caller) { return Into(controller_->JobStep(caller, *request), reply); });
}

grpc::Status ControllerService::UpdatePartition(grpc::ServerContext* context,
                                                const v1::UpdatePartitionRequest* request,
                                                v1::UpdatePartitionReply* /*reply*/) {
  return Authenticated(
      controller_, auth_, context, *request, model::RpcType::kUpdatePartition,
      [&](const Caller& caller) { return controller_->UpdatePartition(caller, *request); });
}

grpc::Status ControllerService::GetConfig(grpc::ServerContext* context,
                                          const v1::GetConfigRequest* request,
                                          v1::GetConfigReply* reply) {
  return Authenticated(controller_, auth_, context, *request, model::RpcType::kBuildInfo,
                       [&](const Caller&) {
                         controller_->GetConfig(reply);
                         return Status::Ok();
                       });
}

grpc::Status ControllerService::GetAccounting(grpc::ServerContext* context,
                                              const v1::GetAccountingRequest* request,
                                              v1::AccountingDb* reply) {
  return Authenticated(controller_, auth_, context, *request, model::RpcType::kGetAccounting,
                       [&](const Caller&) {
                         *reply = controller_->GetAccounting();
                         return Status::Ok();
                       });
}

grpc::Status ControllerService::GetPriorities(grpc::ServerContext* context,
                                              const v1::GetPrioritiesRequest* request,
                                              v1::GetPrioritiesReply* reply) {
  return Authenticated(controller_, auth_, context, *request, RpcTypeOf(*request),
                       [&](const Caller&) {
                         *reply = controller_->GetPriorities(*request);
                         return Status::Ok();
                       });
}

grpc::Status ControllerService::UpdateAccounting(grpc::ServerContext* context,
                                                 const v1::UpdateAccountingRequest* request,
                                                 v1::UpdateAccountingReply* reply) {
  return Authenticated(controller_, auth_, context, *request, model::RpcType::kUpdateAccounting,
                       [&](const Caller& caller) {
                         return Into(controller_->UpdateAccounting(caller, *request), reply);
                       });
}

grpc::Status ControllerService::GetStats(grpc::ServerContext* context,
                                         const v1::GetStatsRequest* request,
                                         v1::GetStatsReply* reply) {
  Result<Caller> caller = auth_->Authenticate(*context, *request);
  if (!caller.ok()) return {grpc::StatusCode::UNAUTHENTICATED, caller.status().message()};
  DiagStats::Call call(&controller_->stats(), model::RpcType::kStatsInfo, caller->uid);
  return rpc::ToGrpcStatus(NoThrow("request failed", [&] {
    return Into(controller_->GetStats(*caller, *request, &call), reply);
  }));
}

grpc::Status ControllerService::GetJobScript(grpc::ServerContext* context,
                                             const v1::GetJobScriptRequest* request,
                                             v1::GetJobScriptReply* reply) {
  return Authenticated(controller_, auth_, context, *request, model::RpcType::kBatchScript,
                       [&](const Caller& caller) {
                         return Into(controller_->GetJobScript(caller, *request), reply);
                       });
}

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

grpc::Status NodeLinkService::ReportJob(grpc::ServerContext* context, const v1::JobReport* request,
                                        v1::JobReportReply* /*reply*/) {
  return FromNode(controller_, auth_, context, request->node(), RpcTypeOf(*request),
                  [&](const Caller& caller) { return controller_->Report(caller, *request); });
}

}  // namespace gantry::ctld
