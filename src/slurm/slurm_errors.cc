#include "slurm/slurm_errors.h"

namespace gantry::slurm {
namespace {

struct ErrorText {
  int number;
  std::string_view text;
};

constexpr ErrorText kErrors[] = {
    {1000, kUnexpectedMessage},
    {1007, kAuthFailure},
    {kEslurmConnect, kConnectFailure},
    {2000, kInvalidPartition},
    {kEslurmAccessDenied, kAccessDenied},
    {2006, "Node count specification invalid"},
    {2010, "Invalid user id"},
    {2014, "Requested node configuration is not available"},
    {2015, "Requested partition configuration not available now"},
    {2016, "Requested nodes are busy"},
    {kEslurmInvalidJobId, kInvalidJobId},
    {2018, kInvalidNodeName},
    {2020, "Job can not be altered now, try again later"},
    {kEslurmAlreadyDone, kAlreadyDone},
    {2024, "Job is pending execution"},
    {2025, "Task count specification invalid"},
    {2028, "Invalid node state specified"},
    {2029, "Invalid feature specification"},
    {5004, kSocketTimeout},
};

}  // namespace

int SlurmErrno(std::string_view message, StatusCode code) {
  for (const ErrorText& e : kErrors) {
    if (e.text == message) return e.number;
  }
  switch (code) {
    case StatusCode::kPermissionDenied:
      return kEslurmAccessDenied;
    case StatusCode::kNotFound:
      return kEslurmInvalidJobId;
    case StatusCode::kFailedPrecondition:
      return kEslurmAlreadyDone;
    case StatusCode::kUnavailable:
      return kEslurmConnect;
    case StatusCode::kUnauthenticated:
      return kEslurmAuthFailure;
    default:
      return kSlurmError;
  }
}

}  // namespace gantry::slurm
