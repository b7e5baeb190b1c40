#include "ctld/log_budget.h"

#include <google/protobuf/stubs/logging.h>

#include <string>

#include "ctld/log.h"
#include "sys/system_time.h"

namespace gantry::ctld {

bool LogBudget::Allow(int64_t now_ms, uint64_t* dropped) {
  MutexLock lock(mu_);
  if (window_start_ms_ == INT64_MIN || now_ms - window_start_ms_ >= window_ms_) {
    window_start_ms_ = now_ms;
    used_ = 0;
  }
  if (used_ >= per_window_) {
    ++dropped_;
    return false;
  }
  ++used_;
  *dropped = dropped_;
  dropped_ = 0;
  return true;
}

void LimitProtobufLogging() {
  google::protobuf::SetLogHandler([](google::protobuf::LogLevel level, const char* file, int line,
                                     const std::string& message) {
    static LogBudget budget(10, 60000);
    uint64_t dropped = 0;
    if (level < google::protobuf::LOGLEVEL_FATAL &&
        !budget.Allow(sys::SystemClock::Get().MonotonicMs(), &dropped)) {
      return;
    }
    Log("protobuf (" + std::string(file) + ":" + std::to_string(line) + "): " + message +
        (dropped > 0 ? " (" + std::to_string(dropped) + " such lines not logged before it)" : ""));
  });
}

}  // namespace gantry::ctld
