// The Slurm commands' gRPC transport: calls to a controller on another host (TLS over TCP,
// trusting the cluster's CA; every call carrying a credential bound to it: a cluster-key signature
// when the key file is readable, else MUNGE), or to one that has no command socket. Lives apart
// from slurm/ so that the commands binary for this host, gantry-slurm, carries no gRPC;
// gantry-slurm-remote and the tests link it.
#ifndef GANTRY_SLURM_REMOTE_GRPC_TRANSPORT_H_
#define GANTRY_SLURM_REMOTE_GRPC_TRANSPORT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>

#include "base/status.h"
#include "rpc/credential.h"
#include "slurm/controller_client.h"

namespace gantry::slurm {

// Registers the gRPC transport with SetRemoteConnector.
void UseGrpcForRemoteControllers();

// The transport on an existing channel. `key` signs calls when set; `use_munge` attaches MUNGE
// credentials otherwise; either is bound to each call and to `cluster` (rpc/credential.h).
std::unique_ptr<ControllerTransport> GrpcTransport(std::shared_ptr<grpc::Channel> channel,
                                                   std::optional<rpc::ClusterKey> key,
                                                   bool use_munge, std::string cluster);

// The Status a failed gRPC call becomes (see slurm/controller_client.h).
Status FromGrpcStatus(const grpc::Status& status);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_REMOTE_GRPC_TRANSPORT_H_
