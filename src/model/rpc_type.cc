#include "model/rpc_type.h"

#include <string_view>
#include <utility>

namespace gantry::model {

std::string RpcTypeName(uint32_t id) {
  static constexpr std::pair<RpcType, std::string_view> kNames[] = {
      {RpcType::kNodeRegistration, "MESSAGE_NODE_REGISTRATION_STATUS"},
      {RpcType::kPing, "REQUEST_PING"},
      {RpcType::kBuildInfo, "REQUEST_BUILD_INFO"},
      {RpcType::kJobInfo, "REQUEST_JOB_INFO"},
      {RpcType::kNodeInfo, "REQUEST_NODE_INFO"},
      {RpcType::kJobInfoSingle, "REQUEST_JOB_INFO_SINGLE"},
      {RpcType::kShareInfo, "REQUEST_SHARE_INFO"},
      {RpcType::kPriorityFactors, "REQUEST_PRIORITY_FACTORS"},
      {RpcType::kStatsInfo, "REQUEST_STATS_INFO"},
      {RpcType::kJobUserInfo, "REQUEST_JOB_USER_INFO"},
      {RpcType::kUpdateJob, "REQUEST_UPDATE_JOB"},
      {RpcType::kUpdateNode, "REQUEST_UPDATE_NODE"},
      {RpcType::kUpdatePartition, "REQUEST_UPDATE_PARTITION"},
      {RpcType::kSubmitBatchJob, "REQUEST_SUBMIT_BATCH_JOB"},
      {RpcType::kJobStepCreate, "REQUEST_JOB_STEP_CREATE"},
      {RpcType::kStepComplete, "REQUEST_STEP_COMPLETE"},
      {RpcType::kCompleteBatchScript, "REQUEST_COMPLETE_BATCH_SCRIPT"},
      {RpcType::kKillJob, "REQUEST_KILL_JOB"},
      {RpcType::kEpilogComplete, "MESSAGE_EPILOG_COMPLETE"},
      {RpcType::kCompleteProlog, "REQUEST_COMPLETE_PROLOG"},
      {RpcType::kPartitionInfo, "REQUEST_PARTITION_INFO"},
      {RpcType::kFedInfo, "REQUEST_FED_INFO"},
      {RpcType::kResourceAllocation, "REQUEST_RESOURCE_ALLOCATION"},
      {RpcType::kJobReady, "REQUEST_JOB_READY"},
      {RpcType::kBatchScript, "REQUEST_BATCH_SCRIPT"},
      {RpcType::kHetJobAllocInfo, "REQUEST_HET_JOB_ALLOC_INFO"},
      {RpcType::kCompleteJobAllocation, "REQUEST_COMPLETE_JOB_ALLOCATION"},
      {RpcType::kAccountingUpdate, "ACCOUNTING_UPDATE_MSG"},
      {RpcType::kGetAccounting, "GANTRY_GET_ACCOUNTING"},
      {RpcType::kUpdateAccounting, "GANTRY_UPDATE_ACCOUNTING"},
      {RpcType::kNodeHeartbeat, "GANTRY_NODE_HEARTBEAT"},
      {RpcType::kAuthToken, "REQUEST_AUTH_TOKEN"},
      {RpcType::kTakeover, "REQUEST_TAKEOVER"},
      {RpcType::kNodeHealth, "GANTRY_NODE_HEALTH"},
  };
  for (const auto& [type, name] : kNames) {
    if (static_cast<uint32_t>(type) == id) return std::string(name);
  }
  return std::to_string(id);
}

}  // namespace gantry::model
