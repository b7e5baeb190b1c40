// A budget for log lines from sources a caller controls: protobuf logs one line for each
// malformed request it parses (invalid UTF-8 in a string field...), so any local user could fill
// gantryd's log, and the state dir's disk with it.
//
// Thread-safe.
#ifndef GANTRY_CTLD_LOG_BUDGET_H_
#define GANTRY_CTLD_LOG_BUDGET_H_

#include <cstdint>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gantry::ctld {

class LogBudget {
 public:
  // `per_window` lines each `window_ms` milliseconds.
  LogBudget(uint32_t per_window, int64_t window_ms)
      : per_window_(per_window), window_ms_(window_ms) {}
  // Whether a line at `now_ms` may be written; when it may, `*dropped` gets how many lines were
  // refused since the last one allowed (to be said in that line).
  bool Allow(int64_t now_ms, uint64_t* dropped);

 private:
  const uint32_t per_window_;
  const int64_t window_ms_;
  Mutex mu_;
  int64_t window_start_ms_ GANTRY_GUARDED_BY(mu_) = INT64_MIN;
  uint32_t used_ GANTRY_GUARDED_BY(mu_) = 0;
  uint64_t dropped_ GANTRY_GUARDED_BY(mu_) = 0;
};

// Sends protobuf's log lines to gantryd's log through a budget of 10 lines a minute.
void LimitProtobufLogging();

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_LOG_BUDGET_H_
