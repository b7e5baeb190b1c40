// The controller's methods (service gantry.v1.Controller), declared once. Each row is
//   X(Name, tag, Request, Reply, RpcType)
// Name: the gRPC method; tag: its number on the command socket (wire::Method, never reused);
// Request, Reply: its gantry.v1 messages (each request type names one method); RpcType: the
// model::RpcType sdiag counts a call as before its request is read.
//
// Everything that lists the methods expands this table: the command socket's tags
// (wire/frame.h), gantryd's gRPC service and command-socket dispatch (ctld/methods.h), the
// commands' gRPC transport and the test fake. A new call is a row here, its rpc in
// controller.proto and its handler in ctld/methods.cc.
#ifndef GANTRY_WIRE_METHODS_H_
#define GANTRY_WIRE_METHODS_H_

// clang-format off
#define GANTRY_CONTROLLER_METHODS(X)                                                     \
  X(Ping,             1,  PingRequest,             PingReply,             kPing)             \
  X(SubmitJob,        2,  SubmitJobRequest,        SubmitJobReply,        kSubmitBatchJob)   \
  X(SignalJob,        3,  SignalJobRequest,        SignalJobReply,        kKillJob)          \
  X(UpdateJob,        4,  UpdateJobRequest,        UpdateJobReply,        kUpdateJob)        \
  X(GetJobs,          5,  GetJobsRequest,          GetJobsReply,          kJobInfo)          \
  X(GetNodes,         6,  GetNodesRequest,         GetNodesReply,         kNodeInfo)         \
  X(UpdateNode,       7,  UpdateNodeRequest,       UpdateNodeReply,       kUpdateNode)       \
  X(GetConfig,        8,  GetConfigRequest,        GetConfigReply,        kBuildInfo)        \
  X(JobStep,          9,  JobStepRequest,          JobStepReply,          kJobStepCreate)    \
  X(UpdatePartition,  10, UpdatePartitionRequest,  UpdatePartitionReply,  kUpdatePartition)  \
  X(GetAccounting,    11, GetAccountingRequest,    AccountingDb,          kGetAccounting)    \
  X(UpdateAccounting, 12, UpdateAccountingRequest, UpdateAccountingReply, kUpdateAccounting) \
  X(GetPriorities,    13, GetPrioritiesRequest,    GetPrioritiesReply,    kPriorityFactors)  \
  X(GetStats,         14, GetStatsRequest,         GetStatsReply,         kStatsInfo)        \
  X(GetJobScript,     15, GetJobScriptRequest,     GetJobScriptReply,     kBatchScript)      \
  X(IssueToken,       16, IssueTokenRequest,       IssueTokenReply,       kAuthToken)        \
  X(Takeover,         17, TakeoverRequest,         TakeoverReply,         kTakeover)
// clang-format on

#endif  // GANTRY_WIRE_METHODS_H_
