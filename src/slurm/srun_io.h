// srun's end of a step's I/O streams (StepIo in gantry/v1/job.proto): it listens before the step
// is created, each step node's agent connects back and proves it holds the key srun made, without
// sending it (CHALLENGE, HELLO, WELCOME: wire/step_auth.h), then streams its tasks' output and
// ends; srun sends signals and its stdin.
//
// StepIoServer::Serve runs the loop until every expected task has ended: it accepts agents
// (one connection per node; a wrong proof or an unexpected node is dropped), hands output and
// ends to the hooks, forwards `stdin_fd` (every task gets it; its end closes theirs), and turns
// the signals srun caught (read from `signal_fd`, one byte per signal) into the hook's answer.
// A node that has not connected `connect_timeout` after the start, or whose connection drops
// before all its tasks ended, has its remaining tasks ended with an error ("lost" / "did not
// start").
// Single-threaded: all hooks run on the caller's thread, inside Serve.
#ifndef GANTRY_SLURM_SRUN_IO_H_
#define GANTRY_SLURM_SRUN_IO_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"

namespace gantry::slurm {

struct TaskEnd {
  uint32_t rank = 0;
  std::string node;
  int wait_status = 0;
  std::string error;  // why it did not start or was lost; empty when it ran
  v1::JobUsage usage;
};

struct StepIoHooks {
  std::function<void(uint32_t rank, bool is_stderr, std::string_view data)> output;
  std::function<void(const TaskEnd& end)> task_ended;
  // A signal srun caught; the hook may call SendSignal.
  std::function<void(int sig)> caught;
  // About every 100 ms (for timers such as -W).
  std::function<void()> tick;
};

class StepIoServer {
 public:
  // Listens on every address (IPv6 with IPv4 mapped, else IPv4), on a free port, and makes a
  // random key. `host` is what the agents are told to connect to.
  static Result<std::unique_ptr<StepIoServer>> Listen(std::string host);
  ~StepIoServer();
  StepIoServer(const StepIoServer&) = delete;
  StepIoServer& operator=(const StepIoServer&) = delete;

  const std::string& host() const { return host_; }
  uint32_t port() const { return port_; }
  const std::string& key() const { return key_; }

  // See the header comment. `expected`: node -> its ranks. `stdin_fd` -1 = none (the tasks'
  // stdin is closed at once).
  void Serve(const std::map<std::string, std::vector<uint32_t>>& expected, int stdin_fd,
             int signal_fd, std::chrono::milliseconds connect_timeout, const StepIoHooks& hooks);

  // Sends `sig` to every task through the connected agents (tasks of nodes not connected yet
  // are not reached).
  void SendSignal(int sig);

 private:
  struct Agent;
  StepIoServer(int listen_fd, uint32_t port, std::string host, std::string key);
  static void Send(Agent& agent, int kind, const v1::StepIo& io);

  int listen_fd_;
  uint32_t port_;
  std::string host_;
  std::string key_;
  std::vector<std::unique_ptr<Agent>> agents_;
};

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SRUN_IO_H_
