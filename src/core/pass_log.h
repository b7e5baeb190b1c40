// The pass log: every cycle that must be replayed where it ran (v1::PassMark: it committed an
// event, backfilled or recalculated every priority), in order, so that `gantry sim
// --from-state-dir` runs its passes at the real moments, after exactly the events the real ones
// had seen. Whole-second records alone cannot say which of the reports that came in one second a
// pass had seen; the marks' `seen` can, against the orders the records keep (NodeRelease.order,
// Job.submit_order, Job.end_order).
//
// gantryd keeps the log in its store's side table, beside the log of events and untouched by
// snapshots: chunk i under PassLogKey(i), at most kPassMarksPerChunk marks each, the chunk being
// written rewritten with each mark; kPassLogChunksKey holds how many chunks were begun, so that
// a restart goes on in a new chunk without reading the log. Encoding and decoding only; the
// caller does the I/O.
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
inline constexpr char kPassLogChunksKey[] = "pass_log/chunks";  // a decimal count

// Reads the whole log through `get` (the store's side table: nullopt for a key never put),
// chunk by chunk until the first missing one. Errors name the chunk that does not parse.
using SideTableGet = std::function<Result<std::optional<std::string>>(const std::string& key)>;
Result<std::vector<v1::PassMark>> ReadPassLog(const SideTableGet& get);

// Appends marks to the log: Add returns the (key, value) pairs to put, in the same commit as
// the cycle's events.
class PassLogWriter {
 public:
  // A writer of a new log.
  PassLogWriter() = default;
  // Goes on after the log `get` reads, in a chunk of its own (only kPassLogChunksKey is read).
  static Result<PassLogWriter> Resume(const SideTableGet& get);

  std::vector<std::pair<std::string, std::string>> Add(const v1::PassMark& mark);

 private:
  uint32_t chunk_ = 0;     // the chunk being written
  v1::PassMarks current_;  // its marks (none: not begun)
};

}  // namespace gantry::core

#endif  // GANTRY_CORE_PASS_LOG_H_
