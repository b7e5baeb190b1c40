// A latency histogram with fixed buckets (100 µs to 10 s), counted with atomics: cheap enough to
// record every commit and every call, read at any time without stopping the writers.
// Thread-safe.
#ifndef GANTRY_METRICS_HISTOGRAM_H_
#define GANTRY_METRICS_HISTOGRAM_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace gantry::metrics {

// Upper bounds of the buckets, seconds (+Inf after the last).
inline constexpr std::array<double, 15> kLatencyBounds = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};

// The same bounds as OpenMetrics' "le" label values.
inline constexpr std::array<const char*, kLatencyBounds.size()> kLatencyBoundTexts = {
    "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
    "0.05",   "0.1",     "0.25",   "0.5",   "1",      "2.5",   "10"};

struct HistogramSnapshot {
  std::array<uint64_t, kLatencyBounds.size() + 1> cumulative{};  // last: +Inf = count
  double sum_seconds = 0;
};

class LatencyHistogram {
 public:
  void Observe(uint64_t microseconds);
  HistogramSnapshot Snapshot() const;

 private:
  std::array<std::atomic<uint64_t>, kLatencyBounds.size() + 1> buckets_{};  // not cumulative
  std::atomic<uint64_t> sum_us_{0};
};

}  // namespace gantry::metrics

#endif  // GANTRY_METRICS_HISTOGRAM_H_
