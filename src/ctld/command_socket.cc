#include "ctld/command_socket.h"

namespace gantry::ctld {
namespace {

template <typename Request>
Result<Request> Parse(std::string_view bytes) {
  Request request;
  if (!request.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument("the request is not a valid " + request.GetTypeName() + " message");
  }
  return request;
}

template <typename Reply>
Result<wire::Slices> Serialized(const Reply& reply) {
  return wire::Slices::Of(reply.SerializeAsString());
}

template <typename Reply>
Result<wire::Slices> Serialized(const Result<Reply>& reply) {
  if (!reply.ok()) return reply.status();
  return Serialized(*reply);
}

// The type a call counts as before its request is read.
model::RpcType RpcTypeOf(wire::Method method) {
  switch (method) {
    case wire::Method::kPing:
      return model::RpcType::kPing;
    case wire::Method::kSubmitJob:
      return model::RpcType::kSubmitBatchJob;
    case wire::Method::kSignalJob:
      return model::RpcType::kKillJob;
    case wire::Method::kUpdateJob:
      return model::RpcType::kUpdateJob;
    case wire::Method::kJobStep:
      return model::RpcType::kJobStepCreate;
    case wire::Method::kGetJobs:
      return model::RpcType::kJobInfo;
    case wire::Method::kGetNodes:
      return model::RpcType::kNodeInfo;
    case wire::Method::kUpdateNode:
      return model::RpcType::kUpdateNode;
    case wire::Method::kUpdatePartition:
      return model::RpcType::kUpdatePartition;
    case wire::Method::kGetAccounting:
      return model::RpcType::kGetAccounting;
    case wire::Method::kUpdateAccounting:
      return model::RpcType::kUpdateAccounting;
    case wire::Method::kGetPriorities:
      return model::RpcType::kPriorityFactors;
    case wire::Method::kGetStats:
      return model::RpcType::kStatsInfo;
    case wire::Method::kGetJobScript:
      return model::RpcType::kBatchScript;
    case wire::Method::kGetConfig:
      break;
  }
  return model::RpcType::kBuildInfo;
}

}  // namespace

v1::PingReply MakePingReply(Controller* controller, const Caller& caller,
                            const std::string& version) {
  v1::GetConfigReply config;
  controller->GetConfig(&config);
  v1::PingReply reply;
  reply.set_cluster_name(config.cluster_name());
  reply.set_version(version);
  reply.set_caller_uid(caller.uid);
  reply.set_caller_gid(caller.gid);
  return reply;
}

Result<wire::Slices> HandleCommand(Controller* controller, const std::string& version,
                                   const Caller& caller, wire::Method method,
                                   std::string_view request) {
  DiagStats::Call call(&controller->stats(), RpcTypeOf(method), caller.uid);
  switch (method) {
    case wire::Method::kPing:
      return Serialized(MakePingReply(controller, caller, version));
    case wire::Method::kSubmitJob: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::SubmitJobRequest>(request));
      return Serialized(controller->Submit(caller, r));
    }
    case wire::Method::kSignalJob: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::SignalJobRequest>(request));
      return Serialized(controller->Signal(caller, r));
    }
    case wire::Method::kUpdateJob: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::UpdateJobRequest>(request));
      return Serialized(controller->UpdateJob(caller, r));
    }
    case wire::Method::kJobStep: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::JobStepRequest>(request));
      call.set_type(RpcTypeOf(r));
      return Serialized(controller->JobStep(caller, r));
    }
    case wire::Method::kGetJobs: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::GetJobsRequest>(request));
      call.set_type(RpcTypeOf(r));
      wire::Slices reply;
      GANTRY_RETURN_IF_ERROR(controller->GetJobsSerialized(r, &reply));
      return reply;
    }
    case wire::Method::kGetNodes: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::GetNodesRequest>(request));
      v1::GetNodesReply reply;
      controller->GetNodes(r, &reply);
      return Serialized(reply);
    }
    case wire::Method::kUpdateNode: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::UpdateNodeRequest>(request));
      GANTRY_RETURN_IF_ERROR(controller->UpdateNode(caller, r));
      return Serialized(v1::UpdateNodeReply());
    }
    case wire::Method::kUpdatePartition: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::UpdatePartitionRequest>(request));
      GANTRY_RETURN_IF_ERROR(controller->UpdatePartition(caller, r));
      return Serialized(v1::UpdatePartitionReply());
    }
    case wire::Method::kGetAccounting:
      return Serialized(controller->GetAccounting());
    case wire::Method::kGetPriorities: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::GetPrioritiesRequest>(request));
      call.set_type(RpcTypeOf(r));
      return Serialized(controller->GetPriorities(r));
    }
    case wire::Method::kUpdateAccounting: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::UpdateAccountingRequest>(request));
      return Serialized(controller->UpdateAccounting(caller, r));
    }
    case wire::Method::kGetStats: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::GetStatsRequest>(request));
      return Serialized(controller->GetStats(caller, r, &call));
    }
    case wire::Method::kGetConfig: {
      v1::GetConfigReply reply;
      controller->GetConfig(&reply);
      return Serialized(reply);
    }
    case wire::Method::kGetJobScript: {
      GANTRY_ASSIGN_OR_RETURN(auto r, Parse<v1::GetJobScriptRequest>(request));
      return Serialized(controller->GetJobScript(caller, r));
    }
  }
  return InvalidArgument("unknown method " + std::to_string(static_cast<int>(method)));
}

}  // namespace gantry::ctld
