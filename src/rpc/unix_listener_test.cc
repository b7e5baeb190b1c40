#include "rpc/unix_listener.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gantry/v1/controller.grpc.pb.h"

namespace gantry::rpc {
namespace {

// A Ping that answers with the identity the listener recorded for the calling connection.
class PingService final : public gantry::v1::Controller::Service {
 public:
  explicit PingService(const UnixListener** listener) : listener_(listener) {}
  grpc::Status Ping(grpc::ServerContext* context, const gantry::v1::PingRequest*,
                    gantry::v1::PingReply* reply) override {
    const std::optional<PeerIdentity> who = (*listener_)->Lookup(context->peer());
    if (!who) return {grpc::StatusCode::UNAUTHENTICATED, "unknown peer " + context->peer()};
    reply->set_caller_uid(who->uid);
    reply->set_caller_gid(who->gid);
    return grpc::Status::OK;
  }

 private:
  const UnixListener** listener_;
};

class UnixListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-rpc-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    ASSERT_EQ(chmod(pattern, 0755), 0);  // other users must reach the socket
    grpc::ServerBuilder builder;
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    if (listener_) listener_->Stop();
    if (server_) server_->Shutdown();
    std::filesystem::remove_all(dir_);
  }

  void StartListener(UnixListener::AcceptHook hook = nullptr) {
    Result<std::unique_ptr<UnixListener>> l = UnixListener::Listen(dir_ + "/ctld.sock");
    ASSERT_TRUE(l.ok()) << l.status().message();
    listener_ = std::move(l).value();
    raw_ = listener_.get();
    listener_->Start(server_.get(), std::move(hook));
  }

  std::string dir_;
  const UnixListener* raw_ = nullptr;
  PingService service_{&raw_};
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<UnixListener> listener_;
};

TEST_F(UnixListenerTest, HandlersSeeTheCallersKernelCredentials) {
  StartListener();
  auto channel =
      grpc::CreateChannel("unix:" + listener_->path(), grpc::InsecureChannelCredentials());
  auto stub = gantry::v1::Controller::NewStub(channel);
  for (int i = 0; i < 3; ++i) {  // several calls over one connection
    grpc::ClientContext context;
    gantry::v1::PingReply reply;
    const grpc::Status status = stub->Ping(&context, gantry::v1::PingRequest(), &reply);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(reply.caller_uid(), getuid());
    EXPECT_EQ(reply.caller_gid(), getgid());
  }
}

TEST_F(UnixListenerTest, RecordsAnotherUsersIdentity) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to connect as another user";
  std::mutex mu;
  std::condition_variable cv;
  std::optional<PeerIdentity> seen;
  StartListener([&](int, const PeerIdentity& who) {
    std::lock_guard<std::mutex> lock(mu);
    seen = who;
    cv.notify_all();
  });
  const std::string path = listener_->path();
  const pid_t child = fork();
  if (child == 0) {  // only async-signal-safe calls here
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) _exit(3);
    char byte = 0;
    (void)read(fd, &byte, 1);  // hold the connection until the server gives up on it
    _exit(0);
  }
  ASSERT_GT(child, 0);
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return seen.has_value(); }));
  }
  EXPECT_EQ(seen->uid, 65534u);
  EXPECT_EQ(seen->gid, 65534u);
  EXPECT_EQ(seen->pid, child);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
}

TEST_F(UnixListenerTest, LookupIgnoresPeersItDidNotAccept) {
  StartListener();
  EXPECT_FALSE(listener_->Lookup("unix:/tmp/x"));
  EXPECT_FALSE(listener_->Lookup("fd:"));
  EXPECT_FALSE(listener_->Lookup("fd:12x"));
  EXPECT_FALSE(listener_->Lookup("fd:99999"));
  EXPECT_FALSE(listener_->Lookup("ipv4:127.0.0.1:5"));
}

TEST_F(UnixListenerTest, ReplacesAStaleSocketButNotOtherFiles) {
  StartListener();
  listener_->Stop();
  listener_.reset();
  // A socket file left behind by a crashed controller is replaced.
  {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string stale = dir_ + "/stale.sock";
    std::memcpy(addr.sun_path, stale.c_str(), stale.size() + 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    close(fd);
    EXPECT_TRUE(UnixListener::Listen(stale).ok());
  }
  const std::string regular = dir_ + "/file";
  std::ofstream(regular) << "data";
  Result<std::unique_ptr<UnixListener>> refused = UnixListener::Listen(regular);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            regular + " exists and is not a socket; refusing to replace it");
  EXPECT_FALSE(UnixListener::Listen(dir_ + "/" + std::string(200, 'x')).ok());
}

}  // namespace
}  // namespace gantry::rpc
