// Gantry's Status as a gRPC status and back: the matching code and the same message (for the
// commands, Slurm's error text).
#ifndef GANTRY_RPC_GRPC_STATUS_H_
#define GANTRY_RPC_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "base/status.h"

namespace gantry::rpc {

grpc::Status ToGrpcStatus(const Status& status);

// The reverse: the matching gantry code (kInternal for codes gantry has no match for) and the
// same message.
Status FromGrpcCode(const grpc::Status& status);

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_GRPC_STATUS_H_
