#include "sys/offset_clock.h"

#include <charconv>
#include <cstdlib>

#include "sys/files.h"
#include "sys/system_time.h"

namespace gantry::sys {
namespace {

int64_t ParseOffset(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return 0;
  size_t end = text.find_last_not_of(" \t\n") + 1;
  if (text[begin] == '+') ++begin;
  int64_t value = 0;
  const char* first = text.data() + begin;
  const char* last = text.data() + end;
  auto [ptr, ec] = std::from_chars(first, last, value);
  // Beyond about 30 years either way is not a clock step: ignored.
  constexpr int64_t kLimit = int64_t{1} << 30;
  if (ec != std::errc() || ptr != last || value > kLimit || value < -kLimit) return 0;
  return value;
}

}  // namespace

int64_t FileOffsetClock::OffsetSeconds() const {
  const int64_t now_ms = base_->MonotonicMs();
  const int64_t read_at = read_at_ms_.load(std::memory_order_relaxed);
  if (read_at != INT64_MIN && now_ms - read_at < kRereadMs) {
    return offset_.load(std::memory_order_relaxed);
  }
  Result<std::string> text = ReadText(path_);
  const int64_t offset = text.ok() ? ParseOffset(*text) : 0;
  offset_.store(offset, std::memory_order_relaxed);
  read_at_ms_.store(now_ms, std::memory_order_relaxed);
  return offset;
}

const Clock& DaemonClock() {
  static const Clock* const kClock = []() -> const Clock* {
    const char* path = std::getenv("GANTRY_CLOCK_OFFSET_FILE");
    if (path == nullptr || *path == '\0') return &SystemClock::Get();
    return new FileOffsetClock(path, &SystemClock::Get());
  }();
  return *kClock;
}

}  // namespace gantry::sys
