// Fuzz target for user-written job state names (squeue -t, sacct -s, scancel -t). Invariants:
// parsing never crashes; every accepted selector's printed long and short names parse back to
// the same selector; a filter that parses keeps its selectors in order.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/job_state.h"

namespace {

using gantry::model::JobFlagCode;
using gantry::model::JobFlagName;
using gantry::model::JobStateSelector;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

void CheckRoundTrip(const JobStateSelector& s) {
  const std::string_view name =
      s.is_flag ? JobFlagName(s.flag) : gantry::model::JobBaseStateName(s.base);
  const std::string_view code =
      s.is_flag ? JobFlagCode(s.flag) : gantry::model::JobBaseStateCode(s.base);
  for (std::string_view text : {name, code}) {
    const auto again = gantry::model::ParseJobStateSelector(text);
    Check(again.ok() && *again == s);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto one = gantry::model::ParseJobStateSelector(text); one.ok()) {
    CheckRoundTrip(*one);
    (void)gantry::model::SacctSupportsJobState(*one);
  }
  if (const auto filter = gantry::model::ParseJobStateFilter(text); filter.ok()) {
    for (const JobStateSelector& s : filter->selectors) CheckRoundTrip(s);
  }
  return 0;
}
