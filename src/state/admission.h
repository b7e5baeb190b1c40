// Job admission: turns what sbatch sent (v1::JobRequest) into the PENDING job record the
// controller keeps, or refuses it with the text Slurm 22.05's slurmctld gives (sbatch prints it
// after "sbatch: error: Batch job submission failed: ").
//
// Defaults filled into the record's request: partitions (the default partition, else the first
// one), name ("sbatch"), min_nodes (from -n/--ntasks-per-node, and enough nodes of the largest
// kind in the partition for all the CPUs: -n 1000 on 64-CPU nodes asks for 16), memory (the
// partition's DefMemPerCPU / DefMemPerNode when neither --mem nor --mem-per-cpu is given). Left
// as given: num_tasks, cpus_per_task, time_limit_min (the record's time_limit_min is the
// effective one: -t, else the partition's DefaultTime, else its MaxTime), std_* patterns.
//
// Checks, in Slurm's terms (message = the gRPC/CLI text):
//   unknown partition                       Invalid partition name specified
//   no partition at all                     No partition specified or system default partition
//   partition DRAIN or INACTIVE             Required partition not available (inactive or drain)
//   RootOnly partition, caller not root     Access/permission denied
//   AllowGroups without any of the caller's
//     groups (primary or supplementary)     User's group not permitted to use this partition
//   AllowAccounts without the job's account Invalid account or account/partition combination
//                                           specified
//   AllowQos without the job's QOS          Invalid qos specification
//   negative nice from a non-operator       Invalid --nice value
//   min_nodes > max_nodes; -w more nodes
//     than max_nodes                        Node count specification invalid
//   bad or unknown -w/-x host names         Invalid node name specified
//   -w nodes outside the partition          Requested nodes not in this partition
//   bad --gres, or a GRES no node has       Invalid generic resource (gres) specification
//   bad -C, or a feature no node has        Invalid feature specification
//   no node could ever hold one node's
//     share (CPUs, memory, GPUs, features)  Requested node configuration is not available
//   --mem above MaxMemPerNode, or
//     --mem-per-cpu above MaxMemPerCPU      Memory required by task is not available
//   --time-min above the time limit         Invalid time-min specification (exceeds job's time
//                                           or other limits)
//   bad --array                             Invalid job array specification
//   with AccountingStorageEnforce: unknown user or account, or no association of the user
//     with the account for any requested
//     partition (those without one are dropped)  Invalid account or account/partition
//                                           combination specified
//   unknown QOS, or (qos enforced) a QOS the
//     association does not allow             Invalid qos specification
//   (limits enforced) more jobs pending or
//     running than the QOS's
//     MaxSubmitJobsPerUser, MaxSubmitJobs /  QOSMaxSubmitJobPerUserLimit /
//     GrpSubmitJobs allow                    AssocMaxSubmitJobLimit / AssocGrpSubmitJobsLimit,
//                                            then "Job violates accounting/QOS policy (job
//                                            submit limit, user's size and/or time limits)"
//                                            (two lines: sbatch prints both)
// The record's account is the one given, else the user's default account; its QOS the one
// given, else the association's default (state/accounting.h), "normal" without enforcement.
// As in Slurm with EnforcePartLimits=NO (its default), a job beyond a partition's limits (more
// nodes than it has, above MaxNodes or MaxTime) is accepted and waits with the scheduler's
// reason (PartitionConfig, PartitionNodeLimit, PartitionTimeLimit); with
// AdmitOptions.enforce_part_limits it is refused ("Node count specification invalid",
// "Requested time limit is invalid (missing or exceeds some limit)"). A job that is valid for
// at least one of its partitions is accepted. Every error is InvalidArgument except
// PermissionDenied for the access checks.
// Job arrays are issue 4: a valid --array is refused for now ("job arrays are not supported
// yet").
// Pure; thread-safe.
#ifndef GANTRY_STATE_ADMISSION_H_
#define GANTRY_STATE_ADMISSION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"
#include "spec/effective_config.h"
#include "state/cluster_state.h"

namespace gantry::state {

struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user_name;
  std::string group_name;
  bool is_operator = false;
  // Every group the user is in (primary and supplementary), for AllowGroups.
  std::vector<std::string> group_names;
};

struct AdmitOptions {
  bool job_requeue_default = true;      // slurm.conf JobRequeue
  bool enforce_part_limits = false;     // slurm.conf EnforcePartLimits other than NO
  uint32_t max_array_size = 1001;       // slurm.conf MaxArraySize
  uint32_t max_job_count = 10000;       // slurm.conf MaxJobCount: job records kept at most
  uint64_t max_script_bytes = 4 << 20;  // SchedulerParameters max_script_size
  uint32_t max_step_count = 40000;      // slurm.conf MaxStepCount: step ids a job may use
  // AccountingStorageEnforce: associations (also implied by limits, qos, safe), qos.
  bool enforce_associations = false;
  bool enforce_qos = false;
  bool enforce_limits = false;  // limits (also safe, all): MaxSubmitJobs, GrpSubmitJobs here
  bool enforce_safe = false;    // safe: jobs start only if they can finish within Grp*Mins
  // nojobs (implies nosteps) / nosteps: sacct and sreport see no jobs / no step lines.
  bool enforce_nojobs = false;
  bool enforce_nosteps = false;
};

// The options a cluster runs with (JobRequeue, EnforcePartLimits, MaxArraySize, MaxJobCount,
// MaxStepCount, SchedulerParameters max_script_size, AccountingStorageEnforce).
AdmitOptions AdmitOptionsFromConfig(const spec::EffectiveConfig& config);

// Slurm's length limits of a submission's texts (one table in admission.cc: 1024 bytes for
// names, accounts, comments...; 4096 for paths and --array; 128 KiB for --dependency), and the
// script's size (max_script_bytes). InvalidArgument "Pathname of a file, directory or other
// parameter too long", as slurmctld says it; the log line names the field (FieldTooLong).
Status CheckRequestLengths(const v1::JobRequest& request);
Status CheckPayloadSize(const v1::JobPayload& payload, const AdmitOptions& options);
// The field of `request` over its limit, as "name: N bytes, at most M"; empty when none is.
std::string FieldTooLong(const v1::JobRequest& request);

// Texts other users see (squeue, scontrol show job, sacct) and root's prolog and epilog get in
// their environment hold no control characters (bytes below 0x20 and 0x7f: a terminal escape
// in a job name would reach every user who lists the queue). InvalidArgument naming the field
// and the byte. Every string field of the request but export_env (the environment sbatch
// exports, which the job alone sees). Slurm accepts them; Gantry does not.
Status CheckRequestTexts(const v1::JobRequest& request);
// A step's name (srun -J): the same rules, 1024 bytes at most as slurmctld's step_create.
Status CheckStepName(std::string_view name);

// The Slurm text of a full queue (MaxJobCount): sbatch retries on it (ResourceExhausted).
inline constexpr char kQueueFull[] = "Resource temporarily unavailable";

// Turns a submit request into a PENDING job record WITHOUT an id (the caller sets job_id =
// state.next_job_id and emits JobSubmitted): defaults filled, validated against the partitions
// and nodes, priority (state/priority.h; 0 when held) and initial reason set (None, BeginTime,
// JobHeldUser), submit/eligible/accrue times from `now`, exit_status -1 (not ended).
// Also refuses what CheckRequestLengths does, and a submission that would take the job records
// to MaxJobCount (ResourceExhausted kQueueFull; an array counts each of its tasks).
Result<v1::Job> AdmitJob(const ClusterState& state, const v1::JobRequest& request,
                         const Caller& caller, int64_t now, const AdmitOptions& options);

// `scontrol update` of a pending job that changed its partitions, account or QOS (`before` ->
// `after`, as state/job_update.h made it): the changed job must pass admission as its owner
// would have submitted it (RootOnly, AllowGroups, AllowAccounts, AllowQos, associations, QOS
// access; with limits enforced, the submit limits of the QOS and association it moves into,
// and DenyOnLimit). `owner` is the job's user, whoever asks: an operator too may move a job
// only where its user could have submitted it. Returns `after` with the account, QOS and
// partition admission gives it (defaults filled); unchanged when none of the three changed.
// Errors as AdmitJob's.
Result<v1::Job> ReadmitUpdatedJob(const ClusterState& state, const v1::Job& before,
                                  const v1::Job& after, const Caller& owner, int64_t now,
                                  const AdmitOptions& options);

}  // namespace gantry::state

#endif  // GANTRY_STATE_ADMISSION_H_
