// Fuzz target for TRES strings: any input parses or fails cleanly; what parses formats into
// Slurm's form, which parses back to the same TRES (memory exactly unless Slurm's own format is
// lossy), and formatting is a fixed point after one round trip.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "text/tres.h"

namespace {

using gantry::Result;
using gantry::text::FormatTres;
using gantry::text::FormatTresMemoryMiB;
using gantry::text::ParseTresCounts;
using gantry::text::ParseTresKey;
using gantry::text::ParseTresWeights;
using gantry::text::TresCount;
using gantry::text::TresKey;
using gantry::text::TresKeyLess;
using gantry::text::TresTypeIsMemory;
using gantry::text::TresWeight;
using gantry::text::TresZeros;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

constexpr int64_t kExactDoubleLimit = int64_t{1} << 53;

void CheckCounts(std::string_view text) {
  Result<std::vector<TresCount>> first = ParseTresCounts(text);
  if (!first.ok()) {
    Check(!first.status().message().empty());
    return;
  }
  for (const TresCount& tres : *first) Check(tres.count >= 0);
  (void)FormatTres(*first, TresZeros::kOmit);
  const std::string formatted = FormatTres(*first);
  // Past PiB Slurm prints an unknown unit ('?') that nothing can read back.
  if (formatted.find('?') != std::string::npos) return;

  Result<std::vector<TresCount>> second = ParseTresCounts(formatted);
  Check(second.ok());
  Check(second->size() == first->size());
  for (size_t i = 1; i < second->size(); ++i) {
    Check(!TresKeyLess((*second)[i].key, (*second)[i - 1].key));  // printed in display order
  }
  for (const TresCount& original : *first) {
    const TresCount* back = nullptr;
    for (const TresCount& candidate : *second) {
      if (candidate.key == original.key) back = &candidate;
    }
    Check(back != nullptr);
    if (!TresTypeIsMemory(original.key.type)) {
      Check(back->count == original.count);
      continue;
    }
    const std::string printed = FormatTresMemoryMiB(original.count);
    if (printed.find('.') == std::string::npos && original.count <= kExactDoubleLimit) {
      Check(back->count == original.count);
    } else {
      // Two decimals of a value of at least 1: within 1% (plus rounding to whole MiB).
      const int64_t diff = back->count > original.count ? back->count - original.count
                                                        : original.count - back->count;
      Check(diff <= original.count / 100 + 1);
    }
  }
  const std::string reformatted = FormatTres(*second);
  Result<std::vector<TresCount>> third = ParseTresCounts(reformatted);
  Check(third.ok());
  Check(FormatTres(*third) == reformatted);
}

void CheckWeights(std::string_view text) {
  Result<std::vector<TresWeight>> weights = ParseTresWeights(text);
  if (!weights.ok()) {
    Check(!weights.status().message().empty());
    return;
  }
  for (const TresWeight& weight : *weights) Check(std::isfinite(weight.weight));
}

void CheckKey(std::string_view text) {
  Result<TresKey> key = ParseTresKey(text);
  if (!key.ok()) return;
  Result<TresKey> again = ParseTresKey(key->ToString());
  Check(again.ok());
  Check(*again == *key);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckCounts(text);
  CheckWeights(text);
  CheckKey(text);
  return 0;
}
