#include "slurm/srun_io.h"

#include <gtest/gtest.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "wire/frame.h"
#include "wire/step_auth.h"

namespace gantry::slurm {
namespace {

// An agent's side of the stream, by hand.
class FakeAgent {
 public:
  explicit FakeAgent(uint32_t port) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    EXPECT_EQ(getaddrinfo("127.0.0.1", std::to_string(port).c_str(), &hints, &found), 0);
    fd_ = socket(found->ai_family, SOCK_STREAM, 0);
    EXPECT_EQ(connect(fd_, found->ai_addr, found->ai_addrlen), 0);
    freeaddrinfo(found);
  }
  ~FakeAgent() { Close(); }
  void Send(v1::StepIoKind kind, const v1::StepIo& io) {
    (void)wire::WriteFrame(fd_, static_cast<uint8_t>(kind), io.SerializeAsString());
  }
  // Answers srun's CHALLENGE with a HELLO proving `key`; returns whether srun's WELCOME proved
  // the same key. *challenged: srun's nonce on this connection.
  bool Hello(const std::string& key, const std::string& node, std::string* challenged = nullptr) {
    v1::StepIo challenge;
    EXPECT_EQ(Next(&challenge), v1::STEP_IO_CHALLENGE);
    EXPECT_EQ(challenge.nonce().size(), wire::kStepNonceBytes);
    if (challenged != nullptr) *challenged = challenge.nonce();
    v1::StepIo io;
    io.set_node(node);
    io.set_nonce(std::string(wire::kStepNonceBytes, 'a'));
    io.set_proof(wire::StepProof(key, "agent", challenge.nonce(), io.nonce(), node));
    Send(v1::STEP_IO_HELLO, io);
    v1::StepIo welcome;
    if (Next(&welcome) != v1::STEP_IO_WELCOME) return false;
    return wire::SameProof(welcome.proof(),
                           wire::StepProof(key, "srun", challenge.nonce(), io.nonce(), node));
  }
  void Output(uint32_t task, const std::string& data) {
    v1::StepIo io;
    io.set_task_id(task);
    io.set_data(data);
    Send(v1::STEP_IO_STDOUT, io);
  }
  void Exit(uint32_t task, int status) {
    v1::StepIo io;
    io.set_task_id(task);
    io.set_wait_status(status);
    Send(v1::STEP_IO_EXIT, io);
  }
  // The next frame srun sent (its kind), or -1.
  int Next(v1::StepIo* io) {
    Result<wire::Frame> frame = wire::ReadFrame(fd_, 1 << 20);
    if (!frame.ok()) return -1;
    io->ParseFromString(frame->body);
    return frame->tag;
  }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Seen {
  std::map<uint32_t, std::string> output;
  std::map<uint32_t, TaskEnd> ends;
};

StepIoHooks Recording(Seen* seen) {
  StepIoHooks hooks;
  hooks.output = [seen](uint32_t rank, bool, std::string_view data) { seen->output[rank] += data; };
  hooks.task_ended = [seen](const TaskEnd& end) { seen->ends[end.rank] = end; };
  return hooks;
}

TEST(StepIoServerTest, TakesOutputAndEndsFromAgentsThatKnowTheKey) {
  Result<std::unique_ptr<StepIoServer>> server = StepIoServer::Listen("127.0.0.1");
  ASSERT_TRUE(server.ok()) << server.status().message();
  StepIoServer& srun = **server;
  EXPECT_GE(srun.key().size(), 16u);
  Seen seen;
  std::thread agents([&] {
    std::string first_challenge;
    FakeAgent intruder(srun.port());
    EXPECT_FALSE(intruder.Hello("wrong key", "n1", &first_challenge));  // dropped, no WELCOME
    FakeAgent stranger(srun.port());
    EXPECT_FALSE(stranger.Hello(srun.key(), "n9"));  // the key, but not a node of the step
    FakeAgent n1(srun.port());
    std::string challenge;
    EXPECT_TRUE(n1.Hello(srun.key(), "n1", &challenge));
    // Each connection is challenged anew: a HELLO seen on one proves nothing on the next.
    EXPECT_NE(challenge, first_challenge);
    v1::StepIo io;
    EXPECT_EQ(n1.Next(&io), v1::STEP_IO_STDIN);  // no stdin: closed at once
    EXPECT_TRUE(io.eof());
    n1.Output(0, "hello ");
    n1.Output(0, "world\n");
    n1.Output(5, "not mine\n");  // a rank n1 does not run: ignored
    n1.Exit(0, 3 << 8);
    n1.Exit(1, 0);
  });
  srun.Serve({{"n1", {0, 1}}}, -1, -1, std::chrono::seconds(10), Recording(&seen));
  agents.join();
  EXPECT_EQ(seen.output[0], "hello world\n");
  EXPECT_FALSE(seen.output.contains(5));
  ASSERT_EQ(seen.ends.size(), 2u);
  EXPECT_EQ(seen.ends[0].wait_status, 3 << 8);
  EXPECT_EQ(seen.ends[0].node, "n1");
  EXPECT_EQ(seen.ends[1].wait_status, 0);
}

TEST(StepIoServerTest, NodesThatNeverCameOrWereLostEndTheirTasksWithAnError) {
  Result<std::unique_ptr<StepIoServer>> server = StepIoServer::Listen("127.0.0.1");
  ASSERT_TRUE(server.ok());
  StepIoServer& srun = **server;
  Seen seen;
  std::thread agents([&] {
    FakeAgent n1(srun.port());
    EXPECT_TRUE(n1.Hello(srun.key(), "n1"));
    n1.Close();  // lost before its task ended
  });
  srun.Serve({{"n1", {0}}, {"n2", {1}}}, -1, -1, std::chrono::milliseconds(500), Recording(&seen));
  agents.join();
  ASSERT_EQ(seen.ends.size(), 2u);
  EXPECT_EQ(seen.ends[0].error, "lost the connection to its node");
  EXPECT_EQ(seen.ends[1].error, "did not start: its node did not answer");
  EXPECT_EQ(seen.ends[1].wait_status, 1 << 8);
}

TEST(StepIoServerTest, SignalsReachEveryConnectedAgent) {
  Result<std::unique_ptr<StepIoServer>> server = StepIoServer::Listen("127.0.0.1");
  ASSERT_TRUE(server.ok());
  StepIoServer& srun = **server;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  Seen seen;
  StepIoHooks hooks = Recording(&seen);
  hooks.caught = [&](int sig) { srun.SendSignal(sig); };
  std::thread agents([&] {
    FakeAgent n1(srun.port());
    EXPECT_TRUE(n1.Hello(srun.key(), "n1"));
    v1::StepIo io;
    EXPECT_EQ(n1.Next(&io), v1::STEP_IO_STDIN);
    const unsigned char sig = SIGUSR1;
    EXPECT_EQ(write(pipe_fds[1], &sig, 1), 1);  // srun caught SIGUSR1
    EXPECT_EQ(n1.Next(&io), v1::STEP_IO_SIGNAL);
    EXPECT_EQ(io.signal(), SIGUSR1);
    n1.Exit(0, SIGUSR1);
  });
  srun.Serve({{"n1", {0}}}, -1, pipe_fds[0], std::chrono::seconds(10), hooks);
  agents.join();
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_EQ(seen.ends[0].wait_status, SIGUSR1);
}

}  // namespace
}  // namespace gantry::slurm
