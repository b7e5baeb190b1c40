// gantryd's log: one line on stderr, prefixed "gantryd: " (gantry up sends it to a file).
// Thread-safe (one fprintf per line).
#ifndef GANTRY_CTLD_LOG_H_
#define GANTRY_CTLD_LOG_H_

#include <cstdio>
#include <string>

namespace gantry::ctld {

inline void Log(const std::string& line) { std::fprintf(stderr, "gantryd: %s\n", line.c_str()); }

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_LOG_H_
