#include "rest/api.h"

#include "slurm/slurm_errors.h"

namespace gantry::rest {

int HttpStatusOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kResourceExhausted:
      return 429;
    case StatusCode::kUnavailable:
      return 502;
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

void Reply::Fail(int http_status, ApiError error) {
  if (errors_.empty()) status_ = http_status;
  errors_.push_back(std::move(error));
}

void Reply::Fail(const Status& status, std::string description, std::string source) {
  Fail(HttpStatusOf(status),
       ApiError{std::move(description), slurm::SlurmErrno(status.message(), status.code()),
                status.message(), std::move(source)});
}

void Reply::Warn(std::string description, std::string source) {
  warnings_.push_back({std::move(description), std::move(source)});
}

}  // namespace gantry::rest
