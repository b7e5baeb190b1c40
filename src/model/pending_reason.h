// Why a pending job waits: Slurm's job reasons as a type, declared once in one table with the
// name squeue's %r, scontrol's Reason= and sacct print. The scheduler, the partition and
// accounting limit checks, the job holds and `gantry explain` use it; the record keeps the name
// (Job.reason), since some reasons carry text after it ("ReqNodeNotAvail, UNAVAILABLE:n[1-2]")
// and an operator's or an event's reason may be free text. The limits on TRES lists have their
// own table of names (model/tres_limit.h: one per limit kind and TRES). Pure; thread-safe.
#ifndef GANTRY_MODEL_PENDING_REASON_H_
#define GANTRY_MODEL_PENDING_REASON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gantry::model {

// X(Enumerator, "Slurm's name")
#define GANTRY_PENDING_REASONS(X)                                        \
  X(kNone, "None")                                                       \
  X(kPriority, "Priority")                                               \
  X(kResources, "Resources")                                             \
  X(kBeginTime, "BeginTime")                                             \
  X(kDependency, "Dependency")                                           \
  X(kDependencyNeverSatisfied, "DependencyNeverSatisfied")               \
  X(kJobArrayTaskLimit, "JobArrayTaskLimit")                             \
  X(kJobHeldUser, "JobHeldUser")                                         \
  X(kJobHeldAdmin, "JobHeldAdmin")                                       \
  X(kPartitionConfig, "PartitionConfig")                                 \
  X(kPartitionDown, "PartitionDown")                                     \
  X(kPartitionInactive, "PartitionInactive")                             \
  X(kPartitionNodeLimit, "PartitionNodeLimit")                           \
  X(kPartitionTimeLimit, "PartitionTimeLimit")                           \
  X(kBadConstraints, "BadConstraints")                                   \
  X(kReqNodeNotAvail, "ReqNodeNotAvail")                                 \
  X(kQosMaxWallDurationPerJobLimit, "QOSMaxWallDurationPerJobLimit")     \
  X(kQosGrpWallLimit, "QOSGrpWallLimit")                                 \
  X(kQosGrpJobsLimit, "QOSGrpJobsLimit")                                 \
  X(kQosMaxJobsPerUserLimit, "QOSMaxJobsPerUserLimit")                   \
  X(kAssocMaxWallDurationPerJobLimit, "AssocMaxWallDurationPerJobLimit") \
  X(kAssocMaxJobsLimit, "AssocMaxJobsLimit")                             \
  X(kAssocGrpWallLimit, "AssocGrpWallLimit")                             \
  X(kAssocGrpJobsLimit, "AssocGrpJobsLimit")

enum class PendingReason : uint8_t {
#define GANTRY_PENDING_REASON_ENUM(e, name) e,
  GANTRY_PENDING_REASONS(GANTRY_PENDING_REASON_ENUM)
#undef GANTRY_PENDING_REASON_ENUM
};

// By enumerator, in the table's order.
inline constexpr std::string_view kPendingReasonNames[] = {
#define GANTRY_PENDING_REASON_NAME(e, name) name,
    GANTRY_PENDING_REASONS(GANTRY_PENDING_REASON_NAME)
#undef GANTRY_PENDING_REASON_NAME
};

// The reason's name, as Slurm prints it.
constexpr std::string_view PendingReasonName(PendingReason reason) {
  return kPendingReasonNames[static_cast<size_t>(reason)];
}

// The reason a record's text names: the whole text, or its first word before ", " (as in
// "ReqNodeNotAvail, UNAVAILABLE:n1"); nullopt for another text (a TRES limit's reason, an
// operator's free text).
std::optional<PendingReason> ParsePendingReason(std::string_view text);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_PENDING_REASON_H_
