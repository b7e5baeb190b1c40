#include "wire/frame_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gantry::wire {

Result<std::unique_ptr<FrameServer>> FrameServer::Listen(const std::string& path, Handler handler,
                                                         Options options) {
  GANTRY_ASSIGN_OR_RETURN(int fd, ListenUnix(path));
  return std::unique_ptr<FrameServer>(new FrameServer(path, fd, std::move(handler), options));
}

FrameServer::~FrameServer() { Stop(); }

void FrameServer::Start() {
  thread_ = std::thread([this] { AcceptLoop(); });
}

void FrameServer::Stop() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (const Accepted& a : pending_) {
      connections_.erase(a.fd);
      close(a.fd);
    }
    pending_.clear();
    // Wakes every connection blocked in read; each closes its own descriptor.
    for (int fd : connections_) shutdown(fd, SHUT_RDWR);
    work_cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  // Resets connections still waiting in the backlog (never accepted, never served).
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return threads_ == 0; });
  unlink(path_.c_str());
}

void FrameServer::AcceptLoop() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] {
        return stopping_ || static_cast<int>(connections_.size()) < options_.max_connections;
      });
      if (stopping_) return;
    }
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;  // wake up regularly to notice Stop()
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      BackOffAfterAcceptError();  // out of descriptors: no busy loop on the backlog
      continue;
    }
    Result<PeerIdentity> caller = PeerOf(fd);
    if (!caller.ok()) {
      close(fd);  // no identity, no service
      continue;
    }
    SetTimeouts(fd, options_.idle_timeout_seconds);
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) {  // Stop() has shut down the connections it knew of: not this one
      close(fd);
      return;
    }
    const uid_t uid = caller->uid;
    if (!MayConnectAgain(uid, per_uid_[uid], options_.max_connections_per_uid)) {
      lock.unlock();
      Refuse(fd, uid);
      continue;
    }
    ++per_uid_[uid];
    connections_.insert(fd);
    pending_.push_back(Accepted{fd, *caller});
    // Every pending connection has an idle thread to take it, or a new one.
    if (static_cast<int>(pending_.size()) > idle_threads_) {
      ++threads_;
      std::thread([this] { Work(); }).detach();
    } else {
      work_cv_.notify_one();
    }
  }
}

void FrameServer::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    ++idle_threads_;
    work_cv_.wait_for(lock, std::chrono::seconds(options_.keep_idle_threads_seconds),
                      [this] { return stopping_ || !pending_.empty(); });
    --idle_threads_;
    if (stopping_ || pending_.empty()) break;
    const Accepted next = pending_.front();
    pending_.pop_front();
    lock.unlock();
    Serve(next.fd, next.caller);
    lock.lock();
  }
  --threads_;
  cv_.notify_all();
}

void FrameServer::Serve(int fd, PeerIdentity caller) {
  while (true) {
    Result<Frame> request =
        ReadFrame(fd, kMaxRequestBytes, std::chrono::seconds(options_.request_deadline_seconds));
    if (!request.ok()) break;  // closed, idle too long, or not our protocol
    Result<Slices> reply = InvalidArgument("unknown method " + std::to_string(request->tag));
    if (std::optional<Method> method = MethodFromTag(request->tag)) {
      reply = NoThrow("request failed", [&] { return handler_(caller, *method, request->body); });
    }
    const Status written = reply.ok() ? WriteFrame(fd, 0, *reply)
                                      : WriteFrame(fd, static_cast<uint8_t>(reply.status().code()),
                                                   std::string_view(reply.status().message()));
    if (!written.ok()) break;
  }
  // Closed under mu_: neither Stop() nor a new accept can see the number in between.
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(fd);
  if (--per_uid_[caller.uid] == 0) per_uid_.erase(caller.uid);
  close(fd);
  cv_.notify_all();
}

void FrameServer::Refuse(int fd, uid_t uid) const {
  SetTimeouts(fd, 1);  // a full socket buffer does not hold the accept loop
  const std::string message = "too many connections from uid " + std::to_string(uid) +
                              ": at most " + std::to_string(options_.max_connections_per_uid) +
                              " at once";
  (void)WriteFrame(fd, static_cast<uint8_t>(StatusCode::kResourceExhausted), message);
  close(fd);
}

}  // namespace gantry::wire
