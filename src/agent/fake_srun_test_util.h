// srun's side of a step's I/O stream (step_runner.h), by hand, for the step tests: a loopback
// listener that checks the agent's HELLO and records what arrives.
#ifndef GANTRY_AGENT_FAKE_SRUN_TEST_UTIL_H_
#define GANTRY_AGENT_FAKE_SRUN_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "agent/step_runner.h"
#include "gantry/v1/job.pb.h"
#include "wire/frame.h"
#include "wire/step_auth.h"

namespace gantry::agent::testing {

inline constexpr char kKey[] = "0123456789abcdef";

class FakeSrun {
 public:
  FakeSrun() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(listen_fd_, 4), 0);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~FakeSrun() {
    if (fd_ >= 0) close(fd_);
    close(listen_fd_);
  }
  uint32_t port() const { return port_; }

  // Accepts the agent, challenges it, reads its HELLO and welcomes it with the proof of `key`.
  v1::StepIo Accept(const std::string& key = kKey) {
    fd_ = accept(listen_fd_, nullptr, nullptr);
    v1::StepIo challenge;
    challenge.set_nonce(std::string(wire::kStepNonceBytes, 's'));
    Send(v1::STEP_IO_CHALLENGE, challenge);
    auto [kind, hello] = Read();
    EXPECT_EQ(kind, v1::STEP_IO_HELLO);
    v1::StepIo welcome;
    welcome.set_proof(wire::StepProof(key, "srun", challenge.nonce(), hello.nonce(), hello.node()));
    Send(v1::STEP_IO_WELCOME, welcome);
    return hello;
  }
  std::pair<int, v1::StepIo> Read() {
    Result<wire::Frame> frame = wire::ReadFrame(fd_, 1 << 20);
    v1::StepIo io;
    if (!frame.ok()) return {-1, io};
    io.ParseFromString(frame->body);
    return {frame->tag, io};
  }
  void Send(int kind, const v1::StepIo& io) {
    ASSERT_TRUE(wire::WriteFrame(fd_, static_cast<uint8_t>(kind), io.SerializeAsString()).ok());
  }
  // Reads frames until the tasks' stdout, gathered in `out`, holds `text`; false when the stream
  // ends first.
  bool ReadStdoutUntil(const std::string& text, std::string* out) {
    while (out->find(text) == std::string::npos) {
      auto [kind, io] = Read();
      if (kind == -1) return false;
      if (kind == v1::STEP_IO_STDOUT) *out += io.data();
    }
    return true;
  }
  void Hangup() {
    close(fd_);
    fd_ = -1;
  }

 private:
  int listen_fd_ = -1;
  int fd_ = -1;
  uint32_t port_ = 0;
};

inline StepPlan PlanFor(const FakeSrun& srun, const std::vector<std::string>& script,
                        std::vector<uint32_t> ranks) {
  StepPlan plan;
  plan.io_host = "127.0.0.1";
  plan.io_port = srun.port();
  plan.io_key = kKey;
  plan.node = "n1";
  plan.what = "StepId=1.0";
  plan.log = [](const std::string&) {};
  for (size_t i = 0; i < ranks.size(); ++i) {
    StepTask task;
    task.rank = ranks[i];
    task.spawn.path = "/bin/sh";
    task.spawn.argv = {"/bin/sh", "-c", script[i]};
    task.spawn.env = {"PATH=/usr/bin:/bin", "RANK=" + std::to_string(ranks[i])};
    task.spawn.work_dir = "/";
    plan.tasks.push_back(task);
  }
  return plan;
}

}  // namespace gantry::agent::testing

#endif  // GANTRY_AGENT_FAKE_SRUN_TEST_UTIL_H_
