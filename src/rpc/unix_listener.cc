#include "rpc/unix_listener.h"

#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace gantry::rpc {

namespace {

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

}  // namespace

Result<std::unique_ptr<UnixListener>> UnixListener::Listen(const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("unix socket path \"" + path + "\" must be 1 to " +
                           std::to_string(sizeof(addr.sun_path) - 1) + " bytes long");
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return FailedPrecondition(path + " exists and is not a socket; refusing to replace it");
    }
    unlink(path.c_str());
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(Errno("socket for", path));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      chmod(path.c_str(), 0666) != 0 || listen(fd, SOMAXCONN) != 0) {
    const std::string message = Errno("listen on", path);
    close(fd);
    return Unavailable(message);
  }
  return std::unique_ptr<UnixListener>(new UnixListener(path, fd));
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
    if (fd < 0) continue;
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      close(fd);  // no identity, no service
      continue;
    }
    const PeerIdentity identity{cred.uid, cred.gid, cred.pid};
    {
      std::lock_guard<std::mutex> lock(mu_);
      by_fd_[fd] = identity;
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
  if (it == by_fd_.end()) return std::nullopt;
  return it->second;
}

}  // namespace gantry::rpc
