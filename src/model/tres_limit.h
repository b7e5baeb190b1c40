// The TRES-list limits of sacctmgr's associations and QOS (GrpTRES, MaxTRESPerNode, MinTRES...):
// which field of v1::Association / v1::Qos holds each, and Slurm's job reason when a job breaks
// one (how each counts is state/job_limits.h's). Pure; thread-safe.
#ifndef GANTRY_MODEL_TRES_LIMIT_H_
#define GANTRY_MODEL_TRES_LIMIT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "gantry/v1/accounting.pb.h"

namespace gantry::model {

// The TRES-list limits.
enum class TresLimitKind {
  kGrp,            // GrpTRES
  kGrpMins,        // GrpTRESMins
  kGrpRunMins,     // GrpTRESRunMins
  kMaxPerJob,      // MaxTRES
  kMaxPerNode,     // MaxTRESPerNode
  kMaxMinsPerJob,  // MaxTRESMins
  kMaxPerUser,     // MaxTRESPU (QOS only)
  kMinPerJob,      // MinTRES (QOS only)
};
inline constexpr size_t kTresLimitKinds = 8;

// The limit's text ("cpu=4,gres/gpu=2"; "" = none) in an association or a QOS; the mutable form
// is nullptr for a kind associations do not have.
const std::string& TresLimitText(const v1::Association& a, TresLimitKind kind);
const std::string& TresLimitText(const v1::Qos& q, TresLimitKind kind);
std::string* MutableTresLimit(v1::Association* a, TresLimitKind kind);
std::string* MutableTresLimit(v1::Qos* q, TresLimitKind kind);

// Slurm's reason for a TRES limit of a QOS (`qos`) or an association.
std::string_view TresLimitReason(bool qos, TresLimitKind kind, std::string_view tres);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_TRES_LIMIT_H_
