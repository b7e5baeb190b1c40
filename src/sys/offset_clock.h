// A clock whose wall time is the system's shifted by a number of seconds read from a file: the
// seam through which the chaos test (tests/chaos/) steps the daemons' wall clock without touching
// the machine's. Monotonic time is the system's, unshifted: liveness, time limits and elapsed
// times use it, so a step must change nothing of them.
//
// The daemons use it when GANTRY_CLOCK_OFFSET_FILE names a file (DaemonClock): its contents are
// a signed whole number of seconds ("3600", "-600"); a missing, empty or malformed file means 0.
// The file is read again at most every 200 ms.
//
// Thread-safe.
#ifndef GANTRY_SYS_OFFSET_CLOCK_H_
#define GANTRY_SYS_OFFSET_CLOCK_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "base/time.h"

namespace gantry::sys {

class FileOffsetClock final : public Clock {
 public:
  // `base` must outlive the clock.
  FileOffsetClock(std::string path, const Clock* base) : path_(std::move(path)), base_(base) {}

  UnixTime Now() const override { return base_->Now() + OffsetSeconds(); }
  int64_t MonotonicMs() const override { return base_->MonotonicMs(); }
  // The offset now in force.
  int64_t OffsetSeconds() const;

 private:
  static constexpr int64_t kRereadMs = 200;
  const std::string path_;
  const Clock* const base_;
  mutable std::atomic<int64_t> offset_{0};
  mutable std::atomic<int64_t> read_at_ms_{INT64_MIN};
};

// The system clock, or a FileOffsetClock over it when GANTRY_CLOCK_OFFSET_FILE is set (read once,
// at the first call).
const Clock& DaemonClock();

}  // namespace gantry::sys

#endif  // GANTRY_SYS_OFFSET_CLOCK_H_
