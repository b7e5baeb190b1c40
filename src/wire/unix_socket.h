// Unix stream sockets: listening, connecting, and the kernel's word on who is on the other end.
#ifndef GANTRY_WIRE_UNIX_SOCKET_H_
#define GANTRY_WIRE_UNIX_SOCKET_H_

#include <sys/types.h>

#include <string>

#include "base/status.h"

namespace gantry::wire {

// Who is on the other end of a local connection, as the kernel reports it (SO_PEERCRED).
struct PeerIdentity {
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t pid = 0;
  friend bool operator==(const PeerIdentity&, const PeerIdentity&) = default;
};

// A listening socket (close-on-exec) bound at `path` with mode 0666, so that every local user can
// connect: identity comes from the kernel, not from file permissions. A stale socket file there
// is replaced; any other file is an error. InvalidArgument names a path too long for sun_path.
Result<int> ListenUnix(const std::string& path);

// A connected socket (close-on-exec) to `path`; Unavailable with strerror when nothing listens.
Result<int> ConnectUnix(const std::string& path);

// The peer's credentials; Unavailable when the kernel has none for `fd`.
Result<PeerIdentity> PeerOf(int fd);

// Sets SO_RCVTIMEO and SO_SNDTIMEO (0 = wait forever).
void SetTimeouts(int fd, int seconds);

// After a failed accept4: sleeps briefly when the failure was running out of descriptors or
// memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), which leaves the connection in the backlog and the
// listening socket readable; returns at once for other errors.
void BackOffAfterAcceptError();

// Connections one uid may hold on a daemon's socket at once (FrameServer, rpc::UnixListener).
inline constexpr int kMaxConnectionsPerUid = 64;

// Whether `uid`, holding `held` connections, may open one more under `cap`: root and the
// daemon's own uid (the cluster's own tools) are not capped.
bool MayConnectAgain(uid_t uid, int held, int cap);

// Raises this process's soft RLIMIT_NOFILE to its hard limit (a daemon serves many connections).
void RaiseDescriptorLimit();

}  // namespace gantry::wire

#endif  // GANTRY_WIRE_UNIX_SOCKET_H_
