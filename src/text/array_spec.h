// Slurm's job array index expressions (sbatch -a/--array, job ids such as `12_[1-3]`):
//   item[,item...][%throttle], item = N | N-M | N-M:step
// and the way Slurm prints a set of task ids (squeue's `12_[1-3,7]`, scontrol's ArrayTaskId=):
// ascending runs of consecutive ids as `a-b`, single ids as `a`, joined by ','.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_ARRAY_SPEC_H_
#define GANTRY_TEXT_ARRAY_SPEC_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::text {

struct ArraySpec {
  std::vector<uint32_t> tasks;  // ascending, no repeats, never empty
  uint32_t throttle = 0;        // %N: at most N tasks run at once; 0 = no limit
};

// Parses an --array value. Every task id must be below `max_array_size` (slurm.conf
// MaxArraySize); ranges must not run backwards; steps are at least 1. Errors name the rule.
Result<ArraySpec> ParseArraySpec(std::string_view text, uint32_t max_array_size);

// Task ids (ascending) as Slurm prints them: "1-3,7,9-10".
std::string FormatTaskIds(std::span<const uint32_t> tasks);

// Slurm's largest MaxArraySize: no array task id reaches it.
inline constexpr uint32_t kMaxArraySizeLimit = 4000001;

// Parses what FormatTaskIds prints (also with `:step` items), for job ids like `12_[1-3,7]`;
// no throttle. Ids must be below kMaxArraySizeLimit (a user's `scancel 1_[0-4294967295]` must
// not make the controller hold 4 billion ids).
Result<std::vector<uint32_t>> ParseTaskIds(std::string_view text);

// A job id as users type it: "N", "N_T", "N_[list]" (also "N_[T]"), "N_*". Nullopt when the
// text is none of these (or N is 0).
struct ParsedJobId {
  uint32_t job_id = 0;
  bool whole = true;            // "N" or "N_*"
  std::vector<uint32_t> tasks;  // ascending; empty when whole
};
std::optional<ParsedJobId> ParseJobIdText(std::string_view text);

// The SLURM_ARRAY_TASK_{COUNT,MIN,MAX,STEP} values of an array: STEP is the common distance
// between consecutive ids when there is one, else 1.
struct ArrayShape {
  uint32_t count = 0;
  uint32_t min = 0;
  uint32_t max = 0;
  uint32_t step = 1;
};
ArrayShape ShapeOf(std::span<const uint32_t> tasks);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_ARRAY_SPEC_H_
