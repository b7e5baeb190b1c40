// Fuzzes Slurm memory sizes (text/memory.h).
// Invariants: parsing never crashes; an accepted size is non-negative; FormatMemoryMiB output
// that is a whole number of M, G or T parses back to the same MiB; output with decimals is
// within rounding of the value; formatting any int64 never crashes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "text/memory.h"

namespace {

using gantry::Result;
using gantry::text::FormatMemoryMiB;
using gantry::text::ParseMemoryMiB;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckFormat(int64_t mib) {
  const std::string text = FormatMemoryMiB(mib);
  Check(!text.empty());
  if (mib <= 0) return;
  const char suffix = text.back();
  Check(suffix == 'M' || suffix == 'G' || suffix == 'T' || suffix == 'P' || suffix == '?');
  // Below 2^53 the double arithmetic Slurm uses is exact.
  if (mib >= (int64_t{1} << 53)) return;
  if (suffix == '?') return;  // past P the unit is unknown
  if (text.find('.') == std::string::npos) {
    if (suffix == 'P') return;  // str_to_mbytes has no P
    const Result<int64_t> back = ParseMemoryMiB(text);
    Check(back.ok());
    Check(*back == mib);
  } else {
    // "62.50G": two decimals of a value that is a multiple of half a unit.
    const double shown = std::strtod(text.c_str(), nullptr);
    double unit = 1;
    for (char u : std::string_view("MGTP")) {
      if (u == suffix) break;
      unit *= 1024;
    }
    Check(std::fabs(shown * unit - static_cast<double>(mib)) <= unit * 0.005 + 1e-9);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Result<int64_t> mib = ParseMemoryMiB(text);
  if (mib.ok()) {
    Check(*mib >= 0);
    CheckFormat(*mib);
  } else {
    Check(!mib.status().message().empty());
  }
  if (size >= sizeof(int64_t)) {
    int64_t raw = 0;
    std::memcpy(&raw, data, sizeof(raw));
    CheckFormat(raw);
  }
  return 0;
}
