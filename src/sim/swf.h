// The Standard Workload Format (SWF 2.2, the Parallel Workloads Archive's format for job logs),
// the workload `gantry sim` replays.
//
// A trace is text: header comments (";Key: value" lines; "Queue:", "Partition:" and "Note:"
// may repeat) then one line per job of 18 whitespace-separated numbers, in this order:
//    1 job number          2 submit time (s)      3 wait time (s)        4 run time (s)
//    5 allocated procs     6 average CPU time (s) 7 used memory (KiB)    8 requested procs
//    9 requested time (s) 10 requested memory    11 status              12 user id
//   13 group id           14 executable number   15 queue number        16 partition number
//   17 preceding job      18 think time (s)
// -1 means "not known" for every field. Lines are ordered by submit time. Other comment lines
// and blank lines are skipped.
//
// ParseSwf checks what a replay relies on and names the line, the field, the value and the rule
// it breaks: 18 integers (field 6 may have a fraction), no negative value but -1, a job number
// of at least 1 that no earlier line used, submit times that never go back, a known submit time,
// and a status among SWF's (-1, 0-5). FormatSwf writes a trace that parses back to the same.
//
// Pure functions; thread-safe.
#ifndef GANTRY_SIM_SWF_H_
#define GANTRY_SIM_SWF_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::sim {

// One job line; -1 where the trace does not know.
struct SwfJob {
  int64_t job_number = -1;
  int64_t submit_s = -1;
  int64_t wait_s = -1;
  int64_t run_s = -1;
  int64_t allocated_procs = -1;
  double avg_cpu_s = -1;
  int64_t used_memory_kib = -1;
  int64_t requested_procs = -1;
  int64_t requested_time_s = -1;
  int64_t requested_memory_kib = -1;
  int64_t status = -1;  // 1 completed, 0 failed, 5 cancelled; 2-4: parts of a checkpointed job
  int64_t user = -1;
  int64_t group = -1;
  int64_t executable = -1;
  int64_t queue = -1;
  int64_t partition = -1;
  int64_t preceding_job = -1;
  int64_t think_time_s = -1;

  friend bool operator==(const SwfJob&, const SwfJob&) = default;
};

struct SwfTrace {
  // Header fields in order of appearance, keys without the colon ("MaxNodes", "Queue", ...):
  // repeated keys keep every value.
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<SwfJob> jobs;

  // The first value of header key `key` as a number; nullopt when absent or not a number.
  std::optional<int64_t> HeaderNumber(std::string_view key) const;
};

// Parses `text`; errors are InvalidArgument "<name>:<line>: ..." naming the field and the rule.
Result<SwfTrace> ParseSwf(std::string_view text, std::string_view name);

// The trace as SWF text: its header as ";Key: value" lines, then one line per job.
std::string FormatSwf(const SwfTrace& trace);

}  // namespace gantry::sim

#endif  // GANTRY_SIM_SWF_H_
