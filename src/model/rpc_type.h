// The message types sdiag counts calls by. Where a Gantry call does what a Slurm RPC does, it
// is counted under that RPC's name and number (Slurm 22.05's slurm_msg_type_t), so tools that
// read sdiag find the usual rows; calls Slurm has no RPC for get numbers from 20001 up.
#ifndef GANTRY_MODEL_RPC_TYPE_H_
#define GANTRY_MODEL_RPC_TYPE_H_

#include <cstdint>
#include <string>

namespace gantry::model {

enum class RpcType : uint32_t {
  kNodeRegistration = 1002,     // MESSAGE_NODE_REGISTRATION_STATUS: an agent registers
  kPing = 1008,                 // REQUEST_PING
  kBuildInfo = 2001,            // REQUEST_BUILD_INFO: the configuration
  kJobInfo = 2003,              // REQUEST_JOB_INFO: job listings
  kNodeInfo = 2007,             // REQUEST_NODE_INFO
  kJobInfoSingle = 2021,        // REQUEST_JOB_INFO_SINGLE: one job
  kShareInfo = 2022,            // REQUEST_SHARE_INFO: sshare
  kPriorityFactors = 2026,      // REQUEST_PRIORITY_FACTORS: sprio
  kStatsInfo = 2035,            // REQUEST_STATS_INFO: sdiag
  kJobUserInfo = 2039,          // REQUEST_JOB_USER_INFO: one user's jobs
  kUpdateJob = 3001,            // REQUEST_UPDATE_JOB
  kUpdateNode = 3002,           // REQUEST_UPDATE_NODE
  kUpdatePartition = 3005,      // REQUEST_UPDATE_PARTITION
  kSubmitBatchJob = 4003,       // REQUEST_SUBMIT_BATCH_JOB
  kJobStepCreate = 5001,        // REQUEST_JOB_STEP_CREATE
  kStepComplete = 5016,         // REQUEST_STEP_COMPLETE
  kCompleteBatchScript = 5018,  // REQUEST_COMPLETE_BATCH_SCRIPT: a batch script ended
  kKillJob = 5032,              // REQUEST_KILL_JOB: scancel
  kEpilogComplete = 6012,       // MESSAGE_EPILOG_COMPLETE
  kCompleteProlog = 6018,       // REQUEST_COMPLETE_PROLOG
  // Slurm's, named for sdiag's tables; Gantry counts no calls under them.
  kPartitionInfo = 2009,          // REQUEST_PARTITION_INFO
  kFedInfo = 2049,                // REQUEST_FED_INFO
  kResourceAllocation = 4001,     // REQUEST_RESOURCE_ALLOCATION
  kJobReady = 4019,               // REQUEST_JOB_READY
  kBatchScript = 2051,            // REQUEST_BATCH_SCRIPT: scontrol write batch_script
  kHetJobAllocInfo = 4027,        // REQUEST_HET_JOB_ALLOC_INFO
  kCompleteJobAllocation = 5017,  // REQUEST_COMPLETE_JOB_ALLOCATION
  kAccountingUpdate = 10001,      // ACCOUNTING_UPDATE_MSG
  // Gantry's own.
  kGetAccounting = 20001,     // sacctmgr reads the accounting database (Slurm: slurmdbd)
  kUpdateAccounting = 20002,  // sacctmgr changes it
  kNodeHeartbeat = 20003,     // an agent's periodic report
  kAuthToken = 20004,         // scontrol token (Slurm's REQUEST_AUTH_TOKEN, under Gantry's number)
  kTakeover = 20005,          // scontrol takeover (Slurm's REQUEST_TAKEOVER, under Gantry's number)
  kNodeHealth = 20005,        // an agent's health checks: their settings, then the result
};

// The type's name as sdiag prints it ("REQUEST_PING"); an unknown number prints as itself.
std::string RpcTypeName(uint32_t id);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_RPC_TYPE_H_
