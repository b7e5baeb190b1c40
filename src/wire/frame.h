// The local command protocol: how the Slurm commands call gantryd over its command socket without
// gRPC. A short-lived command pays several milliseconds just to start gRPC; this costs none.
//
// A connection carries calls one after another; each call is one request frame answered by one
// reply frame:
//   request: u32 length (little endian) | u8 method | length-1 bytes: the request message
//   reply:   u32 length (little endian) | u8 code   | length-1 bytes: the reply message when code
//            is 0, else the error text
// `method` numbers the gantry.v1.Controller RPCs (Method); messages are those RPCs' protobuf
// messages, serialized; `code` is a gantry StatusCode. The caller is whoever the kernel says is on
// the other end of the socket (SO_PEERCRED), exactly as on the controller's gRPC unix socket.
//
// Thread-compatible: functions work on the descriptor they are given.
#ifndef GANTRY_WIRE_FRAME_H_
#define GANTRY_WIRE_FRAME_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "wire/methods.h"

namespace gantry::wire {

// The command socket's tag of each controller method (wire/methods.h).
enum class Method : uint8_t {
#define GANTRY_METHOD_TAG(Name, Tag, Req, Rep, Type) k##Name = (Tag),
  GANTRY_CONTROLLER_METHODS(GANTRY_METHOD_TAG)
#undef GANTRY_METHOD_TAG
  // The command socket's envelope for a call on behalf of a token's holder (v1::AsUserRequest):
  // not a gRPC method, and never nested.
  kAsUser = 100,
};

// Asks the kernel to back the 2 MiB-aligned part of [data, data+size) with transparent huge
// pages (a no-op for small buffers or where THP is off). Call before the memory is first
// touched: a large reply then costs a few page faults instead of thousands.
void AdviseHugePages(void* data, size_t size);

// The Method a request's tag byte names, if any.
std::optional<Method> MethodFromTag(uint8_t tag);

// Requests may be this large (a batch script with its environment); replies are not limited
// (squeue of a 100k-job queue is ~12 MB).
inline constexpr uint32_t kMaxRequestBytes = 64u << 20;
inline constexpr uint32_t kMaxReplyBytes = UINT32_MAX;

struct Frame {
  uint8_t tag = 0;  // method (request) or StatusCode (reply)
  std::string body;
};

// A frame body given as slices of memory that go out one after another: a large reply is
// written without first being copied into one buffer. `owners` keep what the slices point into
// alive until the frame is written (slices may also point into memory the caller keeps).
struct Slices {
  std::vector<std::string_view> parts;
  std::vector<std::shared_ptr<const void>> owners;

  // A body of one slice that owns `bytes`.
  static Slices Of(std::string bytes);
  // Adds `bytes` as the next slice, owned by the body.
  void Append(std::string bytes);
  size_t size() const;
  // The body in one string.
  std::string Flatten() const;
};

// Writes one frame, retrying short writes and EINTR. Unavailable with strerror on failure;
// InvalidArgument when the body cannot be framed (over 4 GiB).
Status WriteFrame(int fd, uint8_t tag, std::string_view body);
Status WriteFrame(int fd, uint8_t tag, const Slices& body);

// Reads one frame. Errors: OutOfRange "connection closed" at a clean end before a frame;
// Unavailable "timed out" when the descriptor's receive timeout (SO_RCVTIMEO) expired, or the
// read error; InvalidArgument when the announced length is 0 or over `max_bytes` (nothing more
// is read: the connection is unusable after that).
// The body's buffer grows as its bytes arrive, so an announced length costs nothing until sent.
Result<Frame> ReadFrame(int fd, uint32_t max_bytes);
// The same, and once the header is in, the rest must arrive within `whole_frame` (Unavailable
// "timed out" otherwise): a peer that trickles a frame keeps no server thread for long.
Result<Frame> ReadFrame(int fd, uint32_t max_bytes, std::chrono::milliseconds whole_frame);

// Reads one frame like ReadFrame, but hands its body out in pieces as they arrive (each at most
// `piece_bytes`, reusing one buffer) instead of collecting it: a caller that consumes a large
// reply as it comes keeps little of it in memory and works while the rest is still on the way.
// `on_piece` gets the frame's tag with every piece; an error it returns ends the read (the
// connection is unusable after that). Returns the tag (also for an empty body). Errors as
// ReadFrame's.
Result<uint8_t> ReadFrameInPieces(
    int fd, uint32_t max_bytes, size_t piece_bytes,
    const std::function<Status(uint8_t tag, std::string_view piece)>& on_piece);

// True when `status` is ReadFrame's timeout.
bool IsTimeout(const Status& status);

// The reply frame for a handler's outcome: code 0 and the reply, or the code and message.
Frame ReplyFrame(const Status& status, std::string reply);

// The StatusCode a reply frame's tag names (kInternal for an unknown one).
StatusCode ReplyCode(uint8_t tag);

}  // namespace gantry::wire

#endif  // GANTRY_WIRE_FRAME_H_
