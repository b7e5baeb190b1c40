// Slurm's job dependency expressions (sbatch -d/--dependency, scontrol update Dependency=):
//   type:jobid[:jobid...][+minutes] joined by ',' (all must hold) or '?' (any may hold), and
//   `singleton`. Types: after, afterany, afterok, afternotok, aftercorr (arrays), afterburstbuffer.
// A job id may carry an array index (`12_3`); `after` alone takes `+minutes` (Slurm's
// "after:job+time"). Mixing ',' and '?' is refused, as Slurm does.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_DEPENDENCY_H_
#define GANTRY_TEXT_DEPENDENCY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::text {

enum class DependencyType {
  kAfter,       // the job started (or ended), plus `minutes`
  kAfterAny,    // the job ended, in any state
  kAfterOk,     // the job ended COMPLETED
  kAfterNotOk,  // the job ended otherwise (failed, cancelled, timeout, node failure...)
  kAfterCorr,   // array task to array task
  kAfterBurstBuffer,
  kSingleton,  // no earlier job of the same name and user is pending or running
};

struct DependencyTerm {
  DependencyType type = DependencyType::kAfterAny;
  uint32_t job_id = 0;     // 0 for singleton
  std::string array_task;  // "3" of "12_3", empty for the whole job
  uint32_t minutes = 0;    // after:job+minutes
};

struct Dependency {
  std::vector<DependencyTerm> terms;
  bool any = false;  // '?': one satisfied term is enough
};

// Parses `text` (non-empty). Errors name the text and what is wrong.
Result<Dependency> ParseDependency(std::string_view text);

// The keyword Slurm prints for a type ("afterok").
std::string_view DependencyTypeName(DependencyType type);

// One term as Slurm prints it: "afterok:12", "after:12+5", "aftercorr:12_3", "singleton".
std::string FormatDependencyTerm(const DependencyTerm& term);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_DEPENDENCY_H_
