#include "metrics/histogram.h"

namespace gantry::metrics {

void LatencyHistogram::Observe(uint64_t microseconds) {
  size_t i = 0;
  while (i < kLatencyBounds.size() && static_cast<double>(microseconds) > kLatencyBounds[i] * 1e6) {
    ++i;
  }
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(microseconds, std::memory_order_relaxed);
}

HistogramSnapshot LatencyHistogram::Snapshot() const {
  HistogramSnapshot s;
  uint64_t running = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.sum_seconds = static_cast<double>(sum_us_.load(std::memory_order_relaxed)) / 1e6;
  return s;
}

}  // namespace gantry::metrics
