#include "spec/slurm_keys.h"

#include <algorithm>
#include <array>
#include <optional>

#include "spec/diagnostics.h"
#include "text/ascii.h"
#include "text/duration.h"
#include "text/memory.h"
#include "text/suggest.h"
#include "text/tres.h"

namespace gantry::spec {

namespace {

constexpr uint8_t kC = kClusterScope;
constexpr uint8_t kP = kPartitionScope;
constexpr uint8_t kN = kNodeScope;
constexpr uint8_t kAll = kC | kP | kN;

constexpr int64_t kU16 = 65535;
constexpr int64_t kU32 = 4294967295;

// ---------------------------------------------------------------------------------------------
// Allowed words (slurm.conf(5), Slurm 22.05).

constexpr std::string_view kUnlimited[] = {"UNLIMITED", "INFINITE"};
constexpr std::string_view kSuspendTimeWords[] = {"NONE", "INFINITE", "UNLIMITED", "-1"};

constexpr std::string_view kAccountingStorageEnforce[] = {
    "associations", "limits", "nojobs", "nosteps", "qos", "safe", "wckeys", "all"};
// accounting_storage/postgresql is Gantry's: gantryd keeps its state and job history in the
// PostgreSQL database the AccountingStorage* keys name (ctld/config.h).
constexpr std::string_view kAccountingStorageType[] = {
    "accounting_storage/none", "accounting_storage/slurmdbd", "accounting_storage/postgresql"};
constexpr std::string_view kAccountingStoreFlags[] = {"job_comment", "job_env", "job_script"};
constexpr std::string_view kAcctGatherEnergy[] = {
    "acct_gather_energy/none",        "acct_gather_energy/gpu",  "acct_gather_energy/ipmi",
    "acct_gather_energy/pm_counters", "acct_gather_energy/rapl", "acct_gather_energy/xcc"};
constexpr std::string_view kAcctGatherFilesystem[] = {"acct_gather_filesystem/none",
                                                      "acct_gather_filesystem/lustre"};
constexpr std::string_view kAcctGatherInterconnect[] = {"acct_gather_interconnect/none",
                                                        "acct_gather_interconnect/ofed",
                                                        "acct_gather_interconnect/sysfs"};
constexpr std::string_view kAcctGatherProfile[] = {
    "acct_gather_profile/none", "acct_gather_profile/hdf5", "acct_gather_profile/influxdb"};
constexpr std::string_view kCpuBind[] = {"none",  "board", "boards", "socket", "sockets", "ldom",
                                         "ldoms", "core",  "cores",  "thread", "threads"};
constexpr std::string_view kCredType[] = {"cred/munge", "cred/none"};
constexpr std::string_view kDebugLevels[] = {"quiet", "fatal",  "error",  "info",   "verbose",
                                             "debug", "debug2", "debug3", "debug4", "debug5"};
constexpr std::string_view kEnforcePartLimits[] = {"ALL", "ANY", "NO", "YES"};
constexpr std::string_view kHealthCheckNodeState[] = {
    "ALLOC", "ANY", "CYCLE", "IDLE", "MIXED", "NONDRAINED_IDLE", "START_ONLY"};
constexpr std::string_view kJobAcctGatherType[] = {"jobacct_gather/none", "jobacct_gather/linux",
                                                   "jobacct_gather/cgroup"};
constexpr std::string_view kJobCompType[] = {
    "jobcomp/none", "jobcomp/elasticsearch", "jobcomp/filetxt", "jobcomp/kafka",
    "jobcomp/lua",  "jobcomp/mysql",         "jobcomp/script"};
constexpr std::string_view kJobContainerType[] = {"job_container/none", "job_container/tmpfs"};
constexpr std::string_view kLaunchType[] = {"launch/slurm"};
constexpr std::string_view kLogTimeFormat[] = {"iso8601",    "iso8601_ms",   "rfc5424",
                                               "rfc5424_ms", "clock",        "short",
                                               "thread_id",  "format_stderr"};
constexpr std::string_view kNodeState[] = {"CLOUD",   "DOWN",   "DRAIN",  "FAIL",
                                           "FAILING", "FUTURE", "UNKNOWN"};
constexpr std::string_view kPartitionState[] = {"UP", "DOWN", "DRAIN", "INACTIVE"};
constexpr std::string_view kPartitionSelectTypeParameters[] = {"CR_Core", "CR_Socket"};
constexpr std::string_view kPreemptMode[] = {"OFF",     "CANCEL",   "GANG",  "REQUEUE",
                                             "SUSPEND", "PRIORITY", "WITHIN"};
constexpr std::string_view kPreemptType[] = {"preempt/none", "preempt/partition_prio",
                                             "preempt/qos"};
constexpr std::string_view kPriorityFlags[] = {
    "ACCRUE_ALWAYS",  "CALCULATE_RUNNING", "DEPTH_OBLIVIOUS", "NO_FAIR_TREE",
    "INCR_ONLY",      "MAX_TRES",          "NO_NORMAL_ALL",   "NO_NORMAL_ASSOC",
    "NO_NORMAL_PART", "NO_NORMAL_QOS",     "NO_NORMAL_TRES",  "SMALL_RELATIVE_TO_TIME"};
constexpr std::string_view kPriorityType[] = {"priority/basic", "priority/multifactor"};
constexpr std::string_view kPriorityUsageResetPeriod[] = {"NONE",    "NOW",       "DAILY", "WEEKLY",
                                                          "MONTHLY", "QUARTERLY", "YEARLY"};
constexpr std::string_view kPrivateData[] = {"accounts", "cloud",      "events",       "jobs",
                                             "nodes",    "partitions", "reservations", "usage",
                                             "users",    "all"};
constexpr std::string_view kProctrackType[] = {"proctrack/cgroup", "proctrack/linuxproc",
                                               "proctrack/pgid", "proctrack/cray_aries"};
constexpr std::string_view kPrologFlags[] = {
    "Alloc", "Contain", "DeferBatch", "ForceRequeueOnFail", "NoHold", "RunInJob", "Serial", "X11"};
constexpr std::string_view kRlimits[] = {"ALL",   "NONE",    "AS",     "CORE",  "CPU", "DATA",
                                         "FSIZE", "MEMLOCK", "NOFILE", "NPROC", "RSS", "STACK"};
constexpr std::string_view kReconfigFlags[] = {"KeepPartInfo", "KeepPartState",
                                               "KeepPowerSaveSettings"};
constexpr std::string_view kRoutePlugin[] = {"route/default", "route/topology"};
constexpr std::string_view kSchedulerType[] = {"sched/backfill", "sched/builtin"};
constexpr std::string_view kSelectType[] = {"select/cons_tres", "select/cons_res", "select/linear",
                                            "select/cray_aries"};
constexpr std::string_view kSelectTypeParameters[] = {"CR_CPU",
                                                      "CR_Core",
                                                      "CR_Socket",
                                                      "CR_Memory",
                                                      "CR_CPU_Memory",
                                                      "CR_Core_Memory",
                                                      "CR_Socket_Memory",
                                                      "CR_ONE_TASK_PER_CORE",
                                                      "CR_CORE_DEFAULT_DIST_BLOCK",
                                                      "CR_LLN",
                                                      "CR_Pack_Nodes",
                                                      "OTHER_CONS_RES",
                                                      "OTHER_CONS_TRES"};
constexpr std::string_view kTaskPlugin[] = {"task/affinity", "task/cgroup", "task/none",
                                            "task/cray_aries"};
constexpr std::string_view kTaskPluginParam[] = {"none",    "sockets",   "cores",        "threads",
                                                 "verbose", "autobind=", "SlurmdOffSpec"};
constexpr std::string_view kTopologyPlugin[] = {"topology/none", "topology/tree",
                                                "topology/3d_torus"};

// SchedulerParameters options (slurm.conf(5) 22.05 and sched_config.html). "=#" takes an
// integer (negative allowed: bf_interval=-1 disables backfill), "=" any value.
constexpr std::string_view kSchedulerParameters[] = {
    "allow_zero_lic",
    "assoc_limit_stop",
    "batch_sched_delay=#",
    "bb_array_stage_cnt=#",
    "bf_allow_magnetic_slot",
    "bf_busy_nodes",
    "bf_continue",
    "bf_hetjob_immediate",
    "bf_hetjob_prio=",
    "bf_ignore_newly_avail_nodes",
    "bf_interval=#",
    "bf_job_part_count_reserve=#",
    "bf_licenses",
    "bf_max_job_array_resv=#",
    "bf_max_job_assoc=#",
    "bf_max_job_part=#",
    "bf_max_job_start=#",
    "bf_max_job_test=#",
    "bf_max_job_user=#",
    "bf_max_job_user_part=#",
    "bf_max_time=#",
    "bf_min_age_reserve=#",
    "bf_min_prio_reserve=#",
    "bf_node_space_size=#",
    "bf_one_resv_per_job",
    "bf_resolution=#",
    "bf_running_job_reserve",
    "bf_window=#",
    "bf_window_linear=#",
    "bf_yield_interval=#",
    "bf_yield_sleep=#",
    "build_queue_timeout=#",
    "correspond_after_task_cnt=#",
    "default_queue_depth=#",
    "defer",
    "defer_batch",
    "delay_boot=",
    "disable_hetjob_steps",
    "disable_job_shrink",
    "disable_user_top",
    "enable_hetjob_steps",
    "enable_user_top",
    "gantry_minimal_victims",  // Gantry's (Slurm ignores it): scheduler.h
    "ignore_numa",
    "ignore_prefer_validation",
    "inventory_interval=#",
    "kill_invalid_depend",
    "max_array_tasks=#",
    "max_depend_depth=#",
    "max_rpc_cnt=#",
    "max_sched_time=#",
    "max_script_size=#",
    "max_submit_line_size=#",
    "max_switch_wait=#",
    "no_backup_scheduling",
    "no_env_cache",
    "nohold_on_prolog_fail",
    "pack_serial_at_end",
    "partition_job_depth=#",
    "permit_job_expansion",
    "preempt_reorder_count=#",
    "preempt_strict_order",
    "preempt_youngest_first",
    "reduce_completing_frag",
    "requeue_setup_env_fail",
    "salloc_wait_nodes",
    "sbatch_wait_nodes",
    "sched_interval=#",
    "sched_max_job_start=#",
    "sched_min_interval=#",
    "spec_cores_first",
    "step_retry_count=#",
    "step_retry_time=#",
    "time_min_as_soft_limit",
    "whole_hetjob",
};

// ---------------------------------------------------------------------------------------------
// Why the managed service refuses a key.

constexpr std::string_view kRequeueReason =
    "the service owns job requeue after node failures and health-check repairs";
constexpr std::string_view kPrologReason =
    "the service runs its own prolog; add scripts with orchestrator_spec.slurm_spec."
    "prolog_bash_scripts";
constexpr std::string_view kEpilogReason =
    "the service runs its own epilog; add scripts with orchestrator_spec.slurm_spec."
    "epilog_bash_scripts";
constexpr std::string_view kSlurmdbdReason =
    "it is a slurmdbd.conf setting, and slurmdbd (accounting) is managed by the service";
constexpr std::string_view kDefaultReason =
    "the default partition is the first one in orchestrator_spec.slurm_spec.partitions (or "
    "default_partition_id)";
constexpr std::string_view kNodeNameReason =
    "node names are generated from the cluster and node pool ids";
constexpr std::string_view kNodeAddrReason = "node addresses are assigned by the service";
constexpr std::string_view kPartitionNameReason = "the partition name is the partition's id";
constexpr std::string_view kNodesReason = "a partition's nodes come from its node_pool_ids";
constexpr std::string_view kNodeSetReason =
    "node sets come from orchestrator_spec.slurm_spec.node_sets";
constexpr std::string_view kControllerReason =
    "the service places the controller; it sets SlurmctldHost";

// ---------------------------------------------------------------------------------------------
// Table builders.

constexpr SlurmKey Str(std::string_view name, uint8_t scopes = kC) {
  return {.name = name, .scopes = scopes, .kind = ValueKind::kString};
}
constexpr SlurmKey Int(std::string_view name, int64_t min, int64_t max, uint8_t scopes = kC,
                       std::span<const std::string_view> words = {}) {
  return {.name = name,
          .scopes = scopes,
          .kind = ValueKind::kInteger,
          .min = min,
          .max = max,
          .words = words};
}
constexpr SlurmKey Sec(std::string_view name, int64_t min = 0, int64_t max = kU16,
                       uint8_t scopes = kC, std::span<const std::string_view> words = {}) {
  return {.name = name,
          .scopes = scopes,
          .kind = ValueKind::kSeconds,
          .min = min,
          .max = max,
          .words = words};
}
constexpr SlurmKey Dur(std::string_view name, uint8_t scopes = kC, int64_t min_seconds = 0,
                       std::span<const std::string_view> unlimited = kUnlimited) {
  return {.name = name,
          .scopes = scopes,
          .kind = ValueKind::kDuration,
          .min = min_seconds,
          .words = unlimited};
}
constexpr SlurmKey Bool(std::string_view name, uint8_t scopes = kC) {
  return {.name = name, .scopes = scopes, .kind = ValueKind::kBoolean};
}
constexpr SlurmKey Word(std::string_view name, std::span<const std::string_view> words,
                        uint8_t scopes = kC) {
  return {.name = name, .scopes = scopes, .kind = ValueKind::kWord, .words = words};
}
// A plugin name: one of `words`, matched exactly as Slurm loads plugins by file name.
constexpr SlurmKey Plugin(std::string_view name, std::span<const std::string_view> words) {
  return {
      .name = name, .scopes = kC, .kind = ValueKind::kWord, .words = words, .case_sensitive = true};
}
constexpr SlurmKey List(std::string_view name, std::span<const std::string_view> words,
                        uint8_t scopes = kC, bool options = false, bool case_sensitive = false) {
  return {.name = name,
          .scopes = scopes,
          .kind = ValueKind::kWordList,
          .words = words,
          .case_sensitive = case_sensitive,
          .options = options};
}
constexpr SlurmKey Mem(std::string_view name, uint8_t scopes = kC, int64_t min = 0) {
  return {
      .name = name, .scopes = scopes, .kind = ValueKind::kMemory, .min = min, .words = kUnlimited};
}
constexpr SlurmKey Kind(std::string_view name, ValueKind kind, uint8_t scopes = kC) {
  return {.name = name, .scopes = scopes, .kind = kind};
}
constexpr SlurmKey Refused(std::string_view name, std::string_view reason, uint8_t scopes = kAll) {
  return {.name = name, .scopes = scopes, .kind = ValueKind::kString, .refused = reason};
}

// ---------------------------------------------------------------------------------------------
// The catalog. Cluster-wide parameters first (alphabetical), then partition-only and node-only
// ones, then keys that only exist to be refused.

constexpr auto kKeys = std::to_array<SlurmKey>({
    // --- Cluster-wide (some also valid on PartitionName= lines) ---
    Str("AccountingStorageBackupHost"),
    List("AccountingStorageEnforce", kAccountingStorageEnforce),
    Str("AccountingStorageExternalHost"),
    Str("AccountingStorageHost"),
    Str("AccountingStorageParameters"),
    Str("AccountingStoragePass"),
    Int("AccountingStoragePort", 0, kU16),
    Kind("AccountingStorageTRES", ValueKind::kTresList),
    Plugin("AccountingStorageType", kAccountingStorageType),
    Str("AccountingStorageUser"),
    List("AccountingStoreFlags", kAccountingStoreFlags),
    Plugin("AcctGatherEnergyType", kAcctGatherEnergy),
    Plugin("AcctGatherFilesystemType", kAcctGatherFilesystem),
    Plugin("AcctGatherInterconnectType", kAcctGatherInterconnect),
    Sec("AcctGatherNodeFreq"),
    Plugin("AcctGatherProfileType", kAcctGatherProfile),
    Bool("AllowSpecResourcesUsage"),
    Str("AuthAltParameters"),
    Str("AuthAltTypes"),
    Str("AuthInfo"),
    Str("AuthType"),
    Sec("BatchStartTimeout"),
    Str("BcastExclude"),
    Str("BcastParameters"),
    Str("BurstBufferParameters"),
    Str("BurstBufferType"),
    Str("CliFilterPlugins"),
    Str("ClusterName"),
    Str("CommunicationParameters"),
    Sec("CompleteWait", 0, 65533),
    Str("CoreSpecPlugin"),
    Str("CpuFreqDef"),
    Str("CpuFreqGovernors"),
    Plugin("CredType", kCredType),
    Str("DebugFlags"),
    Int("DefCPUPerGPU", 0, kU32, kC | kP),
    Mem("DefMemPerCPU", kC | kP),
    Mem("DefMemPerGPU", kC | kP),
    Mem("DefMemPerNode", kC | kP),
    Str("DependencyParameters"),
    Bool("DisableRootJobs", kC | kP),
    Int("EioTimeout", 0, 65533),
    Word("EnforcePartLimits", kEnforcePartLimits),
    Str("EpilogSlurmctld"),
    Int("EpilogMsgTime", 0, kU32),
    Sec("ExtSensorsFreq"),
    Str("ExtSensorsType"),
    Int("FairShareDampeningFactor", 1, kU16),
    Str("FederationParameters"),
    Int("FirstJobId", 1, kU32),
    Sec("GetEnvTimeout"),
    Str("GpuFreqDef"),
    Str("GresTypes"),
    Int("GroupUpdateForce", 0, 1),
    Sec("GroupUpdateTime"),
    Sec("HealthCheckInterval"),
    List("HealthCheckNodeState", kHealthCheckNodeState),
    Kind("HealthCheckProgram", ValueKind::kAbsolutePath),
    Sec("InactiveLimit"),
    Str("InteractiveStepOptions"),
    Str("JobAcctGatherFrequency"),
    Str("JobAcctGatherParams"),
    Plugin("JobAcctGatherType", kJobAcctGatherType),
    Str("JobCompHost"),
    Str("JobCompLoc"),
    Str("JobCompParams"),
    Str("JobCompPass"),
    Int("JobCompPort", 0, kU32),
    Plugin("JobCompType", kJobCompType),
    Str("JobCompUser"),
    Plugin("JobContainerType", kJobContainerType),
    Str("JobCredentialPrivateKey"),
    Str("JobCredentialPublicCertificate"),
    Int("JobFileAppend", 0, 1),
    Int("JobRequeue", 0, 1),
    Str("JobSubmitPlugins"),
    Int("KillOnBadExit", 0, 1),
    Sec("KillWait"),
    Str("LaunchParameters"),
    Plugin("LaunchType", kLaunchType),
    Str("Licenses"),
    List("LogTimeFormat", kLogTimeFormat),
    Str("MailDomain"),
    Str("MailProg"),
    Int("MaxArraySize", 0, 4000001),
    Int("MaxDBDMsgs", 10000, kU32),
    Int("MaxJobCount", 1, kU32),
    Int("MaxJobId", 1, 67043328),
    Mem("MaxMemPerCPU", kC | kP),
    Mem("MaxMemPerNode", kC | kP),
    Int("MaxNodeCount", 1, kU32),
    Int("MaxStepCount", 1, kU32),
    Int("MaxTasksPerNode", 1, kU16),
    Str("MCSParameters"),
    Str("MCSPlugin"),
    Sec("MessageTimeout"),
    Sec("MinJobAge", 0, kU32),
    Str("MpiDefault"),
    Str("MpiParams"),
    Str("NodeFeaturesPlugins"),
    Int("OverTimeLimit", 0, 65533, kC | kP, kUnlimited),
    Str("PluginDir"),
    Str("PlugStackConfig"),
    Str("PowerParameters"),
    Str("PowerPlugin"),
    Dur("PreemptExemptTime"),
    List("PreemptMode", kPreemptMode, kC | kP),
    Plugin("PreemptType", kPreemptType),
    Str("PrEpParameters"),
    Str("PrEpPlugins"),
    Dur("PriorityCalcPeriod", kC, /*min_seconds=*/60, /*unlimited=*/{}),
    Dur("PriorityDecayHalfLife"),
    Bool("PriorityFavorSmall"),
    List("PriorityFlags", kPriorityFlags),
    Dur("PriorityMaxAge"),
    Str("PriorityParameters"),
    Str("PrioritySiteFactorParameters"),
    Str("PrioritySiteFactorPlugin"),
    Plugin("PriorityType", kPriorityType),
    Word("PriorityUsageResetPeriod", kPriorityUsageResetPeriod),
    Int("PriorityWeightAge", 0, kU32),
    Int("PriorityWeightAssoc", 0, kU32),
    Int("PriorityWeightFairshare", 0, kU32),
    Int("PriorityWeightJobSize", 0, kU32),
    Int("PriorityWeightPartition", 0, kU32),
    Int("PriorityWeightQOS", 0, kU32),
    Kind("PriorityWeightTRES", ValueKind::kTresWeights),
    List("PrivateData", kPrivateData),
    Plugin("ProctrackType", kProctrackType),
    Sec("PrologEpilogTimeout"),
    List("PrologFlags", kPrologFlags),
    Str("PrologSlurmctld"),
    Int("PropagatePrioProcess", 0, 2),
    List("PropagateResourceLimits", kRlimits),
    List("PropagateResourceLimitsExcept", kRlimits),
    Str("RebootProgram"),
    List("ReconfigFlags", kReconfigFlags),
    Str("ResumeFailProgram"),
    Str("ResumeProgram"),
    Int("ResumeRate", 0, kU16),
    Sec("ResumeTimeout", 0, kU16, kC | kP),
    Str("ResvEpilog"),
    Int("ResvOverRun", 0, 65533, kC, kUnlimited),
    Str("ResvProlog"),
    Int("ReturnToService", 0, 2),
    Plugin("RoutePlugin", kRoutePlugin),
    List("SchedulerParameters", kSchedulerParameters, kC, /*options=*/true),
    Sec("SchedulerTimeSlice", 5),
    Plugin("SchedulerType", kSchedulerType),
    Str("ScronParameters"),
    Plugin("SelectType", kSelectType),
    List("SelectTypeParameters", kSelectTypeParameters),
    Str("SlurmctldAddr"),
    Word("SlurmctldDebug", kDebugLevels),
    Str("SlurmctldLogFile"),
    Str("SlurmctldParameters"),
    Str("SlurmctldPidFile"),
    Str("SlurmctldPlugstack"),
    Kind("SlurmctldPort", ValueKind::kPortRange),
    Str("SlurmctldPrimaryOffProg"),
    Str("SlurmctldPrimaryOnProg"),
    Word("SlurmctldSyslogDebug", kDebugLevels),
    Sec("SlurmctldTimeout"),
    Word("SlurmdDebug", kDebugLevels),
    Str("SlurmdLogFile"),
    Str("SlurmdParameters"),
    Str("SlurmdPidFile"),
    Int("SlurmdPort", 1, kU16),
    Str("SlurmdSpoolDir"),
    Word("SlurmdSyslogDebug", kDebugLevels),
    Sec("SlurmdTimeout"),
    Str("SlurmdUser"),
    Str("SlurmSchedLogFile"),
    Int("SlurmSchedLogLevel", 0, 1),
    Str("SlurmUser"),
    Str("SrunEpilog"),
    Kind("SrunPortRange", ValueKind::kPortRange),
    Str("SrunProlog"),
    Str("StateSaveLocation"),
    Str("SuspendExcNodes"),
    Str("SuspendExcParts"),
    Str("SuspendProgram"),
    Int("SuspendRate", 0, kU16),
    Sec("SuspendTime", 0, kU32, kC, kSuspendTimeWords),
    Sec("SuspendTimeout", 0, kU16, kC | kP),
    Str("SwitchParameters"),
    Str("SwitchType"),
    Str("TaskEpilog"),
    List("TaskPlugin", kTaskPlugin, kC, /*options=*/false, /*case_sensitive=*/true),
    List("TaskPluginParam", kTaskPluginParam, kC, /*options=*/true),
    Str("TaskProlog"),
    Sec("TCPTimeout"),
    Kind("TmpFS", ValueKind::kAbsolutePath),
    Str("TopologyParam"),
    Plugin("TopologyPlugin", kTopologyPlugin),
    Bool("TrackWCKey"),
    Int("TreeWidth", 1, 65533),
    Str("UnkillableStepProgram"),
    Sec("UnkillableStepTimeout"),
    Bool("UsePAM"),
    Int("VSizeFactor", 0, kU16),
    Sec("WaitTime"),
    Str("X11Parameters"),

    // --- PartitionName= lines (slurm.conf(5) PARTITION CONFIGURATION) ---
    Str("AllocNodes", kP),
    Str("AllowAccounts", kP),
    Str("AllowGroups", kP),
    Str("AllowQos", kP),
    Str("Alternate", kP),
    Word("CpuBind", kCpuBind, kP | kN),
    Dur("DefaultTime", kP),
    Str("DenyAccounts", kP),
    Str("DenyQos", kP),
    Bool("ExclusiveUser", kP),
    Sec("GraceTime", 0, kU32, kP),
    Bool("Hidden", kP),
    Str("JobDefaults", kP),
    Bool("LLN", kP),
    Int("MaxCPUsPerNode", 1, kU32, kP, kUnlimited),
    Int("MaxNodes", 0, kU32, kP, kUnlimited),
    Dur("MaxTime", kP),
    Int("MinNodes", 0, kU32, kP),
    Kind("OverSubscribe", ValueKind::kOverSubscribe, kP),
    Bool("PowerDownOnIdle", kP),
    Int("PriorityJobFactor", 0, 65533, kP),
    Int("PriorityTier", 0, 65533, kP),
    Str("QOS", kP),
    Bool("ReqResv", kP),
    Bool("RootOnly", kP),
    List("SelectTypeParameters", kPartitionSelectTypeParameters, kP),
    Kind("Shared", ValueKind::kOverSubscribe, kP),  // pre-16.05 name of OverSubscribe
    Word("State", kPartitionState, kP),
    Sec("SuspendTime", 0, kU32, kP, kUnlimited),
    Kind("TRESBillingWeights", ValueKind::kTresWeights, kP),

    // --- NodeName= lines (slurm.conf(5) NODE CONFIGURATION) ---
    Int("Boards", 1, kU16, kN),
    Int("CoreSpecCount", 0, kU16, kN),
    Int("CoresPerSocket", 1, kU16, kN),
    Int("CPUs", 1, kU16, kN),
    Str("CPUSpecList", kN),
    Str("Feature", kN),  // older spelling of Features
    Str("Features", kN),
    Str("Gres", kN),
    Mem("MemSpecLimit", kN),
    Kind("Port", ValueKind::kPortRange, kN),
    Int("Procs", 1, kU16, kN),  // older spelling of CPUs
    Mem("RealMemory", kN, 1),
    Str("Reason", kN),
    Int("Sockets", 1, kU16, kN),
    Int("SocketsPerBoard", 1, kU16, kN),
    Word("State", kNodeState, kN),
    Int("ThreadsPerCore", 1, kU16, kN),
    Int("TmpDisk", 0, kU32, kN),
    Kind("TRESWeights", ValueKind::kTresWeights, kN),
    Int("Weight", 0, kU32, kN),

    // --- Refused: the service owns these ---
    Refused("Prolog", kPrologReason),
    Refused("Epilog", kEpilogReason),
    Refused("RequeueExit", kRequeueReason),
    Refused("RequeueExitHold", kRequeueReason),
    Refused("Default", kDefaultReason),
    Refused("PartitionName", kPartitionNameReason),
    Refused("Nodes", kNodesReason),
    Refused("NodeName", kNodeNameReason),
    Refused("NodeAddr", kNodeAddrReason),
    Refused("NodeHostname", kNodeAddrReason),
    Refused("BcastAddr", kNodeAddrReason),
    Refused("NodeSet", kNodeSetReason),
    Refused("DownNodes", "mark nodes down with scontrol update, not in the spec"),
    Refused("FrontendName", "front-end mode is not supported"),
    Refused("SlurmctldHost", kControllerReason),
    Refused("ControlMachine", kControllerReason),
    Refused("ControlAddr", kControllerReason),
    Refused("BackupController", kControllerReason),
    Refused("BackupAddr", kControllerReason),
    // slurmdbd.conf(5) keys.
    Refused("AllowNoDefAcct", kSlurmdbdReason),
    Refused("AllResourcesAbsolute", kSlurmdbdReason),
    Refused("ArchiveDir", kSlurmdbdReason),
    Refused("ArchiveEvents", kSlurmdbdReason),
    Refused("ArchiveJobs", kSlurmdbdReason),
    Refused("ArchiveResvs", kSlurmdbdReason),
    Refused("ArchiveScript", kSlurmdbdReason),
    Refused("ArchiveSteps", kSlurmdbdReason),
    Refused("ArchiveSuspend", kSlurmdbdReason),
    Refused("ArchiveTXN", kSlurmdbdReason),
    Refused("ArchiveUsage", kSlurmdbdReason),
    Refused("CommitDelay", kSlurmdbdReason),
    Refused("DbdAddr", kSlurmdbdReason),
    Refused("DbdBackupHost", kSlurmdbdReason),
    Refused("DbdHost", kSlurmdbdReason),
    Refused("DbdPort", kSlurmdbdReason),
    Refused("DebugLevel", kSlurmdbdReason),
    Refused("DebugLevelSyslog", kSlurmdbdReason),
    Refused("DefaultQOS", kSlurmdbdReason),
    Refused("LogFile", kSlurmdbdReason),
    Refused("MaxQueryTimeRange", kSlurmdbdReason),
    Refused("PidFile", kSlurmdbdReason),
    Refused("PurgeEventAfter", kSlurmdbdReason),
    Refused("PurgeJobAfter", kSlurmdbdReason),
    Refused("PurgeResvAfter", kSlurmdbdReason),
    Refused("PurgeStepAfter", kSlurmdbdReason),
    Refused("PurgeSuspendAfter", kSlurmdbdReason),
    Refused("PurgeTXNAfter", kSlurmdbdReason),
    Refused("PurgeUsageAfter", kSlurmdbdReason),
    Refused("StorageBackupHost", kSlurmdbdReason),
    Refused("StorageHost", kSlurmdbdReason),
    Refused("StorageLoc", kSlurmdbdReason),
    Refused("StorageParameters", kSlurmdbdReason),
    Refused("StoragePass", kSlurmdbdReason),
    Refused("StoragePort", kSlurmdbdReason),
    Refused("StorageType", kSlurmdbdReason),
    Refused("StorageUser", kSlurmdbdReason),
    Refused("TrackSlurmctldDown", kSlurmdbdReason),
    // Removed or renamed before 22.05 (Slurm itself rejects or warns about them).
    Refused("AccountingStorageLoc", "removed from slurm.conf in Slurm 21.08"),
    Refused("AccountingStoreJobComment",
            "removed in Slurm 21.08; use AccountingStoreFlags=job_comment"),
    Refused("AcctGatherInfinibandType", "renamed; use AcctGatherInterconnectType"),
    Refused("CacheGroups", "removed from Slurm"),
    Refused("CryptoType", "renamed; use CredType"),
    Refused("FastSchedule", "removed in Slurm 20.02; use SlurmdParameters=config_overrides"),
    Refused("KeepAliveTime", "moved; use CommunicationParameters=keepalivetime=<seconds>"),
    Refused("SallocDefaultCommand",
            "removed in Slurm 21.08; use LaunchParameters=use_interactive_step"),
    Refused("SbcastParameters", "renamed; use BcastParameters"),
    Refused("SchedulerAuth", "defunct in Slurm"),
});

// ---------------------------------------------------------------------------------------------
// Helpers.

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A decimal integer with an optional leading '-'; nullopt when malformed or out of int64.
std::optional<int64_t> ParseInteger(std::string_view s) {
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  if (!IsDigits(s) || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return negative ? -v : v;
}

std::string Join(std::span<const std::string_view> words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += ", ";
    out += words[i];
  }
  return out;
}

bool MatchesWord(std::string_view value, std::string_view word, bool case_sensitive) {
  return case_sensitive ? value == word : text::EqualsIgnoreCase(value, word);
}

bool InWords(std::string_view value, std::span<const std::string_view> words, bool case_sensitive) {
  for (std::string_view w : words) {
    if (MatchesWord(value, w, case_sensitive)) return true;
  }
  return false;
}

std::string SuggestWord(std::string_view value, std::span<const std::string_view> words) {
  std::vector<std::string> candidates(words.begin(), words.end());
  return text::DidYouMean(text::Suggest(value, candidates));
}

// `"item" (in "whole")` when the item is part of a longer list, else just `"item"`.
std::string QuoteItem(std::string_view item, std::string_view whole) {
  if (item.size() == whole.size()) return Quote(item);
  return Quote(item) + " (in " + Quote(whole) + ")";
}

std::string RangeRule(const SlurmKey& key) {
  if (key.max == std::numeric_limits<int64_t>::max()) {
    return "the minimum is " + std::to_string(key.min);
  }
  return "allowed: " + std::to_string(key.min) + " to " + std::to_string(key.max);
}

Status ValidateInteger(const SlurmKey& key, std::string_view value, std::string_view what) {
  if (InWords(value, key.words, /*case_sensitive=*/false)) return Status::Ok();
  const std::optional<int64_t> n = ParseInteger(value);
  if (!n || (*n < 0 && key.min >= 0)) {
    std::string rule = std::string(what);
    if (!key.words.empty()) rule += " or one of " + Join(key.words);
    return InvalidArgument(Quote(value) + " is not " + rule);
  }
  if (*n < key.min || *n > key.max) {
    return InvalidArgument(Quote(value) + " is out of range (" + RangeRule(key) + ")");
  }
  return Status::Ok();
}

Status ValidateMemory(const SlurmKey& key, std::string_view value) {
  if (InWords(value, key.words, /*case_sensitive=*/false)) return Status::Ok();
  const std::optional<int64_t> n = ParseInteger(value);
  if (!n || *n < 0) {
    std::string hint;
    const Result<int64_t> mib = text::ParseMemoryMiB(value);
    if (mib.ok()) hint = "; write " + std::to_string(*mib) + " for " + std::string(value);
    return InvalidArgument(Quote(value) +
                           " is not a whole number of MiB (slurm.conf takes memory sizes without "
                           "a unit suffix" +
                           hint + ")");
  }
  if (*n < key.min || *n > key.max) {
    return InvalidArgument(Quote(value) + " is out of range (" + RangeRule(key) + ")");
  }
  return Status::Ok();
}

Status ValidateDuration(const SlurmKey& key, std::string_view value) {
  const std::string forms = "M, M:S, H:M:S, D-H, D-H:M or D-H:M:S";
  if (InWords(value, key.words, /*case_sensitive=*/false)) return Status::Ok();
  const Result<int64_t> seconds = text::ParseDurationSeconds(value);
  if (!seconds.ok()) {
    std::string rule = "a Slurm time (" + forms;
    if (!key.words.empty()) rule += ", or " + Join(key.words);
    return InvalidArgument(Quote(value) + " is not " + rule + ")");
  }
  if (*seconds == text::kInfiniteDuration) {
    return InvalidArgument(Quote(value) + " is not allowed: a finite time is required");
  }
  // Slurm reads these in whole minutes, rounding seconds up (time_str2mins).
  if ((*seconds + 59) / 60 * 60 < key.min) {
    return InvalidArgument(Quote(value) + " is too short: the minimum is " +
                           text::FormatDurationSeconds(key.min));
  }
  return Status::Ok();
}

Status ValidateBoolean(std::string_view value) {
  static constexpr std::string_view kTrue[] = {"YES", "TRUE", "UP", "1"};
  static constexpr std::string_view kFalse[] = {"NO", "FALSE", "DOWN", "0"};
  if (InWords(value, kTrue, false) || InWords(value, kFalse, false)) return Status::Ok();
  return InvalidArgument(Quote(value) + " is not one of YES, NO");
}

Status ValidateWord(const SlurmKey& key, std::string_view value) {
  if (InWords(value, key.words, key.case_sensitive)) return Status::Ok();
  return InvalidArgument(Quote(value) + " is not one of " + Join(key.words) +
                         SuggestWord(value, key.words));
}

// The option name of a word ("bf_window=#" -> "bf_window").
std::string_view OptionName(std::string_view word) {
  const size_t eq = word.find('=');
  return eq == std::string_view::npos ? word : word.substr(0, eq);
}

Status ValidateWordList(const SlurmKey& key, std::string_view value) {
  if (value.empty()) {
    return InvalidArgument(Quote(value) + " is empty (expected a comma-separated list)");
  }
  for (std::string_view item : text::Split(value, ',')) {
    if (item.empty()) {
      return InvalidArgument(Quote(value) + " has an empty item");
    }
    std::string_view name = item;
    std::string_view arg;
    const size_t eq = item.find('=');
    if (key.options && eq != std::string_view::npos) {
      name = item.substr(0, eq);
      arg = item.substr(eq + 1);
    }
    const std::string_view* match = nullptr;
    for (const std::string_view& w : key.words) {
      if (MatchesWord(name, key.options ? OptionName(w) : w, key.case_sensitive)) {
        match = &w;
        break;
      }
    }
    if (match == nullptr) {
      std::vector<std::string> names;
      for (std::string_view w : key.words) names.emplace_back(key.options ? OptionName(w) : w);
      const std::string rule = key.words.size() <= 16
                                   ? "one of " + Join(key.words)
                                   : "a known " + std::string(key.name) + " option";
      return InvalidArgument(QuoteItem(item, value) + " is not " + rule +
                             text::DidYouMean(text::Suggest(name, names)));
    }
    if (!key.options) continue;
    const bool takes_value = match->find('=') != std::string_view::npos;
    const bool integer = match->ends_with("=#");
    if (takes_value && eq == std::string_view::npos) {
      return InvalidArgument(QuoteItem(item, value) + " needs a value (" +
                             std::string(OptionName(*match)) +
                             (integer ? "=<integer>)" : "=<value>)"));
    }
    if (!takes_value && eq != std::string_view::npos) {
      return InvalidArgument(QuoteItem(item, value) + " takes no value (write just " +
                             std::string(OptionName(*match)) + ")");
    }
    if (integer && !ParseInteger(arg)) {
      return InvalidArgument(QuoteItem(item, value) + " needs an integer value, not " + Quote(arg));
    }
    if (takes_value && !integer && arg.empty()) {
      return InvalidArgument(QuoteItem(item, value) + " needs a value after '='");
    }
  }
  return Status::Ok();
}

constexpr std::string_view kBaseTres[] = {"cpu",     "mem",     "energy", "node",
                                          "billing", "fs/disk", "vmem",   "pages"};

// TRES names and weights are parsed by text/tres.h, so whatever passes here is what the rest of
// Gantry reads. Messages add the likely fix for a bare GRES name ("gpu" -> "gres/gpu").
std::string TresNameError(std::string_view name) {
  std::string hint;
  if (!name.empty() && name.find('/') == std::string_view::npos) {
    std::vector<std::string> candidates = {"gres/" + std::string(name)};
    std::vector<std::string> base(std::begin(kBaseTres), std::end(kBaseTres));
    for (std::string& c : text::Suggest(name, base, 2)) candidates.push_back(std::move(c));
    hint = text::DidYouMean(candidates);
  }
  return Quote(name) +
         " is not a TRES name (cpu, mem, energy, node, billing, fs/disk, vmem, pages, or "
         "gres/NAME, license/NAME, bb/NAME, fs/NAME, ic/NAME)" +
         hint;
}

Status ValidateTresList(std::string_view value) {
  if (value.empty()) {
    return InvalidArgument(Quote(value) + " is empty (expected TRES names: gres/gpu,license/x)");
  }
  for (std::string_view item : text::Split(value, ',')) {
    if (!text::ParseTresKey(item).ok()) {
      return InvalidArgument(item.size() == value.size()
                                 ? TresNameError(item)
                                 : TresNameError(item) + " (in " + Quote(value) + ")");
    }
  }
  return Status::Ok();
}

Status ValidateTresWeights(std::string_view value) {
  if (value.empty()) {
    return InvalidArgument(Quote(value) +
                           " is empty (expected TRES=weight pairs, e.g. cpu=1.0,mem=0.25G)");
  }
  const Result<std::vector<text::TresWeight>> weights = text::ParseTresWeights(value);
  if (weights.ok()) return Status::Ok();
  for (std::string_view item : text::Split(value, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument(QuoteItem(item, value) +
                             " is not TRES=weight (e.g. cpu=1.0,mem=0.25G,gres/gpu=2.0)");
    }
    const std::string_view name = item.substr(0, eq);
    if (!text::ParseTresKey(name).ok()) {
      return InvalidArgument(QuoteItem(item, value) + ": " + TresNameError(name));
    }
  }
  return InvalidArgument(Quote(value) + " is not a list of TRES=weight pairs (" +
                         weights.status().message() + ")");
}

Status ValidateOverSubscribe(std::string_view value) {
  const std::string rule = " is not one of NO, EXCLUSIVE, YES, YES:<count>, FORCE, FORCE:<count>";
  const size_t colon = value.find(':');
  const std::string_view word = value.substr(0, colon);
  if (colon == std::string_view::npos) {
    static constexpr std::string_view kWords[] = {"NO", "EXCLUSIVE", "YES", "FORCE"};
    if (InWords(word, kWords, false)) return Status::Ok();
    return InvalidArgument(Quote(value) + rule + SuggestWord(value, kWords));
  }
  static constexpr std::string_view kCounted[] = {"YES", "FORCE"};
  if (!InWords(word, kCounted, false)) return InvalidArgument(Quote(value) + rule);
  const std::optional<int64_t> n = ParseInteger(value.substr(colon + 1));
  if (!n || *n < 1 || *n > 32767) {
    return InvalidArgument(Quote(value) + ": the job count after ':' must be 1 to 32767");
  }
  return Status::Ok();
}

Status ValidatePortRange(std::string_view value) {
  const auto port = [](std::string_view s) -> std::optional<int64_t> {
    const std::optional<int64_t> n = ParseInteger(s);
    if (!n || *n < 1 || *n > 65535) return std::nullopt;
    return n;
  };
  const size_t dash = value.find('-');
  if (dash == std::string_view::npos) {
    if (port(value)) return Status::Ok();
  } else {
    const std::optional<int64_t> low = port(value.substr(0, dash));
    const std::optional<int64_t> high = port(value.substr(dash + 1));
    if (low && high && *low < *high) return Status::Ok();
  }
  return InvalidArgument(Quote(value) + " is not a port (1 to 65535) or a range LOW-HIGH");
}

}  // namespace

std::string ScopeNames(uint8_t scopes) {
  std::string out;
  const auto add = [&out](std::string_view name) {
    if (!out.empty()) out += ", ";
    out += name;
  };
  if (scopes & kClusterScope) add("cluster");
  if (scopes & kPartitionScope) add("partition");
  if (scopes & kNodeScope) add("node set");
  return out;
}

std::string NormalizeKey(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '_') continue;
    out.push_back(text::AsciiLower(c));
  }
  return out;
}

std::span<const SlurmKey> AllSlurmKeys() { return kKeys; }

const SlurmKey* FindSlurmKey(std::string_view any_spelling) {
  const std::string n = NormalizeKey(any_spelling);
  for (const SlurmKey& k : kKeys) {
    if (NormalizeKey(k.name) == n) return &k;
  }
  return nullptr;
}

const SlurmKey* FindSlurmKey(std::string_view any_spelling, Scope scope) {
  const std::string n = NormalizeKey(any_spelling);
  for (const SlurmKey& k : kKeys) {
    if ((k.scopes & scope) && NormalizeKey(k.name) == n) return &k;
  }
  return nullptr;
}

uint8_t ScopesOf(std::string_view any_spelling) {
  const std::string n = NormalizeKey(any_spelling);
  uint8_t scopes = 0;
  for (const SlurmKey& k : kKeys) {
    if (NormalizeKey(k.name) == n) scopes |= k.scopes;
  }
  return scopes;
}

Result<const SlurmKey*> ResolveConfigKey(std::string_view key, Scope scope) {
  if (NormalizeKey(key).empty()) {
    return InvalidArgument("empty slurm.conf parameter name " + Quote(key));
  }
  if (const SlurmKey* k = FindSlurmKey(key, scope)) {
    if (!k->refused.empty()) {
      return InvalidArgument(Quote(k->name) +
                             " is managed by the service: " + std::string(k->refused));
    }
    return k;
  }
  if (const uint8_t scopes = ScopesOf(key); scopes != 0) {
    const SlurmKey* k = FindSlurmKey(key);
    return InvalidArgument(Quote(k->name) + " cannot be set in the " + ScopeNames(scope) +
                           " config (it belongs to: " + ScopeNames(scopes) + ")");
  }
  std::vector<std::string> close = SuggestKeys(key, 3, scope);
  if (close.empty()) close = SuggestKeys(key, 3);
  return InvalidArgument("unknown slurm.conf parameter " + Quote(key) + text::DidYouMean(close));
}

Status ValidateSlurmValue(const SlurmKey& key, std::string_view value) {
  switch (key.kind) {
    case ValueKind::kString:
      return Status::Ok();
    case ValueKind::kInteger:
      return ValidateInteger(key, value, key.min < 0 ? "an integer" : "a non-negative integer");
    case ValueKind::kSeconds:
      return ValidateInteger(key, value, "a whole number of seconds");
    case ValueKind::kDuration:
      return ValidateDuration(key, value);
    case ValueKind::kBoolean:
      return ValidateBoolean(value);
    case ValueKind::kWord:
      return ValidateWord(key, value);
    case ValueKind::kWordList:
      return ValidateWordList(key, value);
    case ValueKind::kMemory:
      return ValidateMemory(key, value);
    case ValueKind::kTresList:
      return ValidateTresList(value);
    case ValueKind::kTresWeights:
      return ValidateTresWeights(value);
    case ValueKind::kOverSubscribe:
      return ValidateOverSubscribe(value);
    case ValueKind::kPortRange:
      return ValidatePortRange(value);
    case ValueKind::kAbsolutePath:
      if (value.starts_with("/")) return Status::Ok();
      return InvalidArgument(Quote(value) + " is not an absolute path");
  }
  return Status::Ok();
}

std::vector<std::string> SuggestKeys(std::string_view unknown, size_t max, uint8_t scopes) {
  const std::string n = NormalizeKey(unknown);
  if (n.empty() || max == 0) return {};
  struct Scored {
    size_t distance;
    std::string_view name;
  };
  std::vector<Scored> scored;
  for (const SlurmKey& k : kKeys) {
    if (!k.refused.empty() || !(k.scopes & scopes)) continue;
    const std::string c = NormalizeKey(k.name);
    if (c == n) continue;
    const size_t d = text::EditDistance(n, c);
    const size_t limit = std::max<size_t>(2, std::max(n.size(), c.size()) / 4);
    if (d > limit) continue;
    const bool seen = std::any_of(scored.begin(), scored.end(),
                                  [&k](const Scored& s) { return s.name == k.name; });
    if (!seen) scored.push_back({d, k.name});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.name < b.name;
  });
  // Only the closest tier: "DefMemPerCpus" suggests DefMemPerCPU, not also DefMemPerGPU.
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < max; ++i) {
    if (scored[i].distance > scored[0].distance) break;
    out.emplace_back(scored[i].name);
  }
  return out;
}

}  // namespace gantry::spec
