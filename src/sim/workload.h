// A workload for `gantry sim`: the jobs to submit, when, what they ask for and how long they
// really run, whatever the trace format they came from (SWF: swf.h).
//
// From SWF (WorkloadFromSwf), one job per line:
//   - id: the job number; submit: the submit time, shifted so that the first job comes at 0;
//   - cpus: the requested processors, else the allocated ones; nodes: cpus over the cluster's
//     CPUs per node, rounded up (SWF counts processors; Gantry's traces of whole-node machines
//     such as the iPSC/860 have one per node);
//   - whole nodes (exclusive) with SwfConversion::whole_nodes;
//   - run: the run time; time limit: the requested time, but never below the run time (the real
//     system let the job run that long), and the run time when none was requested;
//   - user "u<N>" and account "g<N>" from the user and group ids ("unknown" for -1);
//     partition: the queue's name when the header's "Queue: N name"
//     lines name it, else "q<N>", else none (the default partition);
//   - a preceding job (field 17) becomes a dependency: this job starts `think time` seconds
//     after that one ended (afterany plus a delay), as SWF means it.
// Jobs that never ran (no run time, or cancelled before they started: status 5 and run time 0)
// are left out and counted. A dependency on a job the workload does not hold (a cleaned trace
// removed it, it never ran, or it comes later) is dropped and counted: that job cannot hold this
// one back. Errors (InvalidArgument, naming the job and the field): no processors known.
//
// Pure functions; thread-safe.
#ifndef GANTRY_SIM_WORKLOAD_H_
#define GANTRY_SIM_WORKLOAD_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"
#include "sim/swf.h"

namespace gantry::sim {

struct WorkloadJob {
  uint64_t id = 0;
  int64_t submit_s = 0;  // from the workload's start
  int64_t run_s = 0;
  int64_t time_limit_s = 0;
  uint32_t nodes = 1;
  uint32_t cpus = 1;
  std::string user;
  std::string account;
  std::string partition;   // empty: the default partition
  std::string qos;         // empty: the association's default
  std::string array;       // a job array's --array value ("0-9%2"); empty: not an array
  bool exclusive = false;  // --exclusive: whole nodes, shared with no other job
  // Starts `after_delay_s` seconds after job `after` ended (in any state); nullopt: no dependency.
  std::optional<uint64_t> after;
  int64_t after_delay_s = 0;
  // A cluster's own history (WorkloadFromHistory): the request as the cluster accepted it,
  // submitted as it is (the fields above only describe it), by `uid`; and each array task's own
  // run time where it differs from run_s.
  std::optional<v1::JobRequest> request;
  uint32_t uid = 0;
  std::map<uint32_t, int64_t> task_run_s;
  // How many of its runs a preemption ended and requeued (Job.earlier_runs), and each array
  // task's where it has any: a replay, which preempts as the cluster did, runs those until
  // something ends them too; run_s is the last run's. Runs a node's failure or `scontrol
  // requeue` ended are not counted: a replay does neither.
  uint32_t preempted_runs = 0;
  std::map<uint32_t, uint32_t> task_preempted_runs;
  // Where its submission and its (last) end came among the events of their seconds
  // (Job.submit_order, Job.end_order; 0: not known), and each array task's end.
  uint64_t submit_order = 0;
  uint64_t end_order = 0;
  std::map<uint32_t, uint64_t> task_end_order;
  // When each node released it (Job.node_releases: every run's, in time order) and where the
  // release came among the events of its second, and each array task's; each task's own job id
  // there (a dependency may name it).
  struct Release {
    int64_t at_s = 0;  // from the workload's start
    uint64_t order = 0;
    friend bool operator==(const Release&, const Release&) = default;
  };
  using Releases = std::map<std::string, std::vector<Release>>;  // by node
  Releases releases;
  std::map<uint32_t, Releases> task_releases;
  std::map<uint32_t, uint32_t> task_job_ids;

  // Field by field (the requests by their bytes).
  friend bool operator==(const WorkloadJob& a, const WorkloadJob& b);
};

struct Workload {
  std::vector<WorkloadJob> jobs;  // by submit time
  // The real time of second 0 (a cluster's history: its first submission), so that a replay
  // meets every rule of the clock (bf_resolution's grid, usage periods) as the cluster did;
  // 0: none (the simulator's fixed epoch).
  int64_t start_time = 0;
  // A cluster's history: the cycles its controller ran that a replay runs where they ran
  // (core/pass_log.h), times from the workload's start; empty: the simulator runs its own.
  std::vector<v1::PassMark> passes;
  size_t never_ran = 0;  // trace lines left out: the job never ran
  size_t dropped_dependencies = 0;
};

struct SwfConversion {
  uint32_t cpus_per_node = 1;
  // The trace's machine gave each job whole nodes (as most did): so does the workload.
  bool whole_nodes = true;
};

Result<Workload> WorkloadFromSwf(const SwfTrace& trace, const SwfConversion& conversion);

// A workload written by hand, as JSON:
//   {"jobs": [{"id": 1, "submit": 0, "run": 60, "time_limit": 120, "nodes": 2, "cpus": 8,
//              "user": "alice", "account": "ml", "partition": "gpu", "qos": "high",
//              "array": "0-9%2", "exclusive": true, "after": 3, "after_delay": 30}, ...]}
// Times in seconds. Required: submit, run and user. Defaults: id its position (from 1),
// time_limit the run time (a smaller one ends the job at its limit, as TIMEOUT), nodes 1, cpus
// the nodes. Jobs are ordered by submit time (ties keep their order). Errors: InvalidArgument
// "<name>: jobs[i].<key>: <value>: <rule>" (unknown keys included: a typo must not pass).
Result<Workload> ParseWorkloadJson(std::string_view text, std::string_view name);

// A cluster's history: the records of the jobs it ran to their end (the store's archive), as
// the workload that reproduces them. Each job is submitted at its own submit time (second 0 is
// the first submission) with the request it was accepted with, by its user, and its batch
// script runs as long as it ran: end - start, less the time it spent suspended. An array is
// one job, its tasks' run times each their own. Times in requests (--begin) move with the
// workload's start; salloc's and srun's allocations replay as batch jobs of their length.
// Records that never started (cancelled while pending) are submitted and cancelled as nothing
// can be: they are left out and counted in never_ran. Ordered by submit time, then job id, so
// that a replay gives the jobs their ids again as far as it can (array tasks take ids as they
// start; the simulator rewrites dependencies to the replay's ids). Each job's epilog takes as
// long as it took (Job.node_releases), so that its nodes free up in the second they did.
// `passes`, the controller's pass log, become the workload's (those before its start left out):
// the replay then runs a cycle at each and no other, after the events that cycle had seen.
Workload WorkloadFromHistory(const std::vector<v1::Job>& records,
                             const std::vector<v1::PassMark>& passes = {});

}  // namespace gantry::sim

#endif  // GANTRY_SIM_WORKLOAD_H_
