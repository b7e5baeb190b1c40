// Fuzz target for job array index expressions and array job ids: ParseArraySpec (sbatch --array,
// against the default MaxArraySize and Slurm's largest), ParseTaskIds and ParseJobIdText
// (`12_[1-3,7]`, as scancel, scontrol and squeue take them). Any input parses or fails with a
// message; task lists are non-empty, strictly ascending and, for --array, below the limit (so at
// most that many); ShapeOf agrees with the list; FormatTaskIds (with "%throttle", or as a job id
// with and without brackets) parses back to the same value.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "text/array_spec.h"

namespace {

using gantry::Result;
using gantry::text::ArrayShape;
using gantry::text::ArraySpec;
using gantry::text::FormatTaskIds;
using gantry::text::ParsedJobId;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

void CheckTasks(const std::vector<uint32_t>& tasks) {
  Check(!tasks.empty());
  for (size_t i = 1; i < tasks.size(); ++i) Check(tasks[i - 1] < tasks[i]);
  const ArrayShape shape = gantry::text::ShapeOf(tasks);
  Check(shape.count == tasks.size());
  Check(shape.min == tasks.front() && shape.max == tasks.back());
  Check(shape.step >= 1);
  if (tasks.size() >= 2 && shape.step != 1) {
    for (size_t i = 1; i < tasks.size(); ++i) Check(tasks[i] - tasks[i - 1] == shape.step);
  }
}

void CheckArraySpec(std::string_view text, uint32_t max_array_size) {
  Result<ArraySpec> parsed = gantry::text::ParseArraySpec(text, max_array_size);
  if (!parsed.ok()) {
    Check(!parsed.status().message().empty());
    return;
  }
  CheckTasks(parsed->tasks);
  Check(parsed->tasks.size() <= max_array_size);
  Check(parsed->tasks.back() < max_array_size);

  std::string formatted = FormatTaskIds(parsed->tasks);
  if (parsed->throttle != 0) formatted += "%" + std::to_string(parsed->throttle);
  Result<ArraySpec> again = gantry::text::ParseArraySpec(formatted, max_array_size);
  Check(again.ok());
  Check(again->tasks == parsed->tasks);
  Check(again->throttle == parsed->throttle);
}

void CheckTaskIds(std::string_view text) {
  Result<std::vector<uint32_t>> parsed = gantry::text::ParseTaskIds(text);
  if (!parsed.ok()) {
    Check(!parsed.status().message().empty());
    return;
  }
  CheckTasks(*parsed);
  Result<std::vector<uint32_t>> again = gantry::text::ParseTaskIds(FormatTaskIds(*parsed));
  Check(again.ok());
  Check(*again == *parsed);
}

bool SameJobId(const std::optional<ParsedJobId>& a, const ParsedJobId& b) {
  return a.has_value() && a->job_id == b.job_id && a->whole == b.whole && a->tasks == b.tasks;
}

void CheckJobId(std::string_view text) {
  const std::optional<ParsedJobId> parsed = gantry::text::ParseJobIdText(text);
  if (!parsed) return;
  Check(parsed->job_id != 0);
  const std::string id = std::to_string(parsed->job_id);
  if (parsed->whole) {
    Check(parsed->tasks.empty());
    Check(SameJobId(gantry::text::ParseJobIdText(id), *parsed));
    Check(SameJobId(gantry::text::ParseJobIdText(id + "_*"), *parsed));
    return;
  }
  CheckTasks(parsed->tasks);
  const std::string tasks = FormatTaskIds(parsed->tasks);
  Check(SameJobId(gantry::text::ParseJobIdText(id + "_[" + tasks + "]"), *parsed));
  Check(SameJobId(gantry::text::ParseJobIdText(id + "_" + tasks), *parsed));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckArraySpec(text, 1001);     // slurm.conf's default MaxArraySize
  CheckArraySpec(text, 4000001);  // the largest Slurm allows
  CheckArraySpec(text, 1);        // only task 0
  CheckTaskIds(text);
  CheckJobId(text);
  return 0;
}
