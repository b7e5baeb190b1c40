// gantry-agent's command line:
//   gantry-agent --node NAME --controller HOST:PORT --ca-file FILE --cert-file FILE
//                --cert-key-file FILE --spool DIR [--listen HOST:PORT] [--advertise HOST]
// Each flag takes its value as the next argument or after '=' ("--node=n1"). --listen defaults
// to 127.0.0.1:0 (an ephemeral port); --advertise defaults to the --listen host (or this
// machine's host name when that is a wildcard address). Errors name the flag and the rule.
//
// Pure functions; thread-safe.
#ifndef GANTRY_AGENT_AGENT_FLAGS_H_
#define GANTRY_AGENT_AGENT_FLAGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

struct AgentFlags {
  std::string node;
  std::string controller;
  std::string ca_file;
  std::string cert_file;
  std::string cert_key_file;
  std::string spool;
  std::string listen = "127.0.0.1:0";
  std::string advertise;       // empty = derived from listen
  std::string metrics;         // HOST:PORT of /metrics ("" = none)
  std::string home = "/home";  // the shared home (health checks)
  bool emulated = false;       // a node of a local cluster (health checks)
  bool help = false;
  bool version = false;
};

// The usage text (--help).
std::string_view AgentUsage();

// Parses argv[1..]. --help/--version stop parsing (the rest is not checked).
Result<AgentFlags> ParseAgentFlags(const std::vector<std::string>& args);

// Splits "host:port" / "[v6]:port" into host (without brackets) and port (0-65535).
struct HostPort {
  std::string host;
  int port = 0;
};
Result<HostPort> ParseHostPort(std::string_view text);

// "host:port", bracketing an IPv6 host.
std::string JoinHostPort(std::string_view host, int port);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_AGENT_FLAGS_H_
