// Slurm's error texts and numbers (slurm_errno.h / slurm_errno.c in 22.05) as the commands need
// them: the controller answers a refused call with a gRPC status whose message is Slurm's text,
// and some commands derive their exit code from Slurm's error number (scancel exits with the
// number modulo 256: "Access/permission denied" = 2002 exits 210).
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SLURM_ERRORS_H_
#define GANTRY_SLURM_SLURM_ERRORS_H_

#include <string_view>

#include "base/status.h"

namespace gantry::slurm {

// Texts the commands print themselves.
inline constexpr char kConnectFailure[] = "Unable to contact slurm controller (connect failure)";
inline constexpr char kSocketTimeout[] = "Socket timed out on send/recv operation";
inline constexpr char kAuthFailure[] = "Protocol authentication error";
inline constexpr char kUnexpectedMessage[] = "Unexpected message received";
inline constexpr char kInvalidJobId[] = "Invalid job id specified";
inline constexpr char kAccessDenied[] = "Access/permission denied";
inline constexpr char kAlreadyDone[] = "Job/step already completing or completed";
inline constexpr char kInvalidNodeName[] = "Invalid node name specified";
inline constexpr char kInvalidPartition[] = "Invalid partition name specified";

// Slurm's error numbers for the texts above and the other common ones.
inline constexpr int kSlurmError = -1;
inline constexpr int kEslurmConnect = 1800;  // SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR
inline constexpr int kEslurmAccessDenied = 2002;
inline constexpr int kEslurmAuthFailure = 1007;  // SLURM_PROTOCOL_AUTHENTICATION_ERROR
inline constexpr int kEslurmInvalidJobId = 2017;
inline constexpr int kEslurmAlreadyDone = 2021;

// The Slurm error number of an error text, or, for an unknown text, one derived from the status
// code (permission denied 2002, not found 2017, failed precondition 2021, unavailable 1800,
// unauthenticated 1007, anything else SLURM_ERROR = -1).
int SlurmErrno(std::string_view message, StatusCode code);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SLURM_ERRORS_H_
