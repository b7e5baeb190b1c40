#include "slurm/srun_io.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include "sys/random_bytes.h"
#include "wire/frame.h"
#include "wire/step_auth.h"

namespace gantry::slurm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kMaxFrameBytes = 16u << 20;

}  // namespace

struct StepIoServer::Agent {
  int fd = -1;
  std::string nonce;  // srun's CHALLENGE on this connection
  std::string node;   // set by a HELLO whose proof holds
};

StepIoServer::StepIoServer(int listen_fd, uint32_t port, std::string host, std::string key)
    : listen_fd_(listen_fd), port_(port), host_(std::move(host)), key_(std::move(key)) {}

StepIoServer::~StepIoServer() {
  for (auto& a : agents_) {
    if (a->fd >= 0) close(a->fd);
  }
  close(listen_fd_);
}

Result<std::unique_ptr<StepIoServer>> StepIoServer::Listen(std::string host) {
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  uint32_t port = 0;
  if (fd >= 0) {
    const int off = 0;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    socklen_t len = sizeof(addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 256) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      close(fd);
      fd = -1;
    } else {
      port = ntohs(addr.sin6_port);
    }
  }
  if (fd < 0) {  // no IPv6 here
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Unavailable(std::string("socket: ") + strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof(addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 256) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      const int err = errno;
      close(fd);
      return Unavailable(std::string("listen for the step's tasks: ") + strerror(err));
    }
    port = ntohs(addr.sin_port);
  }
  Result<std::string> key = sys::RandomBytes(32);
  if (!key.ok()) {
    close(fd);
    return key.status();
  }
  return std::unique_ptr<StepIoServer>(
      new StepIoServer(fd, port, std::move(host), std::move(key).value()));
}

void StepIoServer::Send(Agent& agent, int kind, const v1::StepIo& io) {
  if (agent.fd < 0) return;
  if (!wire::WriteFrame(agent.fd, static_cast<uint8_t>(kind), io.SerializeAsString()).ok()) {
    shutdown(agent.fd, SHUT_WR);  // the read side reports the loss
  }
}

void StepIoServer::SendSignal(int sig) {
  v1::StepIo io;
  io.set_signal(sig);
  for (auto& a : agents_) {
    if (!a->node.empty()) Send(*a, v1::STEP_IO_SIGNAL, io);
  }
}

void StepIoServer::Serve(const std::map<std::string, std::vector<uint32_t>>& expected, int stdin_fd,
                         int signal_fd, std::chrono::milliseconds connect_timeout,
                         const StepIoHooks& hooks) {
  std::map<std::string, std::set<uint32_t>> running;  // node -> ranks not ended
  size_t left = 0;
  for (const auto& [node, ranks] : expected) {
    running[node].insert(ranks.begin(), ranks.end());
    left += ranks.size();
  }
  std::set<std::string> connected;
  bool stdin_open = stdin_fd >= 0;
  const Clock::time_point deadline = Clock::now() + connect_timeout;
  Clock::time_point next_tick = Clock::now();

  auto end_node = [&](const std::string& node, const std::string& error) {
    auto it = running.find(node);
    if (it == running.end()) return;
    for (uint32_t rank : it->second) {
      TaskEnd end;
      end.rank = rank;
      end.node = node;
      end.wait_status = 1 << 8;
      end.error = error;
      --left;
      hooks.task_ended(end);
    }
    it->second.clear();
  };
  auto drop = [&](Agent& agent) {
    if (agent.fd >= 0) close(agent.fd);
    agent.fd = -1;
    if (!agent.node.empty()) end_node(agent.node, "lost the connection to its node");
  };
  auto send_stdin = [&](Agent& agent, const std::string& data, bool eof) {
    v1::StepIo io;
    io.set_data(data);
    io.set_eof(eof);
    Send(agent, v1::STEP_IO_STDIN, io);
  };

  while (left > 0) {
    const Clock::time_point now = Clock::now();
    if (now >= next_tick) {
      if (hooks.tick) hooks.tick();
      next_tick = now + std::chrono::milliseconds(100);
    }
    if (now >= deadline && connected.size() < expected.size()) {
      for (const auto& [node, ranks] : expected) {
        if (!connected.contains(node)) {
          connected.insert(node);
          end_node(node, "did not start: its node did not answer");
        }
      }
      if (left == 0) break;
    }
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, POLLIN, 0});
    fds.push_back({signal_fd, POLLIN, 0});  // poll skips a negative descriptor
    // srun's stdin is read once every node is there, so that each gets all of it.
    const bool read_stdin = stdin_open && connected.size() == expected.size();
    fds.push_back({read_stdin ? stdin_fd : -1, POLLIN, 0});
    const size_t first_agent = fds.size();
    for (auto& a : agents_) fds.push_back({a->fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) break;

    if (fds[1].revents & POLLIN) {
      unsigned char sig = 0;
      if (read(signal_fd, &sig, 1) == 1 && hooks.caught) hooks.caught(sig);
    }
    if (fds[2].revents != 0) {
      char buf[65536];
      const ssize_t n = read(stdin_fd, buf, sizeof(buf));
      if (n > 0) {
        for (auto& a : agents_) {
          if (!a->node.empty()) send_stdin(*a, std::string(buf, static_cast<size_t>(n)), false);
        }
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        stdin_open = false;
        for (auto& a : agents_) {
          if (!a->node.empty()) send_stdin(*a, "", true);
        }
      }
    }
    for (size_t i = first_agent; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Agent& agent = *agents_[i - first_agent];
      if (agent.fd < 0) continue;
      // Readable: a frame has begun. A peer that stops in its middle holds the loop 5 s at most.
      Result<wire::Frame> frame =
          wire::ReadFrame(agent.fd, kMaxFrameBytes, std::chrono::seconds(5));
      v1::StepIo io;
      if (!frame.ok() || !io.ParseFromString(frame->body)) {
        drop(agent);
        continue;
      }
      if (agent.node.empty()) {  // the first frame must be a HELLO proving the step's key
        const bool welcome =
            frame->tag == v1::STEP_IO_HELLO && io.nonce().size() == wire::kStepNonceBytes &&
            wire::SameProof(io.proof(),
                            wire::StepProof(key_, "agent", agent.nonce, io.nonce(), io.node())) &&
            expected.contains(io.node()) && !connected.contains(io.node());
        if (!welcome) {
          drop(agent);
          continue;
        }
        agent.node = io.node();
        connected.insert(agent.node);
        v1::StepIo answer;
        answer.set_proof(wire::StepProof(key_, "srun", agent.nonce, io.nonce(), agent.node));
        Send(agent, v1::STEP_IO_WELCOME, answer);
        if (stdin_fd < 0) send_stdin(agent, "", true);
        continue;
      }
      switch (frame->tag) {
        case v1::STEP_IO_STDOUT:
        case v1::STEP_IO_STDERR:
          if (running[agent.node].contains(io.task_id())) {
            hooks.output(io.task_id(), frame->tag == v1::STEP_IO_STDERR, io.data());
          }
          break;
        case v1::STEP_IO_EXIT:
          if (running[agent.node].erase(io.task_id()) == 1) {
            TaskEnd end;
            end.rank = io.task_id();
            end.node = agent.node;
            end.wait_status = io.wait_status();
            end.error = io.error();
            end.usage = io.usage();
            --left;
            hooks.task_ended(end);
          }
          break;
        default:
          break;
      }
    }
    std::erase_if(agents_, [](const std::unique_ptr<Agent>& a) { return a->fd < 0; });
    if (fds[0].revents & POLLIN) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        timeval timeout{10, 0};  // a frame that starts arrives whole soon after
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
        auto agent = std::make_unique<Agent>();
        agent->fd = fd;
        Result<std::string> nonce = sys::RandomBytes(wire::kStepNonceBytes);
        if (nonce.ok()) {
          agent->nonce = std::move(nonce).value();
          v1::StepIo challenge;
          challenge.set_nonce(agent->nonce);
          Send(*agent, v1::STEP_IO_CHALLENGE, challenge);
          agents_.push_back(std::move(agent));
        } else {
          close(fd);
        }
      }
    }
  }
}

}  // namespace gantry::slurm
