// Fuzz target for gantry sim's JSON workloads: any input parses or fails with a message naming
// the file; what parses is in submit order, with unique ids, at least one CPU per node, a user,
// and dependencies only on jobs submitted before.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "base/status.h"
#include "sim/workload.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gantry::Result<gantry::sim::Workload> workload =
      gantry::sim::ParseWorkloadJson(text, "fuzz.json");
  if (!workload.ok()) {
    Check(workload.status().message().rfind("fuzz.json: ", 0) == 0);
    return 0;
  }
  std::set<uint64_t> seen;
  int64_t last_submit = 0;
  for (const gantry::sim::WorkloadJob& job : workload->jobs) {
    Check(job.submit_s >= last_submit);
    last_submit = job.submit_s;
    Check(!job.user.empty() && job.nodes >= 1 && job.cpus >= job.nodes && job.time_limit_s >= 1);
    if (job.after) Check(seen.count(*job.after) == 1);
    Check(seen.insert(job.id).second);
  }
  return 0;
}
