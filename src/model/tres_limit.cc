#include "model/tres_limit.h"

namespace gantry::model {
namespace {

const std::string& Empty() {
  static const std::string* const kEmpty = new std::string;
  return *kEmpty;
}

// Reason tables: by kind, then by TRES class (cpu, mem, node, gres, billing, other).
enum TresClass { kCpu, kMem, kNode, kGres, kBilling, kOther };
TresClass ClassOf(std::string_view tres) {
  if (tres == "cpu") return kCpu;
  if (tres == "mem") return kMem;
  if (tres == "node") return kNode;
  if (tres == "billing") return kBilling;
  if (tres.starts_with("gres/")) return kGres;
  return kOther;
}

constexpr std::string_view kAssocReasons[kTresLimitKinds][6] = {
    {"AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit", "AssocGrpGRES", "AssocGrpBilling",
     "AssocGrpUnknown"},
    {"AssocGrpCPUMinutesLimit", "AssocGrpMemMinutes", "AssocGrpNodeMinutes", "AssocGrpGRESMinutes",
     "AssocGrpBillingMinutes", "AssocGrpUnknownMinutes"},
    {"AssocGrpCPURunMinutesLimit", "AssocGrpMemRunMinutes", "AssocGrpNodeRunMinutes",
     "AssocGrpGRESRunMinutes", "AssocGrpBillingRunMinutes", "AssocGrpUnknownRunMinutes"},
    {"AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob", "AssocMaxNodePerJobLimit", "AssocMaxGRESPerJob",
     "AssocMaxBillingPerJob", "AssocMaxUnknownPerJob"},
    {"AssocMaxCpuPerNode", "AssocMaxMemPerNode", "AssocMaxUnknownPerNode", "AssocMaxGRESPerNode",
     "AssocMaxBillingPerNode", "AssocMaxUnknownPerNode"},
    {"AssocMaxCpuMinutesPerJobLimit", "AssocMaxMemMinutesPerJob", "AssocMaxNodeMinutesPerJob",
     "AssocMaxGRESMinutesPerJob", "AssocMaxBillingMinutesPerJob", "AssocMaxUnknownMinutesPerJob"},
    {},
    {},  // associations have no MaxTRESPU or MinTRES
};
constexpr std::string_view kQosReasons[kTresLimitKinds][6] = {
    {"QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit", "QOSGrpGRES", "QOSGrpBilling",
     "QOSGrpUnknown"},
    {"QOSGrpCPUMinutesLimit", "QOSGrpMemoryMinutes", "QOSGrpNodeMinutes", "QOSGrpGRESMinutes",
     "QOSGrpBillingMinutes", "QOSGrpUnknownMinutes"},
    {"QOSGrpCPURunMinutesLimit", "QOSGrpMemoryRunMinutes", "QOSGrpNodeRunMinutes",
     "QOSGrpGRESRunMinutes", "QOSGrpBillingRunMinutes", "QOSGrpUnknownRunMinutes"},
    {"QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob", "QOSMaxNodePerJobLimit", "QOSMaxGRESPerJob",
     "QOSMaxBillingPerJob", "QOSMaxUnknownPerJob"},
    {"QOSMaxCpuPerNode", "QOSMaxMemoryPerNode", "QOSMaxUnknownPerNode", "QOSMaxGRESPerNode",
     "QOSMaxBillingPerNode", "QOSMaxUnknownPerNode"},
    {"QOSMaxCpuMinutesPerJobLimit", "QOSMaxMemoryMinutesPerJob", "QOSMaxNodeMinutesPerJob",
     "QOSMaxGRESMinutesPerJob", "QOSMaxBillingMinutesPerJob", "QOSMaxUnknownMinutesPerJob"},
    {"QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser", "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser",
     "QOSMaxBillingPerUser", "QOSMaxUnknownPerUser"},
    {"QOSMinCpuNotSatisfied", "QOSMinMemory", "QOSMinNode", "QOSMinGRES", "QOSMinBilling",
     "QOSMinUnknown"},
};

template <typename Entity>
std::string* Field(Entity* e, TresLimitKind kind) {
  switch (kind) {
    case TresLimitKind::kGrp:
      return e->mutable_grp_tres();
    case TresLimitKind::kGrpMins:
      return e->mutable_grp_tres_mins();
    case TresLimitKind::kGrpRunMins:
      return e->mutable_grp_tres_run_mins();
    case TresLimitKind::kMaxPerJob:
      return e->mutable_max_tres_per_job();
    case TresLimitKind::kMaxPerNode:
      return e->mutable_max_tres_per_node();
    case TresLimitKind::kMaxMinsPerJob:
      return e->mutable_max_tres_mins_per_job();
    default:
      return nullptr;
  }
}

template <typename Entity>
const std::string& Text(const Entity& e, TresLimitKind kind) {
  std::string* field = Field(const_cast<Entity*>(&e), kind);
  return field != nullptr ? *field : Empty();
}

}  // namespace

const std::string& TresLimitText(const v1::Association& a, TresLimitKind kind) {
  return Text(a, kind);
}

const std::string& TresLimitText(const v1::Qos& q, TresLimitKind kind) {
  if (kind == TresLimitKind::kMaxPerUser) return q.max_tres_per_user();
  if (kind == TresLimitKind::kMinPerJob) return q.min_tres_per_job();
  return Text(q, kind);
}

std::string* MutableTresLimit(v1::Association* a, TresLimitKind kind) { return Field(a, kind); }

std::string* MutableTresLimit(v1::Qos* q, TresLimitKind kind) {
  if (kind == TresLimitKind::kMaxPerUser) return q->mutable_max_tres_per_user();
  if (kind == TresLimitKind::kMinPerJob) return q->mutable_min_tres_per_job();
  return Field(q, kind);
}

std::string_view TresLimitReason(bool qos, TresLimitKind kind, std::string_view tres) {
  const auto& table = qos ? kQosReasons : kAssocReasons;
  return table[static_cast<size_t>(kind)][ClassOf(tres)];
}

}  // namespace gantry::model
