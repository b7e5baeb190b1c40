// The agent's log: one line per event on stderr, "<UTC time> gantry-agent[<node>]: <text>",
// e.g. "2026-12-02T11:43:07.125Z gantry-agent[n1]: job 12: batch script started (pid 4242)".
//
// Thread-safe: lines from different threads never interleave.
#ifndef GANTRY_AGENT_LOG_H_
#define GANTRY_AGENT_LOG_H_

#include <string>
#include <string_view>

namespace gantry::agent {

// The name in brackets (the node); set once at start.
void SetLogNode(std::string_view node);
// Turns logging off (tests that exercise failures on purpose) or back on.
void SetLogEnabled(bool enabled);
// Writes one line.
void Log(std::string_view text);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_LOG_H_
