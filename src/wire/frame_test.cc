#include "wire/frame.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>
#include <thread>

namespace gantry::wire {
namespace {

class FrameTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    if (fds_[0] >= 0) close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int fds_[2] = {-1, -1};
};

TEST_F(FrameTest, RoundTripsTagAndBody) {
  ASSERT_TRUE(WriteFrame(fds_[0], 2, "hello").ok());
  ASSERT_TRUE(WriteFrame(fds_[0], 7, "").ok());
  Result<Frame> a = ReadFrame(fds_[1], kMaxRequestBytes);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->tag, 2);
  EXPECT_EQ(a->body, "hello");
  Result<Frame> b = ReadFrame(fds_[1], kMaxRequestBytes);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->tag, 7);
  EXPECT_EQ(b->body, "");
}

TEST_F(FrameTest, LargeBodiesArriveWhole) {
  const std::string big(3 << 20, 'x');
  std::string got;
  std::thread reader([&] {
    Result<Frame> f = ReadFrame(fds_[1], kMaxRequestBytes);
    if (f.ok()) got = f->body;
  });
  ASSERT_TRUE(WriteFrame(fds_[0], 1, big).ok());
  reader.join();
  EXPECT_EQ(got, big);
}

TEST_F(FrameTest, SlicesGoOutAsOneBodyInOrder) {
  // More slices than one writev takes, empty ones among them, and large ones that the socket
  // takes in several short writes.
  Slices body;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    std::string part = i % 7 == 0 ? "" : std::to_string(i) + ",";
    if (i % 1000 == 1) part = std::string(300 << 10, static_cast<char>('a' + i % 26));
    expected += part;
    body.Append(std::move(part));
  }
  EXPECT_EQ(body.size(), expected.size());
  EXPECT_EQ(body.Flatten(), expected);
  std::string got;
  std::thread reader([&] {
    Result<Frame> f = ReadFrame(fds_[1], kMaxReplyBytes);
    if (f.ok()) got = f->body;
  });
  ASSERT_TRUE(WriteFrame(fds_[0], 0, body).ok());
  reader.join();
  EXPECT_EQ(got, expected);

  ASSERT_TRUE(WriteFrame(fds_[0], 3, Slices()).ok());
  Result<Frame> empty = ReadFrame(fds_[1], kMaxReplyBytes);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->tag, 3);
  EXPECT_EQ(empty->body, "");
}

TEST_F(FrameTest, CleanCloseIsOutOfRangeAndTornFrameIsUnavailable) {
  close(fds_[0]);
  fds_[0] = -1;
  EXPECT_EQ(ReadFrame(fds_[1], 100).status().code(), StatusCode::kOutOfRange);

  int torn[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, torn), 0);
  const char partial[] = {10, 0, 0, 0, 1, 'a'};  // announces 10 bytes, sends 2
  ASSERT_EQ(write(torn[0], partial, sizeof(partial)), static_cast<ssize_t>(sizeof(partial)));
  close(torn[0]);
  Result<Frame> f = ReadFrame(torn[1], 100);
  EXPECT_EQ(f.status().code(), StatusCode::kUnavailable);
  close(torn[1]);
}

TEST_F(FrameTest, LengthOutsideTheLimitIsRefusedWithoutReadingIt) {
  const char zero[] = {0, 0, 0, 0, 1};
  ASSERT_EQ(write(fds_[0], zero, sizeof(zero)), static_cast<ssize_t>(sizeof(zero)));
  Result<Frame> f = ReadFrame(fds_[1], 100);
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f.status().message(), "frame length 0 is outside 1..100");

  ASSERT_TRUE(WriteFrame(fds_[0], 1, std::string(200, 'y')).ok());
  f = ReadFrame(fds_[1], 100);
  EXPECT_EQ(f.status().message(), "frame length 201 is outside 1..100");
}

// Every row of the method table is a tag the socket reads back, and so is the AsUser envelope;
// nothing else is.
TEST(FrameCodesTest, EveryMethodOfTheTableIsATagAndNoOtherTagIs) {
  std::set<int> tags = {static_cast<int>(Method::kAsUser)};
  EXPECT_EQ(MethodFromTag(static_cast<uint8_t>(Method::kAsUser)), Method::kAsUser);
#define GANTRY_CHECK_TAG(Name, Tag, Req, Rep, Type)        \
  EXPECT_EQ(MethodFromTag(Tag), Method::k##Name) << #Name; \
  EXPECT_TRUE(tags.insert(Tag).second) << #Name << ": tag " << (Tag) << " is taken";
  GANTRY_CONTROLLER_METHODS(GANTRY_CHECK_TAG)
#undef GANTRY_CHECK_TAG
  for (int tag = 0; tag < 256; ++tag) {
    if (!tags.contains(tag)) {
      EXPECT_EQ(MethodFromTag(tag), std::nullopt) << tag;
    }
  }
}

TEST(FrameCodesTest, MethodsAndReplyCodes) {
  EXPECT_EQ(MethodFromTag(1), Method::kPing);
  EXPECT_EQ(MethodFromTag(8), Method::kGetConfig);
  EXPECT_EQ(MethodFromTag(0), std::nullopt);
  EXPECT_EQ(MethodFromTag(9), Method::kJobStep);
  EXPECT_EQ(MethodFromTag(10), Method::kUpdatePartition);
  EXPECT_EQ(MethodFromTag(12), Method::kUpdateAccounting);
  EXPECT_EQ(MethodFromTag(13), Method::kGetPriorities);
  EXPECT_EQ(MethodFromTag(14), Method::kGetStats);
  EXPECT_EQ(MethodFromTag(15), Method::kGetJobScript);
  EXPECT_EQ(MethodFromTag(16), Method::kIssueToken);
  EXPECT_EQ(MethodFromTag(17), Method::kTakeover);
  EXPECT_EQ(MethodFromTag(18), std::nullopt);
  EXPECT_EQ(MethodFromTag(100), Method::kAsUser);
  const Frame ok = ReplyFrame(Status::Ok(), "reply");
  EXPECT_EQ(ok.tag, 0);
  EXPECT_EQ(ok.body, "reply");
  const Frame denied = ReplyFrame(PermissionDenied("Access/permission denied"), "ignored");
  EXPECT_EQ(ReplyCode(denied.tag), StatusCode::kPermissionDenied);
  EXPECT_EQ(denied.body, "Access/permission denied");
  EXPECT_EQ(ReplyCode(250), StatusCode::kInternal);
}

TEST_F(FrameTest, InPiecesHandsOutTheBodyInOrderWithItsTag) {
  std::string big(3 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + i % 26);
  std::thread writer([&] { EXPECT_TRUE(WriteFrame(fds_[0], 0, big).ok()); });
  std::string got;
  size_t pieces = 0;
  Result<uint8_t> tag =
      ReadFrameInPieces(fds_[1], kMaxReplyBytes, 1 << 20, [&](uint8_t t, std::string_view piece) {
        EXPECT_EQ(t, 0);
        EXPECT_LE(piece.size(), size_t{1} << 20);
        got.append(piece);
        ++pieces;
        return Status::Ok();
      });
  writer.join();
  ASSERT_TRUE(tag.ok()) << tag.status().ToString();
  EXPECT_EQ(*tag, 0);
  EXPECT_EQ(got, big);
  EXPECT_GE(pieces, 3u);
}

TEST_F(FrameTest, InPiecesReportsTheTagOfAnEmptyBodyAndStopsOnTheCallersError) {
  ASSERT_TRUE(WriteFrame(fds_[0], 5, "").ok());
  Result<uint8_t> empty = ReadFrameInPieces(fds_[1], kMaxReplyBytes, 64, [](uint8_t, auto) {
    ADD_FAILURE() << "an empty body has no pieces";
    return Status::Ok();
  });
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, 5);

  ASSERT_TRUE(WriteFrame(fds_[0], 0, "abcdef").ok());
  Result<uint8_t> stopped = ReadFrameInPieces(
      fds_[1], kMaxReplyBytes, 2, [](uint8_t, auto) { return InvalidArgument("enough"); });
  EXPECT_EQ(stopped.status().message(), "enough");
}

}  // namespace
}  // namespace gantry::wire
