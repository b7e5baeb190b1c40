// The gRPC faces of the controller: `Controller` (commands) and `NodeLink` (agents). Each call
// first establishes the caller from the transport (peer credentials for connections that came
// through the unix listener, a credential bound to the call otherwise; an agent's certificate
// for NodeLink), then hands a domain call to
// ctld::Controller and maps its Status to a gRPC status whose message is Slurm's text.
#ifndef GANTRY_CTLD_SERVICES_H_
#define GANTRY_CTLD_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include <string>

#include "ctld/controller.h"
#include "gantry/v1/controller.grpc.pb.h"
#include "rpc/credential.h"
#include "rpc/unix_listener.h"
#include "wire/frame.h"
#include "wire/methods.h"

namespace gantry::ctld {

// Maps the transport to a caller. `listener` may be null (TCP only).
class Authenticator {
 public:
  Authenticator(const rpc::UnixListener* listener, rpc::ClusterKey key, std::string cluster_name)
      : listener_(listener), verifier_(std::move(key)), cluster_name_(std::move(cluster_name)) {}
  // A command's caller: the kernel's peer credentials for the unix socket, else a credential
  // bound to `request` for this cluster (rpc/credential.h), accepted once.
  Result<Caller> Authenticate(const grpc::ServerContext& context,
                              const google::protobuf::Message& request) const;
  // OK when the call came with the certificate of `node` (tls/cluster_tls.h); PermissionDenied
  // naming the certificate otherwise.
  Status AuthenticateNode(const grpc::ServerContext& context, const std::string& node) const;
  void set_listener(const rpc::UnixListener* listener) { listener_ = listener; }
  // The verifier the handlers use: the TCP port's gate (rpc/call_gate.h) shares it.
  rpc::CredentialVerifier* verifier() const { return &verifier_; }

 private:
  const rpc::UnixListener* listener_;
  mutable rpc::CredentialVerifier verifier_;  // thread-safe
  std::string cluster_name_;
};

class ControllerService final : public v1::Controller::Service {
 public:
  ControllerService(Controller* controller, const Authenticator* auth, std::string version)
      : controller_(controller), auth_(auth), version_(std::move(version)) {}

  // One override per controller method (wire/methods.h), each answered by its handler
  // (ctld/methods.h) for the authenticated caller.
#define GANTRY_DECLARE_RPC(Name, Tag, Req, Rep, Type) \
  grpc::Status Name(grpc::ServerContext* context, const v1::Req* request, v1::Rep* reply) override;
  GANTRY_CONTROLLER_METHODS(GANTRY_DECLARE_RPC)
#undef GANTRY_DECLARE_RPC

 private:
  template <typename Request, typename Reply>
  grpc::Status Answer(grpc::ServerContext* context, wire::Method method, const Request& request,
                      Reply* reply);

  Controller* controller_;
  const Authenticator* auth_;
  std::string version_;
};

class NodeLinkService final : public v1::NodeLink::Service {
 public:
  NodeLinkService(Controller* controller, const Authenticator* auth)
      : controller_(controller), auth_(auth) {}

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterRequest* request,
                        v1::RegisterReply* reply) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatReply* reply) override;
  grpc::Status GetHealthSettings(grpc::ServerContext* context,
                                 const v1::GetHealthSettingsRequest* request,
                                 v1::HealthSettings* reply) override;
  grpc::Status ReportHealth(grpc::ServerContext* context, const v1::HealthReport* request,
                            v1::ReportHealthReply* reply) override;
  grpc::Status ReportJob(grpc::ServerContext* context, const v1::JobReport* request,
                         v1::JobReportReply* reply) override;

 private:
  Controller* controller_;
  const Authenticator* auth_;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_SERVICES_H_
