#include "slurm/client_config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "text/ascii.h"

namespace gantry::slurm {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && text::IsAsciiSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && text::IsAsciiSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<ClientConfig> ParseClientConfig(std::string_view text, std::string_view path) {
  ClientConfig config;
  config.path = std::string(path);
  int line_number = 0;
  for (std::string_view line : text::Split(text, '\n')) {
    ++line_number;
    const size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = Trim(line);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument(std::string(path) + ":" + std::to_string(line_number) +
                             ": expected Key=Value, got " + text::Quote(line));
    }
    const std::string key = text::AsciiToLower(Trim(line.substr(0, eq)));
    const std::string value(Trim(line.substr(eq + 1)));
    if (key == "clustername") {
      config.cluster_name = value;
    } else if (key == "statedir") {
      config.state_dir = value;
    } else if (key == "commandsocket") {
      config.command_socket = value;
    } else if (key == "controllersocket") {
      config.controller_socket = value;
    } else if (key == "controlleraddress") {
      config.controller_address = value;
    } else if (key == "controlleraddressfile") {
      config.controller_address_file = value;
    } else if (key == "keyfile") {
      config.key_file = value;
    } else if (key == "cafile") {
      config.ca_file = value;
    }
  }
  return config;
}

Result<ClientConfig> LoadClientConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFound("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseClientConfig(text.str(), path);
}

namespace {

bool IsSocket(const std::string& path) {
  struct stat st {};
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

std::vector<Endpoint> ResolveEndpoints(const ClientConfig& config) {
  // Sockets: every one listed once any of them exists (a replica that is taking the lead has
  // none for a moment, and is then the one to reach).
  const auto sockets = [](const std::string& list) {
    std::vector<std::string> paths = text::SplitList(list, ',');
    return std::any_of(paths.begin(), paths.end(), IsSocket) ? paths : std::vector<std::string>();
  };
  std::vector<Endpoint> out;
  for (const std::string& path : sockets(config.command_socket)) {
    out.push_back(Endpoint{path, true, "", true});
  }
  if (!out.empty()) return out;
  for (const std::string& path : sockets(config.controller_socket)) {
    out.push_back(Endpoint{"unix:" + path, true, "", false});
  }
  if (!out.empty()) return out;
  std::string addresses = config.controller_address;
  if (addresses.empty() && !config.controller_address_file.empty()) {
    std::ifstream in(config.controller_address_file);
    if (in) {
      std::string line;
      std::getline(in, line);
      addresses = std::string(Trim(line));
    }
  }
  for (const std::string& address : text::SplitList(addresses, ',')) {
    std::string host = address;
    const size_t colon = host.rfind(':');
    if (colon != std::string::npos) host.resize(colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    out.push_back(Endpoint{address, false, host, false});
  }
  return out;
}

Result<Endpoint> ResolveEndpoint(const ClientConfig& config) {
  std::vector<Endpoint> all = ResolveEndpoints(config);
  if (all.empty()) return Unavailable("no controller socket or address in " + config.path);
  return all.front();
}

}  // namespace gantry::slurm
