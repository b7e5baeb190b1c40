// What `gantry sim` writes: the summary of a run, jobs.csv, summary.json, a comparison of two
// runs, and an HTML page with plots. Pure functions of a SimulationResult, so equal inputs give
// equal bytes.
#ifndef GANTRY_SIM_REPORT_H_
#define GANTRY_SIM_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/simulator.h"

namespace gantry::sim {

struct AccountUsage {
  std::string account;
  uint64_t jobs = 0;
  double cpu_seconds = 0;
  double usage_share = 0;   // of all the CPU time the jobs used
  double target_share = 0;  // its fair-share target (shares over its siblings')
};

struct Summary {
  uint64_t jobs = 0;
  std::map<std::string, uint64_t> states;  // JobOutcome::state -> jobs
  int64_t makespan_s = 0;                  // from the first submission to the last end
  double utilization = 0;                  // CPU time used over CPU time there was
  double wait_mean_s = 0;                  // of the jobs that started
  int64_t wait_p50_s = 0;
  int64_t wait_p95_s = 0;
  int64_t wait_max_s = 0;
  // Bounded slowdown: max(1, (wait + run) / max(run, 10 s)), averaged over the jobs that ended.
  double bounded_slowdown_mean = 0;
  uint64_t preemptions = 0;
  uint64_t cycles = 0;
  std::vector<AccountUsage> accounts;  // by name
};

Summary Summarize(const SimulationResult& result);

// jobs.csv: a header, then a row per job in workload order: job_id, trace_id, user, account,
// partition, state, submit, start, end, wait, run, nodes, cpus, node_list, preemptions (times
// in seconds from the workload's start; -1 and empty cells for what never happened).
std::string JobsCsv(const SimulationResult& result);
// summary.json, indented, keys in a fixed order, ending with a newline.
std::string SummaryJson(const Summary& summary);
// The summary as lines a person reads.
std::string SummaryText(const Summary& summary);
// Two runs side by side: each figure of `a` and `b` with the difference, then how many jobs
// started at another time or on other nodes.
std::string CompareText(const std::string& a_name, const SimulationResult& a,
                        const std::string& b_name, const SimulationResult& b);
// One self-contained HTML page (inline SVG, no scripts): the summary, queue length and
// utilization over time, and the distribution of waits.
std::string HtmlReport(const std::string& title, const SimulationResult& result);

}  // namespace gantry::sim

#endif  // GANTRY_SIM_REPORT_H_
