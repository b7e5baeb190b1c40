#include "rest/api.h"

#include <cstdlib>

#include "slurm/slurm_errors.h"

namespace gantry::rest {

int HttpStatusOf(const Status& status) {
  // gantry-restd is gantryd's gateway: gantryd unreachable is a bad gateway, as slurmrestd says.
  if (status.code() == StatusCode::kUnavailable) return 502;
  return http::HttpStatusOf(status.code());
}

std::optional<uint32_t> ParseJobId(const std::string& text) {
  char* end = nullptr;
  const uint64_t id = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || id == 0 || id > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(id);
}

Status StatusOfJobError(const v1::JobError& error) {
  StatusCode code = StatusCode::kInternal;
  switch (error.code()) {  // gRPC's numbers
    case 3:
      code = StatusCode::kInvalidArgument;
      break;
    case 5:
      code = StatusCode::kNotFound;
      break;
    case 7:
      code = StatusCode::kPermissionDenied;
      break;
    case 9:
      code = StatusCode::kFailedPrecondition;
      break;
    case 16:
      code = StatusCode::kUnauthenticated;
      break;
    default:
      break;
  }
  const std::string& message = error.message();
  const size_t colon = message.rfind(": ");
  return {code, colon == std::string::npos ? message : message.substr(colon + 2)};
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
