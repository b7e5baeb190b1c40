#include "sim/workload.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>

namespace gantry::sim {
namespace {

// "Queue: N name" header lines: queue number -> name.
std::map<int64_t, std::string> QueueNames(const SwfTrace& trace) {
  std::map<int64_t, std::string> names;
  for (const auto& [key, value] : trace.header) {
    if (key != "Queue") continue;
    std::istringstream in(value);
    int64_t number = 0;
    std::string name;
    if (in >> number >> name) names.emplace(number, name);
  }
  return names;
}

}  // namespace

Result<Workload> WorkloadFromSwf(const SwfTrace& trace, const SwfConversion& conversion) {
  if (conversion.cpus_per_node == 0) {
    return InvalidArgument("cpus per node: 0: must be 1 or more");
  }
  const std::map<int64_t, std::string> queues = QueueNames(trace);
  Workload workload;
  std::set<uint64_t> held;  // jobs already in the workload
  const int64_t start = trace.jobs.empty() ? 0 : trace.jobs.front().submit_s;
  for (const SwfJob& line : trace.jobs) {
    const std::string what = "job " + std::to_string(line.job_number) + ": ";
    if (line.run_s < 0 || (line.run_s == 0 && line.status == 5)) {
      ++workload.never_ran;
      continue;
    }
    const int64_t cpus = line.requested_procs >= 1 ? line.requested_procs : line.allocated_procs;
    if (cpus < 1) {
      return InvalidArgument(what +
                             "field 8 (requested processors) and field 5 (allocated processors): "
                             "neither is known; a job needs at least one");
    }
    if (cpus > UINT32_MAX) {
      return InvalidArgument(what + "field 8 (requested processors): " + std::to_string(cpus) +
                             ": more than a job may ask for");
    }
    WorkloadJob job;
    job.id = static_cast<uint64_t>(line.job_number);
    job.submit_s = line.submit_s - start;
    job.run_s = line.run_s;
    job.time_limit_s = std::max(line.requested_time_s, line.run_s);
    job.cpus = static_cast<uint32_t>(cpus);
    job.nodes =
        static_cast<uint32_t>((cpus + conversion.cpus_per_node - 1) / conversion.cpus_per_node);
    job.user = line.user >= 0 ? "u" + std::to_string(line.user) : "unknown";
    job.account = line.group >= 0 ? "g" + std::to_string(line.group) : "unknown";
    if (line.queue >= 0) {
      auto named = queues.find(line.queue);
      job.partition = named != queues.end() ? named->second : "q" + std::to_string(line.queue);
    }
    if (line.preceding_job >= 1) {
      if (held.count(static_cast<uint64_t>(line.preceding_job)) != 0) {
        job.after = static_cast<uint64_t>(line.preceding_job);
        job.after_delay_s = std::max<int64_t>(line.think_time_s, 0);
      } else {
        ++workload.dropped_dependencies;
      }
    }
    held.insert(job.id);
    workload.jobs.push_back(std::move(job));
  }
  return workload;
}

}  // namespace gantry::sim
