#include "wire/frame_server.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace gantry::wire {
namespace {

class FrameServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gantry-frame-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    Result<std::unique_ptr<FrameServer>> server = FrameServer::Listen(
        dir_ + "/s.sock", [](const PeerIdentity& who, Method method, std::string_view body) {
          if (body == "fail") return Result<Slices>(NotFound("Invalid job id specified"));
          return Result<Slices>(Slices::Of(std::to_string(who.uid) + "/" +
                                           std::to_string(static_cast<int>(method)) + "/" +
                                           std::string(body)));
        });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    server_->Start();
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  int Connect() {
    Result<int> fd = ConnectUnix(dir_ + "/s.sock");
    EXPECT_TRUE(fd.ok()) << fd.status().ToString();
    return fd.ok() ? *fd : -1;
  }

  std::string dir_;
  std::unique_ptr<FrameServer> server_;
};

TEST_F(FrameServerTest, AnswersCallsInOrderWithThePeersUid) {
  const int fd = Connect();
  ASSERT_TRUE(WriteFrame(fd, static_cast<uint8_t>(Method::kGetJobs), "a").ok());
  ASSERT_TRUE(WriteFrame(fd, static_cast<uint8_t>(Method::kPing), "b").ok());
  Result<Frame> first = ReadFrame(fd, kMaxReplyBytes);
  Result<Frame> second = ReadFrame(fd, kMaxReplyBytes);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->tag, 0);
  EXPECT_EQ(first->body, std::to_string(getuid()) + "/5/a");
  EXPECT_EQ(second->body, std::to_string(getuid()) + "/1/b");
  close(fd);
}

TEST_F(FrameServerTest, ErrorsAndUnknownMethodsAreAnsweredNotDropped) {
  const int fd = Connect();
  ASSERT_TRUE(WriteFrame(fd, static_cast<uint8_t>(Method::kSignalJob), "fail").ok());
  Result<Frame> failed = ReadFrame(fd, kMaxReplyBytes);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(ReplyCode(failed->tag), StatusCode::kNotFound);
  EXPECT_EQ(failed->body, "Invalid job id specified");
  ASSERT_TRUE(WriteFrame(fd, 200, "x").ok());
  Result<Frame> unknown = ReadFrame(fd, kMaxReplyBytes);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(ReplyCode(unknown->tag), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown->body, "unknown method 200");
  close(fd);
}

TEST_F(FrameServerTest, GarbageClosesThatConnectionOnly) {
  const int bad = Connect();
  const char garbage[] = {0, 0, 0, 0, 9, 9, 9};
  ASSERT_EQ(write(bad, garbage, sizeof(garbage)), static_cast<ssize_t>(sizeof(garbage)));
  // Closed (or reset: the server leaves the rest of the garbage unread) without a reply.
  EXPECT_FALSE(ReadFrame(bad, kMaxReplyBytes).ok());
  close(bad);

  const int good = Connect();
  ASSERT_TRUE(WriteFrame(good, static_cast<uint8_t>(Method::kPing), "").ok());
  Result<Frame> reply = ReadFrame(good, kMaxReplyBytes);
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->tag, 0);
  close(good);
}

TEST_F(FrameServerTest, ThreadsServeOneConnectionAfterAnotherAndStopWakesTheIdleOnes) {
  const std::string path = dir_ + "/kept.sock";
  FrameServer::Options options;
  options.keep_idle_threads_seconds = 3600;  // Stop() must not wait for this
  Result<std::unique_ptr<FrameServer>> kept = FrameServer::Listen(
      path,
      [](const PeerIdentity&, Method, std::string_view body) {
        return Result<Slices>(Slices::Of(std::string(body)));
      },
      options);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  (*kept)->Start();
  auto call = [](int fd, const std::string& body) {
    EXPECT_TRUE(WriteFrame(fd, static_cast<uint8_t>(Method::kPing), body).ok());
    Result<Frame> reply = ReadFrame(fd, kMaxReplyBytes);
    return reply.ok() ? reply->body : reply.status().ToString();
  };
  // An idle connection holds its thread; the others are served all the same.
  const int idle = *ConnectUnix(path);
  EXPECT_EQ(call(idle, "first"), "first");
  for (int i = 0; i < 50; ++i) {
    const int fd = *ConnectUnix(path);
    EXPECT_EQ(call(fd, std::to_string(i)), std::to_string(i));
    close(fd);
  }
  (*kept)->Stop();
  EXPECT_FALSE(ReadFrame(idle, kMaxReplyBytes).ok());
  close(idle);
}

TEST_F(FrameServerTest, StopEndsIdleConnectionsAndRemovesTheSocket) {
  const int idle = Connect();
  server_->Stop();
  // Closed if it was accepted already, reset if it still waited in the backlog.
  EXPECT_FALSE(ReadFrame(idle, kMaxReplyBytes).ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/s.sock"));
  close(idle);
}

}  // namespace
}  // namespace gantry::wire
