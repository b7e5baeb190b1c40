#include "ctld/methods.h"

namespace gantry::ctld {

model::RpcType RpcTypeOf(wire::Method method) {
  switch (method) {
#define GANTRY_METHOD_TYPE(Name, Tag, Req, Rep, Type) \
  case wire::Method::k##Name:                         \
    return model::RpcType::Type;
    GANTRY_CONTROLLER_METHODS(GANTRY_METHOD_TYPE)
#undef GANTRY_METHOD_TYPE
    case wire::Method::kAsUser:  // counted as the call it carries
      break;
  }
  return model::RpcType::kBuildInfo;
}

Result<v1::PingReply> Serve(const MethodCall& call, const v1::PingRequest& /*request*/) {
  v1::GetConfigReply config;
  call.controller->GetConfig(&config);
  v1::PingReply reply;
  reply.set_cluster_name(config.cluster_name());
  reply.set_version(call.version);
  reply.set_caller_uid(call.caller.uid);
  reply.set_caller_gid(call.caller.gid);
  if (!call.controller->replica_name().empty()) {
    reply.set_controller_name(call.controller->replica_name());
    reply.set_role("leader");
    reply.set_leader(call.controller->replica_holder());
  }
  return reply;
}

Result<v1::SubmitJobReply> Serve(const MethodCall& call, const v1::SubmitJobRequest& request) {
  return call.controller->Submit(call.caller, request);
}

Result<v1::SignalJobReply> Serve(const MethodCall& call, const v1::SignalJobRequest& request) {
  return call.controller->Signal(call.caller, request);
}

Result<v1::UpdateJobReply> Serve(const MethodCall& call, const v1::UpdateJobRequest& request) {
  return call.controller->UpdateJob(call.caller, request);
}

Result<v1::GetJobsReply> Serve(const MethodCall& call, const v1::GetJobsRequest& request) {
  call.stats->set_type(RpcTypeOf(request));
  v1::GetJobsReply reply;
  GANTRY_RETURN_IF_ERROR(call.controller->GetJobs(request, &reply));
  return reply;
}

Status ServeSerialized(const MethodCall& call, const v1::GetJobsRequest& request,
                       wire::Slices* out) {
  call.stats->set_type(RpcTypeOf(request));
  return call.controller->GetJobsSerialized(request, out);
}

Result<v1::GetNodesReply> Serve(const MethodCall& call, const v1::GetNodesRequest& request) {
  v1::GetNodesReply reply;
  call.controller->GetNodes(request, &reply);
  return reply;
}

Result<v1::UpdateNodeReply> Serve(const MethodCall& call, const v1::UpdateNodeRequest& request) {
  GANTRY_RETURN_IF_ERROR(call.controller->UpdateNode(call.caller, request));
  return v1::UpdateNodeReply();
}

Result<v1::GetConfigReply> Serve(const MethodCall& call, const v1::GetConfigRequest& /*request*/) {
  v1::GetConfigReply reply;
  call.controller->GetConfig(&reply);
  return reply;
}

Result<v1::JobStepReply> Serve(const MethodCall& call, const v1::JobStepRequest& request) {
  call.stats->set_type(RpcTypeOf(request));
  return call.controller->JobStep(call.caller, request);
}

Result<v1::UpdatePartitionReply> Serve(const MethodCall& call,
                                       const v1::UpdatePartitionRequest& request) {
  GANTRY_RETURN_IF_ERROR(call.controller->UpdatePartition(call.caller, request));
  return v1::UpdatePartitionReply();
}

Result<v1::AccountingDb> Serve(const MethodCall& call,
                               const v1::GetAccountingRequest& /*request*/) {
  return call.controller->GetAccounting();
}

Result<v1::UpdateAccountingReply> Serve(const MethodCall& call,
                                        const v1::UpdateAccountingRequest& request) {
  return call.controller->UpdateAccounting(call.caller, request);
}

Result<v1::GetPrioritiesReply> Serve(const MethodCall& call,
                                     const v1::GetPrioritiesRequest& request) {
  call.stats->set_type(RpcTypeOf(request));
  return call.controller->GetPriorities(request);
}

Result<v1::GetStatsReply> Serve(const MethodCall& call, const v1::GetStatsRequest& request) {
  return call.controller->GetStats(call.caller, request, call.stats);
}

Result<v1::GetJobScriptReply> Serve(const MethodCall& call,
                                    const v1::GetJobScriptRequest& request) {
  return call.controller->GetJobScript(call.caller, request);
}

Result<v1::IssueTokenReply> Serve(const MethodCall& call, const v1::IssueTokenRequest& request) {
  return call.controller->tokens().Issue(call.caller.uid, request);
}

Result<v1::TakeoverReply> Serve(const MethodCall& call, const v1::TakeoverRequest& request) {
  GANTRY_RETURN_IF_ERROR(call.controller->Takeover(call.caller, request.to()));
  return v1::TakeoverReply();
}

}  // namespace gantry::ctld
