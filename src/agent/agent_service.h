// The Agent gRPC service (proto/gantry/v1/agent.proto) on top of a JobManager.
//
// An agent obeys only its controller: every call must come over mutual TLS with the controller's
// certificate from the cluster's CA (tls/cluster_tls.h; the server already refuses a client
// without a certificate of that CA). A certificate of that CA with another name (another node's)
// gets PERMISSION_DENIED.
// Requests are then validated (request_check.h): INVALID_ARGUMENT naming the field. Manager
// errors map to FAILED_PRECONDITION, NOT_FOUND and UNAVAILABLE.
//
// Thread-safe (gRPC calls handlers concurrently).
#ifndef GANTRY_AGENT_AGENT_SERVICE_H_
#define GANTRY_AGENT_AGENT_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "agent/job_manager.h"
#include "base/status.h"
#include "gantry/v1/agent.grpc.pb.h"

namespace gantry::agent {

class AgentService final : public gantry::v1::Agent::Service {
 public:
  // `manager` must outlive the service.
  explicit AgentService(JobManager* manager);

  grpc::Status PrepareJob(grpc::ServerContext* context,
                          const gantry::v1::PrepareJobRequest* request,
                          gantry::v1::AgentReply* reply) override;
  grpc::Status LaunchBatch(grpc::ServerContext* context,
                           const gantry::v1::LaunchBatchRequest* request,
                           gantry::v1::AgentReply* reply) override;
  grpc::Status SignalJob(grpc::ServerContext* context,
                         const gantry::v1::SignalJobOnNodeRequest* request,
                         gantry::v1::AgentReply* reply) override;
  grpc::Status TerminateJob(grpc::ServerContext* context,
                            const gantry::v1::TerminateJobRequest* request,
                            gantry::v1::AgentReply* reply) override;
  grpc::Status LaunchTasks(grpc::ServerContext* context,
                           const gantry::v1::LaunchTasksRequest* request,
                           gantry::v1::AgentReply* reply) override;
  grpc::Status Ping(grpc::ServerContext* context, const gantry::v1::AgentPingRequest* request,
                    gantry::v1::AgentPingReply* reply) override;

 private:
  grpc::Status Authorize(const grpc::ServerContext& context, const char* method) const;

  JobManager* const manager_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_AGENT_SERVICE_H_
