// The time at the start of the daemons' log lines: now, UTC, to the millisecond
// ("2026-12-08T01:55:06.123Z"), so that the logs of several hosts read in one order.
// Thread-safe.
#ifndef GANTRY_SYS_LOG_STAMP_H_
#define GANTRY_SYS_LOG_STAMP_H_

#include <string>

namespace gantry::sys {

std::string LogStamp();

}  // namespace gantry::sys

#endif  // GANTRY_SYS_LOG_STAMP_H_
