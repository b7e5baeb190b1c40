#include "rpc/unix_listener.h"

#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>

namespace gantry::rpc {

Result<std::unique_ptr<UnixListener>> UnixListener::Listen(const std::string& path,
                                                           Options options) {
  GANTRY_ASSIGN_OR_RETURN(int fd, wire::ListenUnix(path));
  return std::unique_ptr<UnixListener>(new UnixListener(path, fd, options));
}

UnixListener::~UnixListener() {
  Stop();
  if (listen_fd_ >= 0) close(listen_fd_);
}

void UnixListener::Start(grpc::Server* server, AcceptHook hook) {
  thread_ = std::thread([this, server, hook = std::move(hook)] { AcceptLoop(server, hook); });
}

void UnixListener::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  unlink(path_.c_str());
}

void UnixListener::AcceptLoop(grpc::Server* server, const AcceptHook& hook) {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;  // wake up regularly to notice Stop()
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      wire::BackOffAfterAcceptError();  // out of descriptors: no busy loop on the backlog
      continue;
    }
    Result<PeerIdentity> peer = wire::PeerOf(fd);
    if (!peer.ok()) {
      close(fd);  // no identity, no service
      continue;
    }
    const PeerIdentity identity = *peer;
    struct stat st {};
    if (fstat(fd, &st) != 0) {
      close(fd);
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!AdmitLocked(identity.uid)) {
        close(fd);  // over a limit: the client sees the connection reset
        continue;
      }
      by_fd_[fd] = Connection{identity, st.st_dev, st.st_ino};
    }
    if (hook) hook(fd, identity);
    grpc::AddInsecureChannelFromFd(server, fd);  // gRPC owns the fd from here on
  }
}

std::optional<PeerIdentity> UnixListener::Lookup(std::string_view peer) const {
  constexpr std::string_view kPrefix = "fd:";
  if (!peer.starts_with(kPrefix)) return std::nullopt;
  int fd = -1;
  const std::string_view digits = peer.substr(kPrefix.size());
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = by_fd_.find(fd);
  if (it == by_fd_.end() || !StillOpen(fd, it->second)) return std::nullopt;
  return it->second.who;
}

bool UnixListener::StillOpen(int fd, const Connection& c) {
  struct stat st {};
  return fstat(fd, &st) == 0 && st.st_dev == c.dev && st.st_ino == c.ino;
}

bool UnixListener::AdmitLocked(uid_t uid) {
  int of_uid = 0;
  for (auto it = by_fd_.begin(); it != by_fd_.end();) {
    if (!StillOpen(it->first, it->second)) {
      it = by_fd_.erase(it);
      continue;
    }
    of_uid += it->second.who.uid == uid ? 1 : 0;
    ++it;
  }
  if (static_cast<int>(by_fd_.size()) >= options_.max_connections) return false;
  return wire::MayConnectAgain(uid, of_uid, options_.max_connections_per_uid);
}

}  // namespace gantry::rpc
