// Fuzzes Slurm duration parsing and formatting (text/duration.h).
// Invariants: parsing never crashes; an accepted duration is -1 (unlimited) or within
// [0, kMaxDurationSeconds]; FormatDurationSeconds and FormatElapsed output parse back to the same
// seconds; minutes are the seconds rounded up and survive FormatDurationMinutes (when in range);
// formatting any int64 never crashes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "text/duration.h"

namespace {

using gantry::Result;
using gantry::text::FormatDurationMinutes;
using gantry::text::FormatDurationSeconds;
using gantry::text::FormatElapsed;
using gantry::text::kInfiniteDuration;
using gantry::text::kMaxDurationSeconds;
using gantry::text::ParseDurationMinutes;
using gantry::text::ParseDurationSeconds;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckParsesTo(const std::string& text, int64_t seconds) {
  const Result<int64_t> back = ParseDurationSeconds(text);
  Check(back.ok());
  Check(*back == seconds);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const Result<int64_t> seconds = ParseDurationSeconds(text);
  const Result<int64_t> minutes = ParseDurationMinutes(text);
  Check(seconds.ok() == minutes.ok());
  if (seconds.ok()) {
    const int64_t s = *seconds;
    Check(s == kInfiniteDuration || (s >= 0 && s <= kMaxDurationSeconds));
    CheckParsesTo(FormatDurationSeconds(s), s);
    const std::string elapsed = FormatElapsed(s);
    if (elapsed != "INVALID") CheckParsesTo(elapsed, s);

    const int64_t m = *minutes;
    Check(s == kInfiniteDuration ? m == kInfiniteDuration : m == (s + 59) / 60);
    // Rounding up can pass the maximum ("24855-03:14:07" is 35791395 minutes, one more minute
    // than "24855-03:15:00" can hold); below it, minutes survive formatting.
    if (m == kInfiniteDuration || m * 60 <= kMaxDurationSeconds) {
      const Result<int64_t> m_back = ParseDurationMinutes(FormatDurationMinutes(m));
      Check(m_back.ok() && *m_back == m);
    }
  } else {
    Check(!seconds.status().message().empty());
  }

  // Any 8 bytes as a number of seconds or minutes: formatting must not crash or print nothing.
  if (size >= sizeof(int64_t)) {
    int64_t raw = 0;
    std::memcpy(&raw, data, sizeof(raw));
    Check(!FormatDurationSeconds(raw).empty());
    Check(!FormatDurationMinutes(raw).empty());
    Check(!FormatElapsed(raw).empty());
  }
  return 0;
}
