// `gantry sim`'s engine room: replays a workload through gantryd's own core (sim::Engine) on a
// simulated clock and records what happened to every job.
//
// Time: the workload's second 0 is kSimEpoch (2026-01-01T00:00:00Z, a fixed time so that runs
// are reproducible, PriorityUsageResetPeriod boundaries included), or the workload's own start
// time (a cluster's history: the clock as it was); results count seconds from it. A pass runs after
// each submission and whenever an agent's report came, and at every moment a decision may change by
// itself (a time limit, a requeued job's begin time, a gang turn, bf_interval), as gantryd's passes
// follow its kicks; gantryd also passes every second, which changes nothing in between. A cluster's
// history with its pass log (Workload::passes) is replayed instead: a cycle runs at each recorded
// one and at no other moment, after the submissions and reports that cycle had seen (their recorded
// orders).
//
// Jobs: each workload job is submitted through admission (core::SubmitEvent) as its user, in
// its account (a job admission refuses is REFUSED, with the reason). A job with `after` is
// submitted `after_delay_s` after that job ended (SWF's think time), never if it never ends.
// Batch scripts run the job's run time; prologs and epilogs take AgentTimes. Finished jobs are
// forgotten MinJobAge after their end, as gantryd forgets them (what that changes, such as a
// dependency on a forgotten job, changes here too).
//
// Accounting: the cluster's default (root), plus an account under root for each account the
// workload names and an association for each (user, account) pair, 1 share each, unless the
// input gives its own change. Deterministic: the same input gives the same result.
#ifndef GANTRY_SIM_SIMULATOR_H_
#define GANTRY_SIM_SIMULATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/context.h"
#include "gantry/v1/accounting.pb.h"
#include "gantry/v1/events.pb.h"
#include "sim/engine.h"
#include "sim/workload.h"
#include "state/admission.h"

namespace gantry::sim {

inline constexpr int64_t kSimEpoch = 1767225600;  // 2026-01-01T00:00:00Z

// The simulated clock at the workload's second 0: its own start time where it has one (a
// cluster's history), else kSimEpoch.
inline int64_t EpochOf(const Workload& workload) {
  return workload.start_time != 0 ? workload.start_time : kSimEpoch;
}

struct SimulationInput {
  v1::ConfigLoaded cluster;  // nodes and partitions (state::ConfigFromSpec)
  core::Config config;
  state::AdmitOptions admit;
  uint32_t min_job_age_sec = 300;  // MinJobAge
  AgentTimes agent_times;
  Workload workload;
  // The associations, users and accounts (none: made from the workload, see above).
  std::optional<v1::AccountingChange> accounting;
};

struct JobOutcome {
  uint64_t trace_id = 0;  // the workload's id
  std::string job_id;     // Gantry's ("12", or "10_3" for an array task); "" when refused
  std::string user;
  std::string account;
  std::string partition;
  // COMPLETED, TIMEOUT, PREEMPTED, CANCELLED..., REFUSED (admission said no), PENDING or
  // RUNNING (the workload ran out first), NOT_SUBMITTED (its `after` job never ended).
  std::string state;
  std::string refusal;  // admission's error, for REFUSED
  int64_t submit = -1;  // seconds from the workload's start; -1: never
  int64_t start = -1;   // the last start (a requeued job starts again)
  int64_t end = -1;
  int64_t run = 0;  // the workload's run time
  uint32_t nodes = 0;
  uint32_t cpus = 0;
  std::string node_list;
  uint32_t preemptions = 0;  // times preemption requeued, suspended or ended it
};

// The cluster at one moment, for the report's plots.
struct Sample {
  int64_t t = 0;
  uint32_t pending = 0;
  uint32_t running = 0;
  uint64_t busy_cpus = 0;
};

struct SimulationResult {
  std::vector<JobOutcome> jobs;  // in workload order; an array's tasks in task order
  std::vector<Sample> timeline;  // at every change of the counts, at most one per second
  uint64_t total_cpus = 0;       // of the cluster's nodes
  uint64_t cycles = 0;           // passes run
  int64_t end = 0;               // the simulated time when the last job finished
  // Each account's share of its parent's (its fair-share target, 0..1), for every account the
  // accounting names but root.
  std::vector<std::pair<std::string, double>> account_targets;
};

Result<SimulationResult> Simulate(const SimulationInput& input);

}  // namespace gantry::sim

#endif  // GANTRY_SIM_SIMULATOR_H_
