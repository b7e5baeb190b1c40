// The controller's in-memory state of a running cluster, and the one pure function that changes
// it: Apply(state, event). gantryd appends every accepted change to its durable log as a
// v1::Event, then applies it here; a restart loads the latest snapshot (FromSnapshot) and
// re-applies the events after it, so the same events always yield the same state.
//
// Apply follows Slurm 22.05's job and node life cycle:
//   JobSubmitted      adds the job; next_job_id moves past its id (ids are never reused).
//   JobStarted        PENDING -> RUNNING+CONFIGURING on the given nodes (start/end time, cpus,
//                     memory, epoch); each node lists the job, gets its share of CPUs/memory
//                     (and the job's per-node GRES in alloc_gres) and turns ALLOCATED. gantryd
//                     clears CONFIGURING with a JobUpdated once every prolog is done
//                     (JobConfiguredEvent() in state/events.h builds it).
//   JobEnded          a final base state (COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL...);
//                     the end time is the event's (the suspend time for a suspended job);
//                     a job that had nodes becomes COMPLETING, its nodes COMPLETING, and
//                     `completing` lists the nodes that must still release it. Its CPUs and
//                     memory are released at once (as Slurm's select plugin does).
//   JobNodeReleased   one node finished the epilog (or was lost): it drops the job; a node left
//                     without jobs is IDLE again (DRAIN keeps it drained); epilog_failed drains
//                     it with the message as reason. When no node remains, COMPLETING clears.
//                     Both JobStarted and this set the node's last_busy_time to the event time.
//   JobRequeued       back to PENDING: Restarts+1, new submit time, start/end/exit cleared;
//                     hold = priority 0, REQUEUE_HOLD and reason JobHeldAdmin (or the event's
//                     reason); nodes still completing keep the job COMPLETING until released.
//   JobHoldChanged    hold: priority 0, JobHeldUser/JobHeldAdmin; release: priority from nice,
//                     reason None.
//   JobArraySplit     one pending task of an array record becomes its own PENDING job (a copy
//                     with array_task_id set and a new id), or, for the record's last pending
//                     task, the record itself turns into that task.
//   JobStepChanged    adds the job's next step (ids count from 0) or replaces one (its end);
//                     JobEnded ends the steps still running (CANCELLED, or COMPLETED with
//                     the job).
//   JobUpdated        replaces the record; it may not change the base state or the nodes.
//   JobPriorityChanged  priority and (when given) reason (replay only: nothing writes it now).
//   NodeRegistered    address/hostname/boot time/version/os; clears NOT_RESPONDING; an UNKNOWN
//                     node comes up (first registration); a DOWN node comes up when
//                     ReturnToService allows (1: it was down for "Not responding"; 2: always).
//   NodeStateChanged  scontrol update State=: DRAIN, FAIL (flag + reason, uid, time), DOWN,
//                     RESUME/IDLE (clear DOWN, DRAIN and FAIL; a no-op on a plain node),
//                     UNDRAIN. A DOWN node keeps its jobs: gantryd ends or requeues them.
//   NodeLost          DOWN+NOT_RESPONDING; reason "Not responding" unless a reason is set.
//   ConfigLoaded      new node and partition definitions; nodes keep their runtime state, new
//                     nodes start UNKNOWN+NOT_RESPONDING; a node that still has jobs cannot go.
//                     scontrol's partition changes (partition_overrides) apply again, except a
//                     field whose spec value changed since (the spec wins).
//   JobSuspended      RUNNING -> SUSPENDED (scontrol suspend): pre_suspend_secs += the time run
//                     since the start or last resume, suspend_time = now; its CPUs and GRES are
//                     released (memory stays allocated) and its nodes turn IDLE when no other job
//                     runs there (Slurm's operator suspend). Time limits do not run meanwhile.
//   JobResumed        SUSPENDED -> RUNNING: suspend_time = now, end time = now + time limit -
//                     pre_suspend_secs; the CPUs are taken again (even when another job took
//                     them meanwhile, as in Slurm).
//   PartitionUpdated  scontrol update PartitionName=: State (UP, DOWN, DRAIN, INACTIVE), MaxTime,
//                     DefaultTime; recorded in partition_overrides so a ConfigLoaded keeps them.
//   AccountingChanged sacctmgr's entities put and removed as given (state/accounting.h); the
//                     controller checked the result before committing it.
// An event that does not fit the state (unknown job or node, illegal job-state transition per
// model::CheckJobTransition, a node released twice...) returns an error and changes nothing.
//
// ClusterState is a plain value: copying it gives an independent snapshot (gantryd publishes
// copies to readers). Its indexes are derived data: Apply and FromSnapshot keep them right; code
// that edits `jobs`, `nodes` or `partitions` directly must call RebuildIndexes() afterwards.
// Pure; not thread-safe for concurrent writes (one writer), copies are independent.
#ifndef GANTRY_STATE_CLUSTER_STATE_H_
#define GANTRY_STATE_CLUSTER_STATE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/events.pb.h"
#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"
#include "spec/effective_config.h"
#include "state/accounting.h"
#include "state/resources.h"

namespace gantry::state {

// Slurm's INFINITE: an UNLIMITED time limit, MaxTime or MaxNodes.
inline constexpr uint32_t kUnlimited = 0xFFFFFFFF;

// Where a pending job stands in the scheduling order: priority (higher first), then submit time
// (earlier first), then id.
struct PendingKey {
  uint32_t priority = 0;
  int64_t submit_time = 0;
  uint32_t job_id = 0;

  friend bool operator<(const PendingKey& a, const PendingKey& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.submit_time != b.submit_time) return a.submit_time < b.submit_time;
    return a.job_id < b.job_id;
  }
  friend bool operator==(const PendingKey&, const PendingKey&) = default;
};

PendingKey PendingKeyOf(const v1::Job& job);

// A value unique in the process, drawn anew by every copy and assignment (see
// ClusterState::lineage).
class Lineage {
 public:
  Lineage() : id_(Next()) {}
  Lineage(const Lineage& /*other*/) : id_(Next()) {}
  Lineage& operator=(const Lineage& /*other*/) {
    id_ = Next();
    return *this;
  }
  uint64_t id() const { return id_; }
  void Renew() { id_ = Next(); }

 private:
  static uint64_t Next();
  uint64_t id_;
};

// The nodes' definitions grouped: what each distinct definition offers (CPUs, memory, Gres,
// features) and which one each node has. Derived from `nodes` by RebuildIndexes (definitions
// change only with ConfigLoaded, which rebuilds the indexes) and shared by copies.
struct NodeConfigs {
  std::vector<NodeCapacity> capacities;  // one per distinct definition
  std::vector<uint32_t> of_node;         // per node: its definition's index in `capacities`
  // Per partition: the definitions its nodes have, ascending.
  std::vector<std::vector<uint32_t>> of_partition;

  const NodeCapacity& Of(uint32_t node) const { return capacities[of_node[node]]; }
};

struct ClusterState {
  uint32_t next_job_id = 1;                              // ids never reused
  std::map<uint32_t, v1::Job> jobs;                      // every job the controller still keeps
  std::vector<v1::Node> nodes;                           // config order (compute pools, spec order)
  std::vector<v1::Partition> partitions;                 // spec order
  std::map<uint32_t, std::set<std::string>> completing;  // job -> nodes that must still release it
  // scontrol update PartitionName= changes by partition name, kept over the spec's definitions.
  std::map<std::string, v1::PartitionOverride> partition_overrides;
  int32_t return_to_service = 0;  // slurm.conf ReturnToService (0,1,2); configuration, set by
                                  // the caller (ReturnToServiceFromConfig), not by events
  AccountingDb accounting;        // sacctmgr's entities (AccountingChanged)
  bool enforce_limits = false;    // AccountingStorageEnforce limits (configuration, like
                                  // return_to_service): the scheduler applies MaxJobs...
  bool enforce_safe = false;      // AccountingStorageEnforce safe (configuration): GrpTRESMins
                                  // and GrpWall count the job's whole time limit
  // PreemptType other than preempt/none (configuration): a job that starts may be preempted
  // from start + its QOS's PreemptExemptTime (else preempt_exempt_sec): its
  // preempt_eligible_time, which scontrol prints.
  bool preemption = false;
  int64_t preempt_exempt_sec = 0;
  bool billing_max_tres = false;  // PriorityFlags MAX_TRES (configuration): Job.billing takes
                                  // the largest node TRES (model/billing.h)

  // Indexes (derived; see RebuildIndexes).
  std::map<std::string, uint32_t, std::less<>> node_index;  // node name -> index in `nodes`
  // Per partition (same order as `partitions`): indexes in `nodes` of its nodes, in the
  // partition's order; unknown names are left out.
  std::vector<std::vector<uint32_t>> partition_nodes;
  // The nodes' definitions (never null; current once RebuildIndexes ran: see ConfigsOf).
  std::shared_ptr<const NodeConfigs> node_configs = std::make_shared<const NodeConfigs>();
  // Every PENDING job, in scheduling order (held jobs, priority 0, last).
  std::set<PendingKey> pending;
  // Every RUNNING or SUSPENDED job: what the time limits look at, without a walk of the nodes.
  std::set<uint32_t> active;
  // The jobs preemption or time-slicing suspended (SUSPENDED with Job.preempted_by): gantryd
  // looks at them before every pass to resume those whose CPUs are free again.
  std::set<uint32_t> preempted;
  // Job arrays: array_job_id -> the ids of the records it still has (its own record while it
  // has pending tasks or once it became the last task, and every task split off).
  std::map<uint32_t, std::set<uint32_t>> arrays;
  // The ids of the job records Apply added, changed or may have changed, and those
  // PurgeFinishedJobs removed, in order, repeats included: for what the owner keeps beside the
  // state (gantryd's serialized records). The owner clears it; an owner that keeps nothing
  // may ignore it (it grows by an id per job an event touches). Code that edits a record
  // directly adds its id here itself.
  std::vector<uint32_t> changed_jobs;
  // The ids of jobs that entered the pending index or changed their place in it (submitted,
  // released, requeued, updated), in order, repeats included: for an owner that computes
  // priorities (priority/multifactor). The owner clears it; others may ignore it.
  std::vector<uint32_t> entered_pending;
  // How many events Apply applied since the cluster began (the snapshot keeps the count): an
  // order for what records note of it (Job.node_releases).
  uint64_t events_applied = 0;
  // For tables derived from the nodes and kept between scheduling passes (sched::NodeTables):
  // per node (as `nodes`), the value of node_clock when an event last changed the node or a
  // job running there (RebuildIndexes sizes it, all 0). A node stamped after a table's last
  // look is looked at again.
  std::vector<uint64_t> node_stamps;
  uint64_t node_clock = 0;
  // Which state, and which node definitions and partitions, such tables were built from: a new
  // value whenever the state is copied or assigned (a copy goes its own way) or its indexes are
  // rebuilt (ConfigLoaded, a partition's Nodes=, FromSnapshot, direct edits).
  Lineage lineage;

  const v1::Node* FindNode(std::string_view name) const;
  const v1::Partition* FindPartition(std::string_view name) const;
  // The partition marked is_default, else the first one; nullptr when there is none.
  const v1::Partition* DefaultPartition() const;
  const v1::Job* FindJob(uint32_t id) const;

  // Index of the node / partition in `nodes` / `partitions`, or -1.
  int NodeIndex(std::string_view name) const;
  int PartitionIndex(std::string_view name) const;
  // The indexes of the nodes a hostlist (-w, -x) names, in its order without repeats (none for
  // ""); nullopt when it does not parse or names an unknown node.
  std::optional<std::vector<uint32_t>> NodeIndexesOf(std::string_view hostlist) const;
};

// Sets a pending job's priority in memory, keeping the pending index right (priority/multifactor
// recomputes priorities and keeps them there, not in events). No-op for other jobs.
void SetJobPriority(ClusterState* state, uint32_t job_id, uint32_t priority);

// The same for every pending job at once: `priority` gives each one's new priority (nullopt:
// keep it); the pending index is rebuilt in one go (priority/multifactor's full recalculation).
void SetPendingPriorities(ClusterState* state,
                          const std::function<std::optional<uint32_t>(const v1::Job&)>& priority);

// The state's node_configs when they match its nodes, else (a state whose indexes were never
// built) `scratch` filled from the nodes.
const NodeConfigs& ConfigsOf(const ClusterState& state, NodeConfigs* scratch);

// Recomputes node_index, partition_nodes, node_configs, pending, preempted and arrays from jobs,
// nodes and partitions; renews the lineage and stamps no node.
void RebuildIndexes(ClusterState* state);

// Applies one event (see the file comment). On error the state is unchanged.
Status Apply(ClusterState* state, const v1::Event& event);

// Forgets finished jobs that are done with clean-up (not COMPLETING) and ended before
// `ended_before` (Slurm's MinJobAge purge: gantryd calls it with now - MinJobAge). Not an event:
// which old finished jobs a replayed state still holds does not matter. Returns how many went.
size_t PurgeFinishedJobs(ClusterState* state, int64_t ended_before);

// The whole state as one message, and back. FromSnapshot checks what the indexes need (distinct
// node names and job ids, completing entries naming known jobs) and rebuilds the indexes;
// return_to_service is configuration and stays 0 there.
v1::ClusterSnapshot ToSnapshot(const ClusterState& state);
Result<ClusterState> FromSnapshot(const v1::ClusterSnapshot& snapshot);

// A snapshot's bytes in the store: the message, then a trailer ("GSN1", the message's length
// and its FNV-1a 64 hash, little endian), so that a truncated, empty or damaged snapshot is
// found instead of being loaded as an empty cluster. EncodeSnapshot refuses a message over
// kMaxSnapshotBytes (ResourceExhausted: the stores' blob limit; the event log still holds
// everything) or one protobuf cannot serialize (Internal). DecodeSnapshot also reads a snapshot
// written before the trailer (not empty, parses); any other mismatch is DataLoss-like Internal
// naming what is wrong.
inline constexpr size_t kMaxSnapshotBytes = size_t{900} << 20;
Result<std::string> EncodeSnapshot(const v1::ClusterSnapshot& snapshot);
Result<v1::ClusterSnapshot> DecodeSnapshot(std::string_view bytes);

// Nodes of every compute pool (not the login pool) with cpus/memory/gres/features from the
// effective config, and partitions with their limits (MaxTime, DefaultTime, PriorityTier,
// MaxNodes, OverSubscribe, DefMemPerCPU..., other keys into Partition.extra). Node states are
// left UNKNOWN (Apply decides what a new node starts as). Unset limits: MaxTime, MaxNodes =
// UNLIMITED; DefaultTime = 0 (NONE); PriorityTier and PriorityJobFactor = 1; memory limits and
// defaults = 0 (none; the cluster-wide value applies when the partition has none).
v1::ConfigLoaded ConfigFromSpec(const spec::EffectiveConfig& config);

// The ReturnToService gantryd runs with: the spec's value, else Gantry's default (2, as in the
// rendered slurm.conf).
int32_t ReturnToServiceFromConfig(const spec::EffectiveConfig& config);

}  // namespace gantry::state

#endif  // GANTRY_STATE_CLUSTER_STATE_H_
