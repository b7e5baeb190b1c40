// Fuzzes Slurm --begin / sacct -S time parsing (text/begin_time.h) against a fixed now in UTC.
// Invariants: parsing never crashes; an accepted time is in (0, kMaxBeginTime]; its
// FormatIsoTime text and "uts<seconds>" parse back to the same instant, in both the future and
// the past flavour.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/time.h"
#include "text/begin_time.h"

namespace {

using gantry::Result;
using gantry::TimeZone;
using gantry::UnixTime;
using gantry::text::FormatIsoTime;
using gantry::text::kMaxBeginTime;
using gantry::text::ParseBeginTime;
using gantry::text::ParsePastTime;

constexpr UnixTime kNow = 1796211787;  // 2026-12-02T11:43:07Z

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckRoundTrip(UnixTime t) {
  const TimeZone& utc = TimeZone::Utc();
  Check(t > 0 && t <= kMaxBeginTime);
  const std::string iso = FormatIsoTime(t, utc);
  for (auto parse : {&ParseBeginTime, &ParsePastTime}) {
    const Result<UnixTime> back = parse(iso, kNow, utc);
    Check(back.ok() && *back == t);
  }
  if (t >= 1000000) {
    const Result<UnixTime> uts = ParseBeginTime("uts" + std::to_string(t), kNow, utc);
    Check(uts.ok() && *uts == t);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const TimeZone& utc = TimeZone::Utc();
  for (auto parse : {&ParseBeginTime, &ParsePastTime}) {
    const Result<UnixTime> t = parse(text, kNow, utc);
    if (t.ok()) {
      CheckRoundTrip(*t);
    } else {
      Check(!t.status().message().empty());
    }
  }
  return 0;
}
