// Fuzz target for Standard Workload Format traces (gantry sim's input): any input parses or fails
// with a message naming the trace; what parses keeps the rules a replay relies on (job numbers
// of 1 or more, submit times in order, SWF statuses, no negative value but -1) and formats into
// text that parses back to the same trace.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "sim/swf.h"

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gantry::Result<gantry::sim::SwfTrace> trace = gantry::sim::ParseSwf(text, "fuzz.swf");
  if (!trace.ok()) {
    Check(trace.status().message().rfind("fuzz.swf:", 0) == 0);
    return 0;
  }
  int64_t last_submit = 0;
  for (const gantry::sim::SwfJob& job : trace->jobs) {
    Check(job.job_number >= 1);
    Check(job.submit_s >= last_submit);
    last_submit = job.submit_s;
    Check(job.status >= -1 && job.status <= 5);
    Check(job.run_s >= -1 && job.wait_s >= -1 && job.avg_cpu_s >= -1);
  }
  gantry::Result<gantry::sim::SwfTrace> again =
      gantry::sim::ParseSwf(gantry::sim::FormatSwf(*trace), "formatted");
  Check(again.ok());
  Check(again->jobs == trace->jobs);
  Check(again->header == trace->header);
  return 0;
}
