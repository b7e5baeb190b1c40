#include "cluster/replicas.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "sys/files.h"

namespace gantry::cluster {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// A loopback port nobody listens on now; several calls while the first sockets stay open give
// different ports.
Result<int> ReserveLoopbackPort(std::vector<int>* held) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    const int error = errno;
    close(fd);
    return Unavailable(std::string("cannot pick a loopback port: ") + std::strerror(error));
  }
  held->push_back(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace

std::string Replicas::EtcdEndpoints() const {
  std::vector<std::string> out;
  for (const EtcdMember& m : etcd) out.push_back(m.client);
  return Join(out);
}

std::string Replicas::ControllerAddresses() const {
  std::vector<std::string> out;
  for (const Replica& r : controllers) out.push_back(r.address);
  return Join(out);
}

std::string ReplicasPath(const StateDir& dir) { return dir.dir() + "/replicas.conf"; }
std::string ReplicaRunDir(const StateDir& dir, std::string_view name) {
  return dir.run() + "/" + std::string(name);
}
std::string ReplicaLog(const StateDir& dir, std::string_view name) {
  return dir.logs() + "/gantryd-" + std::string(name) + ".log";
}
std::string ReplicaPidFile(const StateDir& dir, std::string_view name) {
  return ReplicaRunDir(dir, name) + "/gantryd.pid";
}
std::string EtcdDataDir(const StateDir& dir, std::string_view name) {
  return dir.dir() + "/etcd/" + std::string(name);
}
std::string EtcdLog(const StateDir& dir, std::string_view name) {
  return dir.logs() + "/etcd-" + std::string(name) + ".log";
}
std::string EtcdPidFile(const StateDir& dir, std::string_view name) {
  return dir.run() + "/etcd-" + std::string(name) + ".pid";
}

Result<Replicas> NewLocalReplicas(int count) {
  if (count < 2 || count > kMaxControllers) {
    return InvalidArgument("--controllers " + std::to_string(count) +
                           ": a replicated cluster has 2 to " + std::to_string(kMaxControllers) +
                           " controllers (3 survive the loss of any one; 1 is the default form)");
  }
  std::vector<int> held;
  Replicas replicas;
  Status failed;
  const auto port = [&]() -> std::string {
    Result<int> p = ReserveLoopbackPort(&held);
    if (!p.ok()) {
      failed = p.status();
      return "";
    }
    return "127.0.0.1:" + std::to_string(*p);
  };
  for (int i = 1; i <= count; ++i) {
    replicas.etcd.push_back({"e" + std::to_string(i), port(), port()});
    replicas.controllers.push_back({"c" + std::to_string(i), port()});
  }
  for (int fd : held) close(fd);
  if (!failed.ok()) return failed;
  return replicas;
}

std::string RenderReplicas(const Replicas& replicas) {
  std::string text =
      "# Replicated controllers of this cluster (gantry up --controllers N; decision 0017).\n";
  for (const EtcdMember& m : replicas.etcd) {
    text += "etcd " + m.name + " " + m.client + " " + m.peer + "\n";
  }
  for (const Replica& r : replicas.controllers) {
    text += "controller " + r.name + " " + r.address + "\n";
  }
  return text;
}

Result<Replicas> ParseReplicas(std::string_view text, std::string_view path) {
  Replicas replicas;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;
    const std::string where = std::string(path) + ":" + std::to_string(number) + ": ";
    if (w[0] == "etcd" && w.size() == 4) {
      replicas.etcd.push_back({w[1], w[2], w[3]});
    } else if (w[0] == "controller" && w.size() == 3) {
      replicas.controllers.push_back({w[1], w[2]});
    } else {
      std::string message = where;
      message +=
          "\"" + line + "\": expected \"etcd NAME CLIENT PEER\" or \"controller NAME ADDRESS\"";
      return InvalidArgument(message);
    }
  }
  if (replicas.etcd.empty() || replicas.controllers.size() < 2) {
    return InvalidArgument(std::string(path) +
                           ": a replicated cluster needs etcd members and at least 2 controllers");
  }
  return replicas;
}

Result<std::optional<Replicas>> LoadReplicas(const StateDir& dir) {
  const std::string path = ReplicasPath(dir);
  if (access(path.c_str(), F_OK) != 0) return std::optional<Replicas>();
  GANTRY_ASSIGN_OR_RETURN(const std::string text, sys::ReadText(path));
  GANTRY_ASSIGN_OR_RETURN(Replicas replicas, ParseReplicas(text, path));
  return std::optional<Replicas>(std::move(replicas));
}

Status SaveReplicas(const StateDir& dir, const Replicas& replicas) {
  return sys::WriteFileAtomically(ReplicasPath(dir), RenderReplicas(replicas), 0644);
}

}  // namespace gantry::cluster
