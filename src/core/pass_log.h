// The pass log: every cycle that must be replayed where it ran (v1::PassMark: it committed an
// event, backfilled or recalculated every priority), in order, so that `gantry sim
// --from-state-dir` runs its passes at the real moments, after exactly the events the real ones
// had seen. Whole-second records alone cannot say which of the reports that came in one second a
// pass had seen; the marks' `seen` can, against the orders the records keep (NodeRelease.order,
// Job.submit_order, Job.end_order).
//
// gantryd keeps the log in its store's side table, beside the log of events and untouched by
// snapshots: chunk i under PassLogKey(i), kPassMarksPerChunk marks each; the last chunk is
// rewritten with each mark. Encoding and decoding only; the caller does the I/O.
#ifndef GANTRY_CORE_PASS_LOG_H_
#define GANTRY_CORE_PASS_LOG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"

namespace gantry::core {

inline constexpr int kPassMarksPerChunk = 64;

// "pass_log/00000042": zero-padded, so that the keys sort in order.
std::string PassLogKey(uint32_t chunk);

// Reads the whole log through `get` (the store's side table: nullopt for a key never put),
// chunk by chunk until the first missing one. Errors name the chunk that does not parse.
using SideTableGet = std::function<Result<std::optional<std::string>>(const std::string& key)>;
Result<std::vector<v1::PassMark>> ReadPassLog(const SideTableGet& get);

// Appends marks to the log: Add returns the (key, value) to put, in the same commit as the
// cycle's events.
class PassLogWriter {
 public:
  // A writer of a new log.
  PassLogWriter() = default;
  // Goes on after the marks of the log `get` reads (its last chunk is read again).
  static Result<PassLogWriter> Resume(const SideTableGet& get);

  std::pair<std::string, std::string> Add(const v1::PassMark& mark);

 private:
  uint32_t chunk_ = 0;
  v1::PassMarks current_;  // the last chunk's marks
};

}  // namespace gantry::core

#endif  // GANTRY_CORE_PASS_LOG_H_
