#include "wire/unix_socket.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace gantry::wire {
namespace {

Result<sockaddr_un> Address(const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("unix socket path \"" + path + "\" must be 1 to " +
                           std::to_string(sizeof(addr.sun_path) - 1) + " bytes long");
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

std::string Errno(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

}  // namespace

Result<int> ListenUnix(const std::string& path) {
  GANTRY_ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return FailedPrecondition(path + " exists and is not a socket; refusing to replace it");
    }
    unlink(path.c_str());
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(Errno("socket for", path));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      chmod(path.c_str(), 0666) != 0 || listen(fd, SOMAXCONN) != 0) {
    const std::string message = Errno("listen on", path);
    close(fd);
    return Unavailable(message);
  }
  return fd;
}

Result<int> ConnectUnix(const std::string& path) {
  GANTRY_ASSIGN_OR_RETURN(sockaddr_un addr, Address(path));
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(Errno("socket for", path));
  while (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (errno == EINTR) continue;
    const std::string message = Errno("connect to", path);
    close(fd);
    return Unavailable(message);
  }
  return fd;
}

Result<PeerIdentity> PeerOf(int fd) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return Unavailable(std::string("SO_PEERCRED: ") + std::strerror(errno));
  }
  return PeerIdentity{cred.uid, cred.gid, cred.pid};
}

void SetTimeouts(int fd, int seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

bool MayConnectAgain(uid_t uid, int held, int cap) {
  return uid == 0 || uid == geteuid() || held < cap;
}

void BackOffAfterAcceptError() {
  if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace gantry::wire
