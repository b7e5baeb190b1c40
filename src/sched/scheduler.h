// The first scheduler (issue 3): one pure pass over the cluster state that says which pending
// jobs start now, where, and why the others wait. gantryd turns each Start into a JobStarted
// event and sets each ReasonChange on the job in memory (reasons are recomputed every pass and
// not logged). Issue 6 replaces the policy, not this interface.
//
// Policy: priority order with consumable resources (select/cons_tres) and backfill (sched/backfill;
// SchedulerType=sched/builtin keeps strict order: a blocked job keeps its partition's free
// nodes and nothing behind it starts there).
//  * Order: the state's pending index (priority high to low, then submit time, then id), jobs
//    of partitions with a higher PriorityTier first (a job's tier is its best partition's).
//    Held jobs (priority 0) and jobs still COMPLETING from a requeue are left alone.
//  * A job whose begin time is after `now` waits with "BeginTime".
//  * A job with a dependency (text/dependency.h) waits with "Dependency" until it holds, or
//    with "DependencyNeverSatisfied" once it cannot (afterok on a job that failed...), or is
//    cancelled then when it asked for --kill-on-invalid-dep=yes. Each pass also gives the
//    job's dependency status as scontrol prints it (DependencyChange, when it changed): the
//    terms still open, "(unfulfilled)" or "(failed)" each, joined by ',' or '?'; "" once met.
//    A job the state no longer holds satisfies any term; singleton waits for running jobs and
//    pending ones with lower ids of the same user and name.
//  * An array's record (pending tasks not yet split off) starts its tasks in task order, as
//    many as fit, at most array_task_throttle running at once ("JobArrayTaskLimit"); each
//    Start names its task. Dependencies on an array wait for all its records (or one task:
//    `12_3`); aftercorr pairs task i with task i of the other array.
//  * Its partitions are tried in the order requested; the first where it fits now wins. In a
//    partition it needs between min_nodes and max_nodes nodes (as many as fit, up to max_nodes)
//    that are up (not COMPLETING, DRAIN, FAIL, DOWN, NOT_RESPONDING, powered down or
//    rebooting), whose configuration fits one node's share of the request (CPUs, memory, GRES,
//    features; state/resources.h) and where that share is still free: the CPUs, memory and GRES
//    the node's jobs hold (its alloc_* fields, this pass's starts added) leave room for it.
//    A job takes whole nodes, which must hold no job, with --exclusive, in an
//    OverSubscribe=EXCLUSIVE partition, under SelectType=select/linear (whole_nodes) or when it
//    asks for all of a node's memory (--mem=0). It must get every -w node and no -x node. Nodes
//    are picked lowest Weight first, then in the partition's order, and listed in configuration
//    order.
//  * Start: num_cpus = the CPUs per node (state::CpusPerNodeOf; whole nodes: all of theirs) x
//    nodes, alloc_mem_mb = memory per node x nodes (a whole node's memory when the job asks
//    for none), time_limit_min = the job's (or the partition's DefaultTime/MaxTime when unset).
//  * Reasons for a job that cannot start (Slurm's names): partition DOWN "PartitionDown",
//    INACTIVE "PartitionInactive"; min_nodes above MaxNodes or max_nodes below MinNodes
//    "PartitionNodeLimit"; time limit above MaxTime "PartitionTimeLimit"; fewer nodes that could
//    ever fit than min_nodes "PartitionConfig" (Slurm 22.05's reason for `-N 10` on a 4-node
//    partition); not enough of them up "ReqNodeNotAvail, UNAVAILABLE:<nodes>"; otherwise
//    "Resources" for the first job blocked in a partition ("Priority" when the nodes kept for
//    earlier jobs would have been enough); later jobs of the partition that do not start wait
//    with "Priority".
//  * Backfill: each job that cannot start now is planned (up to bf_max_job_test jobs a pass, at
//    most bf_max_job_user of one user and bf_max_job_part of one partition):
//    its expected start is the earliest time, within bf_window and rounded up to bf_resolution,
//    when min_nodes of its eligible nodes are wholly free for its whole time limit (a node frees
//    at the latest end, start + time limit, of its jobs; a node running a job without a time
//    limit, or down, never does), and those nodes are kept for it from then until it would end.
//    A later job starts now only on free nodes that it leaves before any such plan needs them:
//    no job delays the planned start of a job before it. Jobs without a time limit only start
//    on nodes nobody planned for. A job that cannot be planned (no nodes free in the window)
//    keeps nothing. A job with several partitions takes the reason of the first partition
//    where it waits for resources, else of the first partition.
//  * Preemption (options.preempt, sched/preempt.h): a job that cannot start is placed as if the
//    running jobs it may preempt had left (only their CPUs where they would be suspended: a
//    suspended job keeps its memory and GRES), on the first eligible nodes in partition order
//    where it then fits (its -w nodes first, min_nodes of them); on each, the candidates it
//    needs gone, oldest first, are its victims (a whole-node job needs them all), as Slurm's
//    gang scheduler suspends every lower-tier job sharing the preemptor's resources. When all
//    victims are to be suspended the job starts now in their CPUs; otherwise they are requeued
//    or cancelled and it starts once their nodes are free (until then a node completing for
//    them counts as free for its placement, so no one else is preempted). Jobs in their exempt
//    time are never victims. In a time-sliced partition (GANG, OverSubscribe=FORCE:n; see
//    sched::TimeSlice) jobs of the same partition that ran a whole time slice are suspended the
//    same way, as long as no CPU then holds more than n jobs.
//  * A ReasonChange is emitted only when the reason differs from the job's current one.
//  * A partition's MaxNodes or MaxTime of 0 (an unset field) reads as UNLIMITED.
// Cost: one pass over the pending index; node scans only for jobs that start or that block a
// partition (per-node fits are cached by partition and request shape; the scan for free nodes
// stops once enough are found, and a request shape that found too few is not looked for again
// in the pass), so 100k pending jobs on 1k nodes take about 25-30 ms of CPU (scheduler_test's
// HundredThousandJobsThousandNodes records it); bench/sched_bench measures 10k shared nodes.
// With tables kept from the last pass (NodeTables) a pass reads only the nodes events changed
// since, and gives back the ones it changed itself.
// Pure; thread-safe (reads the state only).
#ifndef GANTRY_SCHED_SCHEDULER_H_
#define GANTRY_SCHED_SCHEDULER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "gantry/v1/events.pb.h"
#include "sched/node_tables.h"
#include "sched/preempt.h"
#include "state/cluster_state.h"

namespace gantry::sched {

struct Start {
  // For an array's record: the task that starts (gantryd splits it off first, JobArraySplit).
  std::optional<uint32_t> array_task_id;
  uint32_t job_id;
  std::string partition;
  std::vector<std::string> nodes;
  uint32_t num_cpus;
  uint64_t alloc_mem_mb;
  uint32_t time_limit_min;
};

struct ReasonChange {
  uint32_t job_id;
  std::string reason;
};

struct DependencyChange {
  uint32_t job_id;
  std::string status;  // Job.dependency_status
};

// When a job that waits is planned to start (backfill's reservation for it).
struct ExpectedStart {
  uint32_t job_id;
  int64_t time;
};

// What a pass did, for sdiag.
struct PassStats {
  uint32_t queue_length = 0;     // pending jobs (not held) the pass went through
  uint32_t depth = 0;            // jobs (array tasks) tried for a start: past BeginTime and
                                 // dependencies
  uint32_t backfilled = 0;       // jobs started while a job before them waits in that partition
  uint32_t bf_tried = 0;         // waiting jobs backfill tried to plan
  uint32_t bf_planned = 0;       // of them, the ones it planned a start for
  uint32_t bf_reservations = 0;  // node reservations (node, from, to) at the end of the pass
  uint32_t yields = 0;           // times it gave way to others midway (PassYield)
};

// A running job to preempt for a pending one (sched/preempt.h). SUSPEND victims are suspended
// before the preemptor's Start in the same Decisions; REQUEUE and CANCEL victims leave first and
// the preemptor starts in a later pass.
struct Preemption {
  uint32_t victim;
  uint32_t preemptor;
  PreemptAction action;
};

struct Decisions {
  std::vector<Preemption> preemptions;  // before `starts`
  std::vector<Start> starts;
  // Jobs that wait, with the time backfill planned them to start (their nodes are kept for them
  // from then for their time limit: later jobs start earlier only where they end before).
  std::vector<ExpectedStart> expected_starts;
  std::vector<ReasonChange> reasons;
  std::vector<DependencyChange> dependencies;
  // Pending jobs to cancel: their dependency can never be satisfied and they asked for that
  // (--kill-on-invalid-dep=yes).
  std::vector<uint32_t> cancels;
  PassStats stats;
};

// SchedulerType and the backfill parts of SchedulerParameters.
struct SchedulerOptions {
  bool backfill = true;      // sched/backfill (false: sched/builtin, strict order)
  bool whole_nodes = false;  // SelectType=select/linear: every job gets whole nodes
  // bf_interval: the least time between passes that backfill (the caller's choice: Schedule
  // plans in every pass it is given backfill); the passes between keep strict order, as Slurm's
  // main scheduler. 0 (unset): every pass backfills (Gantry's default; Slurm's is 30 s);
  // -1: none does.
  int64_t bf_interval_sec = 0;
  int64_t bf_window_sec = int64_t{1440} * 60;  // bf_window: how far ahead jobs are planned
  int64_t bf_resolution_sec = 60;              // bf_resolution: planned times are rounded up to it
  uint32_t bf_max_job_test = 500;              // bf_max_job_test: jobs planned per pass
  uint32_t bf_max_job_user = 0;  // bf_max_job_user: of them, at most this many per user (0: any)
  uint32_t bf_max_job_part = 0;  // bf_max_job_part: at most this many per partition (0: any)
  PreemptOptions preempt;        // PreemptType, PreemptMode, PreemptExemptTime
  int64_t time_slice_sec = 30;   // SchedulerTimeSlice (gang time-slicing, sched/preempt.h)
  // SchedulerParameters=gantry_minimal_victims (Gantry's; Slurm ignores it): a preemptor goes
  // on the nodes where it costs the fewest, then lowest-priority, victims, and on each node
  // only the jobs it needs go, instead of Slurm's first nodes and oldest jobs.
  bool minimal_victims = false;
  // bf_yield_interval and bf_yield_sleep (microseconds in slurm.conf): a pass that has run
  // this long gives way to the requests waiting for the state (Gantry yields only when one
  // waits; 0: never), for at most bf_yield_sleep. Gantry's defaults: 5 ms and 20 ms (Slurm's:
  // 2 s and 0.5 s, unconditionally). Only gantryd's passes yield (PassYield).
  int64_t bf_yield_interval_us = 5000;
  int64_t bf_yield_sleep_us = 20000;

  // From SchedulerType and SchedulerParameters ("bf_window=2880,bf_resolution=300,...": other
  // parameters are accepted and ignored). Errors name the key, the value and the rule.
  static Result<SchedulerOptions> FromConfig(std::string_view scheduler_type,
                                             std::string_view parameters);
};

// What changed in the state while a pass gave way: the jobs events touched, and whether one
// may have taken capacity the pass counted on (a node's state, a resumed job's CPUs, a
// partition's or the accounting's limits).
struct Interference {
  std::vector<uint32_t> jobs;
  bool capacity = false;
};

// Whether an event applied while a pass gave way may take capacity the pass counted on, or
// change the limits and accounting records it holds (Interference.capacity).
bool MayTakeCapacity(const v1::Event& event);

// How a long pass gives way to others (gantryd's requests). Between jobs the pass asks Due();
// when it is, the pass calls Yield(), during which others may apply events to the state; after
// it, the pass skips jobs that no longer wait, and at its end it drops its decisions about the
// jobs `interference()` names (starts, preemptions whose preemptor or victim changed, cancels,
// reasons, plans); when capacity may have gone it stops at once and drops every start and
// preemption. What it
// dropped is decided again in the next pass. Jobs are never erased meanwhile (the caller
// purges only between passes), so the pass's pointers to them stay valid.
class PassYield {
 public:
  virtual ~PassYield() = default;
  virtual bool Due() = 0;
  virtual void Yield() = 0;
  virtual const Interference& interference() const = 0;
};

// One scheduling pass over the state at `now`. Pure, unless `yield` lets others change the
// state during it (see PassYield). `tables`: the caller's from the last pass over this state
// (NodeTables), brought up to date and used instead of reading every node again; the decisions
// are the same with or without.
Decisions Schedule(const state::ClusterState& state, int64_t now,
                   const SchedulerOptions& options = SchedulerOptions(), PassYield* yield = nullptr,
                   NodeTables* tables = nullptr);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_SCHEDULER_H_
