// Fuzz target for job dependency expressions (sbatch -d, scontrol update Dependency=): any input
// parses or fails with a message naming it; what parses has sane terms (a job id unless
// singleton, a delay only on `after`, a numeric or '*' array task) and formats, term by term
// joined by its separator, into text that parses back to the same dependency.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "text/dependency.h"

namespace {

using gantry::Result;
using gantry::text::Dependency;
using gantry::text::DependencyTerm;
using gantry::text::DependencyType;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

bool IsTaskNumber(std::string_view text) {
  uint32_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

bool SameTerm(const DependencyTerm& a, const DependencyTerm& b) {
  return a.type == b.type && a.job_id == b.job_id && a.array_task == b.array_task &&
         a.minutes == b.minutes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<Dependency> parsed = gantry::text::ParseDependency(text);
  if (!parsed.ok()) {
    Check(!parsed.status().message().empty());
    return 0;
  }
  Check(!parsed->terms.empty());
  std::string formatted;
  for (const DependencyTerm& term : parsed->terms) {
    Check(!gantry::text::DependencyTypeName(term.type).empty());
    if (term.type == DependencyType::kSingleton) {
      Check(term.job_id == 0 && term.array_task.empty() && term.minutes == 0);
    } else {
      Check(term.job_id != 0);
    }
    if (term.minutes != 0) Check(term.type == DependencyType::kAfter);
    if (!term.array_task.empty()) Check(term.array_task == "*" || IsTaskNumber(term.array_task));
    if (!formatted.empty()) formatted += parsed->any ? '?' : ',';
    formatted += gantry::text::FormatDependencyTerm(term);
  }

  Result<Dependency> again = gantry::text::ParseDependency(formatted);
  Check(again.ok());
  Check(again->terms.size() == parsed->terms.size());
  for (size_t i = 0; i < again->terms.size(); ++i) {
    Check(SameTerm(again->terms[i], parsed->terms[i]));
  }
  // One term has no separator to say which kind of list it was.
  if (parsed->terms.size() > 1) Check(again->any == parsed->any);
  return 0;
}
