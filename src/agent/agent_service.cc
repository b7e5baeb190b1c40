#include "agent/agent_service.h"

#include <string>

#include "agent/log.h"
#include "agent/request_check.h"
#include "rpc/grpc_status.h"
#include "tls/cluster_tls.h"

namespace gantry::agent {

using rpc::ToGrpcStatus;

AgentService::AgentService(JobManager* manager) : manager_(manager) {}

grpc::Status AgentService::Authorize(const grpc::ServerContext& context, const char* method) const {
  const std::optional<std::string> peer = tls::PeerName(context);
  if (peer != tls::kControllerName) {
    const std::string message =
        peer ? "certificate " + *peer + " is not the controller's (" + tls::kControllerName + ")"
             : "the call carries no certificate of the cluster's CA";
    Log(std::string(method) + " refused from " + context.peer() + ": " + message);
    return {grpc::StatusCode::PERMISSION_DENIED, message};
  }
  return grpc::Status::OK;
}

grpc::Status AgentService::PrepareJob(grpc::ServerContext* context,
                                      const gantry::v1::PrepareJobRequest* request,
                                      gantry::v1::AgentReply* /*reply*/) {
  if (grpc::Status auth = Authorize(*context, "PrepareJob"); !auth.ok()) return auth;
  if (Status valid = CheckPrepareJob(*request, manager_->node()); !valid.ok()) {
    Log("PrepareJob refused: " + valid.message());
    return ToGrpcStatus(valid);
  }
  return ToGrpcStatus(manager_->PrepareJob(request->context()));
}

grpc::Status AgentService::LaunchBatch(grpc::ServerContext* context,
                                       const gantry::v1::LaunchBatchRequest* request,
                                       gantry::v1::AgentReply* /*reply*/) {
  if (grpc::Status auth = Authorize(*context, "LaunchBatch"); !auth.ok()) return auth;
  if (Status valid = CheckLaunchBatch(*request, manager_->node()); !valid.ok()) {
    Log("LaunchBatch refused: " + valid.message());
    return ToGrpcStatus(valid);
  }
  return ToGrpcStatus(manager_->LaunchBatch(request->context(), request->payload()));
}

grpc::Status AgentService::SignalJob(grpc::ServerContext* context,
                                     const gantry::v1::SignalJobOnNodeRequest* request,
                                     gantry::v1::AgentReply* /*reply*/) {
  if (grpc::Status auth = Authorize(*context, "SignalJob"); !auth.ok()) return auth;
  if (Status valid = CheckSignalJob(*request); !valid.ok()) {
    Log("SignalJob refused: " + valid.message());
    return ToGrpcStatus(valid);
  }
  return ToGrpcStatus(manager_->SignalJob(request->job_id(), request->epoch(), request->signal(),
                                          request->scope()));
}

grpc::Status AgentService::TerminateJob(grpc::ServerContext* context,
                                        const gantry::v1::TerminateJobRequest* request,
                                        gantry::v1::AgentReply* /*reply*/) {
  if (grpc::Status auth = Authorize(*context, "TerminateJob"); !auth.ok()) return auth;
  if (Status valid = CheckTerminateJob(*request); !valid.ok()) {
    Log("TerminateJob refused: " + valid.message());
    return ToGrpcStatus(valid);
  }
  return ToGrpcStatus(manager_->TerminateJob(request->job_id(), request->epoch(),
                                             request->kill_wait_sec(), request->context()));
}

grpc::Status AgentService::LaunchTasks(grpc::ServerContext* context,
                                       const gantry::v1::LaunchTasksRequest* request,
                                       gantry::v1::AgentReply* /*reply*/) {
  if (grpc::Status auth = Authorize(*context, "LaunchTasks"); !auth.ok()) return auth;
  if (Status valid = CheckLaunchTasks(*request, manager_->node()); !valid.ok()) {
    Log("LaunchTasks refused: " + valid.message());
    return ToGrpcStatus(valid);
  }
  return ToGrpcStatus(manager_->LaunchTasks(*request));
}

grpc::Status AgentService::Ping(grpc::ServerContext* context,
                                const gantry::v1::AgentPingRequest* /*request*/,
                                gantry::v1::AgentPingReply* reply) {
  if (grpc::Status auth = Authorize(*context, "Ping"); !auth.ok()) return auth;
  reply->set_node(manager_->node());
  for (uint32_t id : manager_->JobIds()) reply->add_job_ids(id);
  return grpc::Status::OK;
}

}  // namespace gantry::agent
