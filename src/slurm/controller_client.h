// The Slurm commands' connection to gantryd's Controller service.
//
// Every call returns the reply or a Status whose message is the text the Slurm command prints
// after its prefix: the controller's own status message (already Slurm's text, e.g. "Invalid job
// id specified"), or for transport failures Slurm's client-side texts: "Unable to contact slurm
// controller (connect failure)" (unreachable), "Socket timed out on send/recv operation" (deadline)
// and "Protocol authentication error" (credential refused). Status codes follow the gRPC code
// (NOT_FOUND -> kNotFound, PERMISSION_DENIED -> kPermissionDenied, ...).
//
// Over TCP every call carries a credential: a cluster-key signature when the key file is
// readable, else a MUNGE credential. Calls time out after `timeout_seconds`.
// Thread-compatible: one command uses one client from one thread.
#ifndef GANTRY_SLURM_CONTROLLER_CLIENT_H_
#define GANTRY_SLURM_CONTROLLER_CLIENT_H_

#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "rpc/credential.h"
#include "slurm/client_config.h"

namespace gantry::slurm {

class ControllerClient {
 public:
  // Connects lazily (the first call dials): resolves the endpoint from the config and loads the
  // key file for TCP. Fails only when no endpoint is configured (Unavailable, connect failure).
  static Result<std::unique_ptr<ControllerClient>> Connect(const ClientConfig& config);

  // A client on an existing channel (tests, or callers that dial themselves). `key` signs calls
  // when set; `use_munge` attaches MUNGE credentials otherwise.
  ControllerClient(std::shared_ptr<grpc::Channel> channel, std::string controller_host,
                   std::optional<rpc::ClusterKey> key, bool use_munge);

  Result<v1::PingReply> Ping();
  Result<v1::SubmitJobReply> SubmitJob(const v1::SubmitJobRequest& request);
  Result<v1::SignalJobReply> SignalJob(const v1::SignalJobRequest& request);
  Result<v1::UpdateJobReply> UpdateJob(const v1::UpdateJobRequest& request);
  Result<v1::GetJobsReply> GetJobs(const v1::GetJobsRequest& request);
  Result<v1::GetNodesReply> GetNodes(const v1::GetNodesRequest& request);
  Result<v1::UpdateNodeReply> UpdateNode(const v1::UpdateNodeRequest& request);
  Result<v1::GetConfigReply> GetConfig(const v1::GetConfigRequest& request);

  // The controller's host for messages ("Slurmctld(primary) at <host> is UP"); empty when it is
  // this host (unix socket).
  const std::string& controller_host() const { return controller_host_; }

  int timeout_seconds = 60;

 private:
  void Prepare(grpc::ClientContext* context) const;
  template <typename Reply, typename Request, typename Method>
  Result<Reply> Call(const Request& request, Method method);

  std::unique_ptr<v1::Controller::Stub> stub_;
  std::string controller_host_;
  std::optional<rpc::ClusterKey> key_;
  bool use_munge_ = false;
};

// The Status a failed gRPC call becomes (see the file comment).
Status FromGrpcStatus(const grpc::Status& status);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_CONTROLLER_CLIENT_H_
