// A server for the local command protocol (wire/frame.h) on a unix socket: accepts connections,
// establishes each caller from SO_PEERCRED, and answers every request frame with the handler's
// reply on that connection's own thread. Threads are kept for `keep_idle_threads_seconds` after
// their connection ends and serve the next one: a command that connects, calls once and leaves
// costs no thread start.
//
// Bad input never stops the server: an oversized or torn frame closes that connection, an unknown
// method is answered with an error frame, a handler's exception is answered as Internal, a
// connection idle for `idle_timeout_seconds` is closed, and so is one whose request has not
// arrived whole `request_deadline_seconds` after its first bytes. At most `max_connections`
// are served at once (more wait in the listen backlog), and at most `max_connections_per_uid`
// of one uid other than root and the server's own: the next one is answered ResourceExhausted
// "too many connections ..." and closed, so one user cannot take every slot.
//
// Thread-safety: Start/Stop from one thread; the handler runs on many threads at once.
#ifndef GANTRY_WIRE_FRAME_SERVER_H_
#define GANTRY_WIRE_FRAME_SERVER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "base/status.h"
#include "wire/frame.h"
#include "wire/unix_socket.h"

namespace gantry::wire {

class FrameServer {
 public:
  // Answers one request from `caller`: the reply message (written after the handler returns,
  // from the slices it gives), or an error (sent as code + text).
  using Handler =
      std::function<Result<Slices>(const PeerIdentity& caller, Method, std::string_view)>;

  struct Options {
    int max_connections = 512;
    int max_connections_per_uid = kMaxConnectionsPerUid;
    int idle_timeout_seconds = 300;
    int request_deadline_seconds = 30;
    int keep_idle_threads_seconds = 10;
  };

  // Binds `path` (see ListenUnix).
  static Result<std::unique_ptr<FrameServer>> Listen(const std::string& path, Handler handler,
                                                     Options options);
  static Result<std::unique_ptr<FrameServer>> Listen(const std::string& path, Handler handler) {
    return Listen(path, std::move(handler), Options());
  }

  ~FrameServer();
  FrameServer(const FrameServer&) = delete;
  FrameServer& operator=(const FrameServer&) = delete;

  // Starts accepting on a background thread.
  void Start();
  // Stops accepting, ends every connection (a call in progress finishes first), waits for their
  // threads and removes the socket file.
  void Stop();

  const std::string& path() const { return path_; }

 private:
  FrameServer(std::string path, int fd, Handler handler, Options options)
      : path_(std::move(path)), listen_fd_(fd), handler_(std::move(handler)), options_(options) {}
  struct Accepted {
    int fd;
    PeerIdentity caller;
  };
  void AcceptLoop();
  // A connection thread: serves accepted connections until none comes for a while.
  void Work();
  void Serve(int fd, PeerIdentity caller);
  // Answers a connection over its uid's cap with the error, and closes it.
  void Refuse(int fd, uid_t uid) const;

  std::string path_;
  int listen_fd_;
  Handler handler_;
  Options options_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable work_cv_;  // a connection was accepted, or Stop()
  bool stopping_ = false;            // guarded by mu_
  std::set<int> connections_;        // guarded by mu_: fds accepted and not closed yet
  std::map<uid_t, int> per_uid_;     // guarded by mu_: connections_ by the caller's uid
  std::deque<Accepted> pending_;     // guarded by mu_: accepted, no thread serves them yet
  int threads_ = 0;                  // guarded by mu_: connection threads alive
  int idle_threads_ = 0;             // guarded by mu_: of those, waiting for a connection
};

}  // namespace gantry::wire

#endif  // GANTRY_WIRE_FRAME_SERVER_H_
