#include "rpc/grpc_status.h"

namespace gantry::rpc {

grpc::Status ToGrpcStatus(const Status& status) {
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  switch (status.code()) {
    case StatusCode::kOk:
      return grpc::Status::OK;
    case StatusCode::kInvalidArgument:
      code = grpc::StatusCode::INVALID_ARGUMENT;
      break;
    case StatusCode::kNotFound:
      code = grpc::StatusCode::NOT_FOUND;
      break;
    case StatusCode::kAlreadyExists:
      code = grpc::StatusCode::ALREADY_EXISTS;
      break;
    case StatusCode::kPermissionDenied:
      code = grpc::StatusCode::PERMISSION_DENIED;
      break;
    case StatusCode::kFailedPrecondition:
      code = grpc::StatusCode::FAILED_PRECONDITION;
      break;
    case StatusCode::kOutOfRange:
      code = grpc::StatusCode::OUT_OF_RANGE;
      break;
    case StatusCode::kResourceExhausted:
      code = grpc::StatusCode::RESOURCE_EXHAUSTED;
      break;
    case StatusCode::kUnavailable:
      code = grpc::StatusCode::UNAVAILABLE;
      break;
    case StatusCode::kInternal:
      code = grpc::StatusCode::INTERNAL;
      break;
    case StatusCode::kUnauthenticated:
      code = grpc::StatusCode::UNAUTHENTICATED;
      break;
  }
  return {code, status.message()};
}

Status FromGrpcCode(const grpc::Status& status) {
  StatusCode code = StatusCode::kInternal;
  switch (status.error_code()) {
    case grpc::StatusCode::OK:
      return Status::Ok();
    case grpc::StatusCode::INVALID_ARGUMENT:
      code = StatusCode::kInvalidArgument;
      break;
    case grpc::StatusCode::NOT_FOUND:
      code = StatusCode::kNotFound;
      break;
    case grpc::StatusCode::ALREADY_EXISTS:
      code = StatusCode::kAlreadyExists;
      break;
    case grpc::StatusCode::PERMISSION_DENIED:
      code = StatusCode::kPermissionDenied;
      break;
    case grpc::StatusCode::FAILED_PRECONDITION:
      code = StatusCode::kFailedPrecondition;
      break;
    case grpc::StatusCode::OUT_OF_RANGE:
      code = StatusCode::kOutOfRange;
      break;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      code = StatusCode::kResourceExhausted;
      break;
    case grpc::StatusCode::UNAVAILABLE:
      code = StatusCode::kUnavailable;
      break;
    case grpc::StatusCode::UNAUTHENTICATED:
      code = StatusCode::kUnauthenticated;
      break;
    default:
      break;
  }
  return {code, status.error_message()};
}

}  // namespace gantry::rpc
