#include "agent/agent_flags.h"

#include <algorithm>
#include <charconv>

#include "text/ascii.h"

namespace gantry::agent {
namespace {

constexpr std::string_view kUsage =
    "usage: gantry-agent --node NAME --controller HOST:PORT --ca-file FILE --cert-file FILE\n"
    "                    --cert-key-file FILE --spool DIR [--listen HOST:PORT] [--advertise HOST]\n"
    "                    [--metrics HOST:PORT] [--home DIR] [--emulated]\n"
    "\n"
    "The node agent of a Gantry cluster: serves the Agent service, registers with the\n"
    "controller, runs the node's jobs. Runs in the foreground and logs to stderr; SIGTERM or\n"
    "SIGINT ends its jobs (as scancel would) and exits 0.\n"
    "\n"
    "  --node NAME             this node's name in the cluster spec\n"
    "  --controller HOST:PORT  the controller's NodeLink address (gantryd's TCP address);\n"
    "                          replicated controllers: each one's, comma-separated\n"
    "  --ca-file FILE          the cluster's CA certificate (PEM): the only authority trusted\n"
    "  --cert-file FILE        this node's certificate (PEM, from the cluster's CA)\n"
    "  --cert-key-file FILE    its private key (PEM, mode 0600)\n"
    "  --spool DIR             job scripts and records (created when missing)\n"
    "  --listen HOST:PORT      where to serve the Agent service (default 127.0.0.1:0, any port)\n"
    "  --advertise HOST        the host the controller reaches this agent at (default: the\n"
    "                          --listen host); the bound port is added\n"
    "  --metrics HOST:PORT     serve /metrics (gantry_agent_*: launch and prolog latency) and\n"
    "                          /livez over HTTP there; the URL goes to SPOOL/metrics.url\n"
    "  --home DIR              where the cluster's shared home is mounted here (default /home):\n"
    "                          the health checks find it writable and, for an NFS or Filestore\n"
    "                          home_directory_storage, that export\n"
    "  --emulated              this node shares its host with the other nodes of a local\n"
    "                          cluster (gantry up): the health checks do not hold the host's\n"
    "                          GPUs and memory to what the node declares\n";

bool ValidNodeName(std::string_view name) {
  // It names files and cgroups: no "." or "..", nothing hidden.
  if (name.empty() || name.size() > 64 || name[0] == '.' || name[0] == '-') return false;
  return std::ranges::all_of(name, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace

std::string_view AgentUsage() { return kUsage; }

Result<HostPort> ParseHostPort(std::string_view text) {
  HostPort out;
  std::string_view port_text;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("\"" + std::string(text) + "\" is not [IPv6]:PORT");
    }
    out.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return InvalidArgument("\"" + std::string(text) + "\" is not HOST:PORT");
    }
    out.host = std::string(text.substr(0, colon));
    if (out.host.find(':') != std::string::npos) {
      return InvalidArgument("\"" + std::string(text) + "\": write an IPv6 host as [HOST]:PORT");
    }
    port_text = text.substr(colon + 1);
  }
  if (out.host.empty()) return InvalidArgument("\"" + std::string(text) + "\": empty host");
  auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), out.port);
  if (port_text.empty() || ec != std::errc() || ptr != port_text.data() + port_text.size() ||
      out.port < 0 || out.port > 65535) {
    return InvalidArgument("\"" + std::string(text) + "\": port \"" + std::string(port_text) +
                           "\" is not a number from 0 to 65535");
  }
  return out;
}

std::string JoinHostPort(std::string_view host, int port) {
  if (host.find(':') != std::string_view::npos) {
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

Result<AgentFlags> ParseAgentFlags(const std::vector<std::string>& args) {
  AgentFlags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "-h" || arg == "--help") {
      flags.help = true;
      return flags;
    }
    if (arg == "--version") {
      flags.version = true;
      return flags;
    }
    if (arg == "--emulated") {
      flags.emulated = true;
      continue;
    }
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    std::string* target = nullptr;
    if (arg == "--node") {
      target = &flags.node;
    } else if (arg == "--controller") {
      target = &flags.controller;
    } else if (arg == "--ca-file") {
      target = &flags.ca_file;
    } else if (arg == "--cert-file") {
      target = &flags.cert_file;
    } else if (arg == "--cert-key-file") {
      target = &flags.cert_key_file;
    } else if (arg == "--spool") {
      target = &flags.spool;
    } else if (arg == "--listen") {
      target = &flags.listen;
    } else if (arg == "--advertise") {
      target = &flags.advertise;
    } else if (arg == "--metrics") {
      target = &flags.metrics;
    } else if (arg == "--home") {
      target = &flags.home;
    } else {
      return InvalidArgument(arg.rfind('-', 0) == 0
                                 ? "unknown flag \"" + arg + "\""
                                 : "unexpected argument \"" + arg + "\" (flags only)");
    }
    if (!has_value) {
      if (i + 1 >= args.size()) return InvalidArgument(arg + ": missing value");
      value = args[++i];
    }
    if (value.empty()) return InvalidArgument(arg + ": empty value");
    *target = value;
  }
  if (flags.node.empty()) return InvalidArgument("--node: required");
  if (!ValidNodeName(flags.node)) {
    return InvalidArgument(
        "--node: \"" + flags.node +
        "\" is not a node name (letters, digits, '-', '_', '.', not starting with '.' or "
        "'-')");
  }
  if (flags.controller.empty()) return InvalidArgument("--controller: required");
  // Replicated controllers: every one's address, comma-separated.
  for (const std::string& address : text::SplitList(flags.controller, ',')) {
    if (Result<HostPort> hp = ParseHostPort(address); !hp.ok()) {
      return InvalidArgument("--controller: " + hp.status().message());
    } else if (hp->port == 0) {
      return InvalidArgument("--controller: \"" + address + "\": port 0 is not a port");
    }
  }
  if (flags.ca_file.empty()) return InvalidArgument("--ca-file: required");
  if (flags.cert_file.empty()) return InvalidArgument("--cert-file: required");
  if (flags.cert_key_file.empty()) return InvalidArgument("--cert-key-file: required");
  if (flags.spool.empty()) return InvalidArgument("--spool: required");
  if (!flags.home.starts_with("/")) {
    return InvalidArgument("--home: \"" + flags.home + "\" is not an absolute path");
  }
  if (Result<HostPort> hp = ParseHostPort(flags.listen); !hp.ok()) {
    return InvalidArgument("--listen: " + hp.status().message());
  }
  // A host name, an IPv4 address or a bare IPv6 address (two colons or more), never a port.
  const size_t colons = std::count(flags.advertise.begin(), flags.advertise.end(), ':');
  if (flags.advertise.find_first_of(" /[]") != std::string::npos || colons == 1) {
    return InvalidArgument("--advertise: \"" + flags.advertise +
                           "\" is not a host name or address (no port)");
  }
  return flags;
}

}  // namespace gantry::agent
