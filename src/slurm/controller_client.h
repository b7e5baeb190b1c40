// The Slurm commands' connection to gantryd's Controller service.
//
// Every call returns the reply or a Status whose message is the text the Slurm command prints
// after its prefix: the controller's own status message (already Slurm's text, e.g. "Invalid job
// id specified"), or for transport failures Slurm's client-side texts: "Unable to contact slurm
// controller (connect failure)" (unreachable), "Socket timed out on send/recv operation" (deadline)
// and "Protocol authentication error" (credential refused). Status codes are the controller's
// (kNotFound, kPermissionDenied, ...).
//
// Two transports carry the calls. On this host the command socket (wire/frame.h) needs nothing
// but the socket: the commands binary carries no gRPC, which keeps a short command's start-up
// cheap. Elsewhere (TCP, or a controller without a command socket) the calls go over gRPC with a
// credential (slurm_remote/), which only binaries that link it can make: they register it with
// SetRemoteConnector.
// Thread-compatible: one command uses one client from one thread.
#ifndef GANTRY_SLURM_CONTROLLER_CLIENT_H_
#define GANTRY_SLURM_CONTROLLER_CLIENT_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "slurm/client_config.h"
#include "slurm_view/jobs_reply_reader.h"
#include "wire/frame.h"

namespace gantry::slurm {

// Carries one call: the serialized request out, the serialized reply (or an error in the
// header's terms) back.
class ControllerTransport {
 public:
  virtual ~ControllerTransport() = default;
  virtual Result<std::string> Call(wire::Method method, const std::string& request,
                                   int timeout_seconds) = 0;
  // The same, handing the reply out in pieces as it arrives (in order; together they are the
  // serialized reply). This default hands it out whole, as one piece, once it is in.
  virtual Status CallInPieces(wire::Method method, const std::string& request, int timeout_seconds,
                              const std::function<Status(std::string_view piece)>& on_piece);
  // Another connection to the same controller, for calls made at the same time on other
  // threads; null when this transport has none to offer (the default).
  virtual std::unique_ptr<ControllerTransport> Another() const { return nullptr; }
  // Whether the last call failed before its request could leave (no connection): it did
  // nothing, and may be made again elsewhere. False when unknown.
  virtual bool last_call_unsent() const { return false; }
};

// Makes the transport for an endpoint the command socket cannot serve (Endpoint::frames false).
using RemoteConnector = std::function<Result<std::unique_ptr<ControllerTransport>>(
    const ClientConfig& config, const Endpoint& endpoint)>;
// Registers it for this process (gantry-slurm-remote and tests do; gantry-slurm does not).
void SetRemoteConnector(RemoteConnector connector);
bool HasRemoteConnector();

class ControllerClient {
 public:
  // Resolves the endpoint (ResolveEndpoint) and connects lazily (the first call dials). Fails
  // (Unavailable, connect failure) when no endpoint is configured, or when it needs the remote
  // transport and none is registered.
  static Result<std::unique_ptr<ControllerClient>> Connect(const ClientConfig& config);

  // `controller_host` is empty when the controller is on this host.
  ControllerClient(std::unique_ptr<ControllerTransport> transport, std::string controller_host);

  Result<v1::PingReply> Ping();
  Result<v1::SubmitJobReply> SubmitJob(const v1::SubmitJobRequest& request);
  Result<v1::SignalJobReply> SignalJob(const v1::SignalJobRequest& request);
  Result<v1::UpdateJobReply> UpdateJob(const v1::UpdateJobRequest& request);
  Result<v1::GetJobsReply> GetJobs(const v1::GetJobsRequest& request);
  // GetJobs for large listings (squeue, sacct): the reply's head, then each job as soon as its
  // record has arrived (slurm/jobs_reply_reader.h: one message reused for every job, so keep
  // nothing that points into it). Nothing of the reply is kept, and the caller works while the
  // rest is still on the way. An error (transport, malformed reply, or the first one the visitor
  // returns) ends the listing.
  Result<JobsReplyHead> ListJobs(const v1::GetJobsRequest& request,
                                 const JobsReplyVisitor& visitor);
  // A whole listing read in up to visitors.size() parts at once, each on its own connection
  // and thread, part i handed to visitors[i] (the parts in job id order: visiting them one
  // after another is visiting ListJobs' reply). Fewer parts when the transport cannot open
  // more connections (visitors beyond are not called). Returns the first part's head, or the
  // first error of any part; its `shards` is how many parts hold the listing: 1 when the
  // controller did not split it (then visitors[0] saw every job and the others' calls are to
  // be ignored).
  Result<JobsReplyHead> ListJobsInParts(const v1::GetJobsRequest& request,
                                        const std::vector<JobsReplyVisitor>& visitors);
  Result<v1::JobStepReply> JobStep(const v1::JobStepRequest& request);
  Result<v1::GetNodesReply> GetNodes(const v1::GetNodesRequest& request);
  Result<v1::UpdateNodeReply> UpdateNode(const v1::UpdateNodeRequest& request);
  Result<v1::UpdatePartitionReply> UpdatePartition(const v1::UpdatePartitionRequest& request);
  Result<v1::AccountingDb> GetAccounting();
  Result<v1::GetPrioritiesReply> GetPriorities(const v1::GetPrioritiesRequest& request);
  // sdiag (and sdiag -r with request.reset).
  Result<v1::GetStatsReply> GetStats(const v1::GetStatsRequest& request);
  Result<v1::GetJobScriptReply> GetJobScript(const v1::GetJobScriptRequest& request);
  Result<v1::UpdateAccountingReply> UpdateAccounting(const v1::UpdateAccountingRequest& request);
  Result<v1::GetConfigReply> GetConfig(const v1::GetConfigRequest& request);
  // scontrol token.
  Result<v1::IssueTokenReply> IssueToken(const v1::IssueTokenRequest& request);
  // scontrol takeover.
  Result<v1::TakeoverReply> Takeover(const v1::TakeoverRequest& request);

  // The controller's host for messages ("Slurmctld(primary) at <host> is UP"); empty when it is
  // this host (unix socket).
  const std::string& controller_host() const { return controller_host_; }

  int timeout_seconds = 60;

 private:
  template <typename Reply, typename Request>
  Result<Reply> Call(wire::Method method, const Request& request);

  std::unique_ptr<ControllerTransport> transport_;
  std::string controller_host_;
};

// The transport to one endpoint: its command socket, or the registered remote connector's.
Result<std::unique_ptr<ControllerTransport>> ConnectEndpoint(const ClientConfig& config,
                                                             const Endpoint& endpoint);

// The transport over the command socket at `path` (connects on the first call).
std::unique_ptr<ControllerTransport> CommandSocketTransport(std::string path);

// `inner` (a command-socket transport) with every call made as the holder of `token` (rpc/
// user_token.h), or as `user_name` when the token is root's or SlurmUser's: each request goes
// in an AsUser envelope, which gantryd answers as that user.
std::unique_ptr<ControllerTransport> WithUserToken(std::unique_ptr<ControllerTransport> inner,
                                                   std::string token, std::string user_name);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_CONTROLLER_CLIENT_H_
