// The controller's unix-socket front door: accepts local connections itself, records each
// client's kernel-verified credentials (SO_PEERCRED), and hands the connection to a gRPC server.
// Handlers then map ServerContext::peer() ("fd:N") back to those credentials with Lookup().
// See docs/decisions/0002-grpc-peer-credentials.md.
//
// Thread-safety: Start/Stop from one thread; Lookup from any thread (e.g. gRPC handlers).
// A handler must call Lookup when its call starts: an fd number is reused by the next accept
// once its connection closes. Each record also keeps the socket's inode, and a record whose fd
// no longer refers to that socket (gRPC closed it; the number now names something else) is
// neither returned nor counted.
//
// Limits: at most `max_connections` open connections, and `max_connections_per_uid` of one uid
// other than root and the listener's own; a connection past either is closed at once (the client
// sees the connection reset), so no user can exhaust the daemon's descriptors.
#ifndef GANTRY_RPC_UNIX_LISTENER_H_
#define GANTRY_RPC_UNIX_LISTENER_H_

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "wire/unix_socket.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace gantry::rpc {

using PeerIdentity = wire::PeerIdentity;

class UnixListener {
 public:
  // Called for each accepted connection before it is handed to gRPC (tests, logging).
  using AcceptHook = std::function<void(int fd, const PeerIdentity&)>;

  struct Options {
    int max_connections = 1024;
    int max_connections_per_uid = wire::kMaxConnectionsPerUid;
  };

  // Binds `path` (see wire::ListenUnix).
  static Result<std::unique_ptr<UnixListener>> Listen(const std::string& path, Options options);
  static Result<std::unique_ptr<UnixListener>> Listen(const std::string& path) {
    return Listen(path, Options());
  }

  ~UnixListener();
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  // Starts accepting on a background thread; connections go to `server`, which must outlive
  // Stop().
  void Start(grpc::Server* server, AcceptHook hook = nullptr);
  // Stops accepting and removes the socket file. Established connections stay with gRPC.
  void Stop();

  // The identity behind a gRPC peer string "fd:N", if that connection came through here.
  std::optional<PeerIdentity> Lookup(std::string_view peer) const;

  const std::string& path() const { return path_; }

 private:
  struct Connection {
    PeerIdentity who;
    dev_t dev = 0;  // the socket's identity: what fd pointed at when it was accepted
    ino_t ino = 0;
  };
  UnixListener(std::string path, int fd, Options options)
      : path_(std::move(path)), listen_fd_(fd), options_(options) {}
  void AcceptLoop(grpc::Server* server, const AcceptHook& hook);
  // Whether `fd` still refers to the socket `c` was accepted as.
  static bool StillOpen(int fd, const Connection& c);
  // Drops the records of closed connections; true when `uid` may open one more.
  bool AdmitLocked(uid_t uid);

  std::string path_;
  int listen_fd_;
  Options options_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<int, Connection> by_fd_;  // guarded by mu_
};

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_UNIX_LISTENER_H_
