// The controller's unix-socket front door: accepts local connections itself, records each
// client's kernel-verified credentials (SO_PEERCRED), and hands the connection to a gRPC server.
// Handlers then map ServerContext::peer() ("fd:N") back to those credentials with Lookup().
// See docs/decisions/0002-grpc-peer-credentials.md.
//
// Thread-safety: Start/Stop from one thread; Lookup from any thread (e.g. gRPC handlers).
// A handler must call Lookup when its call starts: an fd number is reused by the next accept
// once its connection closes.
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

  // Binds `path` (see wire::ListenUnix).
  static Result<std::unique_ptr<UnixListener>> Listen(const std::string& path);

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
  UnixListener(std::string path, int fd) : path_(std::move(path)), listen_fd_(fd) {}
  void AcceptLoop(grpc::Server* server, const AcceptHook& hook);

  std::string path_;
  int listen_fd_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<int, PeerIdentity> by_fd_;  // guarded by mu_
};

}  // namespace gantry::rpc

#endif  // GANTRY_RPC_UNIX_LISTENER_H_
