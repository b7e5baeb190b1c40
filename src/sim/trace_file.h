// Reading a workload trace from disk: plain text or gzip-compressed (the Parallel Workloads
// Archive ships its logs as .swf.gz), told apart by content, not by name.
// Thread-safe.
#ifndef GANTRY_SIM_TRACE_FILE_H_
#define GANTRY_SIM_TRACE_FILE_H_

#include <cstddef>
#include <string>

#include "base/status.h"

namespace gantry::sim {

// A trace's text is at most this long once uncompressed (a million SWF lines take ~100 MiB).
inline constexpr size_t kMaxTraceBytes = size_t{1} << 30;

// The text of the file at `path`, uncompressed. Errors: NotFound / Unavailable naming the path
// and the reason; InvalidArgument for damaged gzip data or a text over `limit` bytes.
Result<std::string> ReadTraceText(const std::string& path, size_t limit = kMaxTraceBytes);

}  // namespace gantry::sim

#endif  // GANTRY_SIM_TRACE_FILE_H_
