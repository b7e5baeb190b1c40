#include "wire/frame.h"

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <span>

namespace gantry::wire {
namespace {

constexpr char kTimedOut[] = "timed out";

// Reads what is there, at most `size` bytes (at least one): 0 when the peer closed.
Result<size_t> ReadSome(int fd, char* data, size_t size) {
  for (;;) {
    const ssize_t n = read(fd, data, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Unavailable(kTimedOut);
    return Unavailable(std::string("read: ") + std::strerror(errno));
  }
}

constexpr char kTornFrame[] = "connection closed in the middle of a frame";

using SteadyTime = std::chrono::steady_clock::time_point;

// Waits until `fd` is readable or `deadline` passes (Unavailable "timed out"). No deadline
// (time_point::max) returns at once: the read then waits as the descriptor's timeout says.
Status AwaitReadable(int fd, SteadyTime deadline) {
  if (deadline == SteadyTime::max()) return Status::Ok();
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Unavailable(kTimedOut);
    pollfd p{fd, POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
    if (n > 0) return Status::Ok();
    if (n < 0 && errno != EINTR) return Unavailable(std::string("poll: ") + std::strerror(errno));
  }
}

// Reads exactly `size` bytes. `at_start` tells a clean close before any byte from a torn frame.
Status ReadAll(int fd, char* data, size_t size, bool at_start,
               SteadyTime deadline = SteadyTime::max()) {
  for (size_t done = 0; done < size;) {
    GANTRY_RETURN_IF_ERROR(AwaitReadable(fd, deadline));
    GANTRY_ASSIGN_OR_RETURN(const size_t n, ReadSome(fd, data + done, size - done));
    if (n == 0) {
      return at_start && done == 0 ? OutOfRange("connection closed") : Unavailable(kTornFrame);
    }
    done += n;
  }
  return Status::Ok();
}

Status WriteAll(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    // MSG_NOSIGNAL: a peer gone is an error here, never a SIGPIPE that kills the caller.
    ssize_t n = send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, data + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Unavailable(kTimedOut);
    return Unavailable(std::string("write: ") + std::strerror(n < 0 ? errno : EIO));
  }
  return Status::Ok();
}

// Writes every byte of `parts` (writev in batches of at most IOV_MAX slices).
Status WriteAllSlices(int fd, std::span<const std::string_view> parts) {
  std::vector<iovec> vec;
  vec.reserve(std::min<size_t>(parts.size(), IOV_MAX));
  size_t next = 0;    // the first part not yet in a batch
  size_t offset = 0;  // bytes of parts[next] already written
  while (next < parts.size()) {
    vec.clear();
    for (size_t i = next; i < parts.size() && vec.size() < IOV_MAX; ++i) {
      const size_t skip = i == next ? offset : 0;
      if (parts[i].size() == skip) continue;
      vec.push_back(iovec{const_cast<char*>(parts[i].data() + skip), parts[i].size() - skip});
    }
    if (vec.empty()) break;
    msghdr message{};
    message.msg_iov = vec.data();
    message.msg_iovlen = vec.size();
    ssize_t n = sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = writev(fd, vec.data(), static_cast<int>(vec.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Unavailable(kTimedOut);
    if (n <= 0) return Unavailable(std::string("write: ") + std::strerror(n < 0 ? errno : EIO));
    // Past the written bytes: whole parts, then into the next one.
    auto left = static_cast<size_t>(n);
    while (next < parts.size() && left >= parts[next].size() - offset) {
      left -= parts[next].size() - offset;
      offset = 0;
      ++next;
    }
    offset += left;
  }
  return Status::Ok();
}

// Reads a frame's header: the tag and the announced length (the body's + 1).
Result<std::pair<uint8_t, uint32_t>> ReadHead(int fd, uint32_t max_bytes) {
  unsigned char head[5];
  GANTRY_RETURN_IF_ERROR(ReadAll(fd, reinterpret_cast<char*>(head), sizeof(head), true));
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length |= static_cast<uint32_t>(head[i]) << (8 * i);
  if (length == 0 || length > max_bytes) {
    return InvalidArgument("frame length " + std::to_string(length) + " is outside 1.." +
                           std::to_string(max_bytes));
  }
  return std::pair(head[4], length);
}

}  // namespace

void AdviseHugePages(void* data, size_t size) {
  constexpr uintptr_t kHuge = 2u << 20;
  if (size < 2 * kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

std::optional<Method> MethodFromTag(uint8_t tag) {
  switch (tag) {
#define GANTRY_METHOD_CASE(Name, Tag, Req, Rep, Type) \
  case Tag:                                           \
    return Method::k##Name;
    GANTRY_CONTROLLER_METHODS(GANTRY_METHOD_CASE)
#undef GANTRY_METHOD_CASE
    case static_cast<uint8_t>(Method::kAsUser):
      return Method::kAsUser;
  }
  return std::nullopt;
}

Status WriteFrame(int fd, uint8_t tag, std::string_view body) {
  if (body.size() >= UINT32_MAX) {
    return InvalidArgument("a frame holds at most 4 GiB; this one has " +
                           std::to_string(body.size()) + " bytes");
  }
  const auto length = static_cast<uint32_t>(body.size() + 1);
  // The header and a small body go out in one write (one segment, one wake-up on the far end).
  std::string head(5, '\0');
  for (int i = 0; i < 4; ++i) head[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  head[4] = static_cast<char>(tag);
  if (body.size() <= 64 * 1024) {
    head.append(body);
    return WriteAll(fd, head.data(), head.size());
  }
  GANTRY_RETURN_IF_ERROR(WriteAll(fd, head.data(), head.size()));
  return WriteAll(fd, body.data(), body.size());
}

Slices Slices::Of(std::string bytes) {
  Slices out;
  out.Append(std::move(bytes));
  return out;
}

void Slices::Append(std::string bytes) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  parts.push_back(*owned);
  owners.push_back(std::move(owned));
}

size_t Slices::size() const {
  size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  return n;
}

std::string Slices::Flatten() const {
  std::string out;
  out.reserve(size());
  for (std::string_view p : parts) out.append(p);
  return out;
}

Status WriteFrame(int fd, uint8_t tag, const Slices& body) {
  if (body.parts.size() <= 1) {
    return WriteFrame(fd, tag, body.parts.empty() ? std::string_view() : body.parts[0]);
  }
  const size_t size = body.size();
  if (size >= UINT32_MAX) {
    return InvalidArgument("a frame holds at most 4 GiB; this one has " + std::to_string(size) +
                           " bytes");
  }
  const auto length = static_cast<uint32_t>(size + 1);
  char head[5];
  for (int i = 0; i < 4; ++i) head[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  head[4] = static_cast<char>(tag);
  std::vector<std::string_view> parts;
  parts.reserve(body.parts.size() + 1);
  parts.emplace_back(head, sizeof(head));
  parts.insert(parts.end(), body.parts.begin(), body.parts.end());
  return WriteAllSlices(fd, parts);
}

Result<Frame> ReadFrame(int fd, uint32_t max_bytes) {
  return ReadFrame(fd, max_bytes, std::chrono::milliseconds::max());
}

Result<Frame> ReadFrame(int fd, uint32_t max_bytes, std::chrono::milliseconds whole_frame) {
  GANTRY_ASSIGN_OR_RETURN(auto head, ReadHead(fd, max_bytes));
  const SteadyTime deadline = whole_frame == std::chrono::milliseconds::max()
                                  ? SteadyTime::max()
                                  : std::chrono::steady_clock::now() + whole_frame;
  const size_t size = head.second - 1;
  Frame frame;
  frame.tag = head.first;
  // The buffer grows as bytes arrive (doubling from 64 KiB): announcing a large frame and
  // sending little costs the sender's memory, not the reader's.
  constexpr size_t kFirstBytes = 64 << 10;
  for (size_t done = 0; done < size;) {
    if (done == frame.body.size()) {
      const size_t next = std::min(size, std::max(kFirstBytes, 2 * frame.body.size()));
      frame.body.reserve(next);
      if (next == size) AdviseHugePages(frame.body.data(), size);  // before first touched
      frame.body.resize(next);
    }
    const size_t chunk = frame.body.size() - done;
    GANTRY_RETURN_IF_ERROR(ReadAll(fd, frame.body.data() + done, chunk, false, deadline));
    done += chunk;
  }
  return frame;
}

Result<uint8_t> ReadFrameInPieces(
    int fd, uint32_t max_bytes, size_t piece_bytes,
    const std::function<Status(uint8_t tag, std::string_view piece)>& on_piece) {
  GANTRY_ASSIGN_OR_RETURN(auto head, ReadHead(fd, max_bytes));
  const auto [tag, length] = head;
  std::string buffer(std::min<size_t>(piece_bytes, length - 1), '\0');
  for (size_t left = length - 1; left > 0;) {
    GANTRY_ASSIGN_OR_RETURN(const size_t n,
                            ReadSome(fd, buffer.data(), std::min(left, buffer.size())));
    if (n == 0) return Unavailable(kTornFrame);
    left -= n;
    GANTRY_RETURN_IF_ERROR(on_piece(tag, std::string_view(buffer.data(), n)));
  }
  return tag;
}

bool IsTimeout(const Status& status) {
  return status.code() == StatusCode::kUnavailable && status.message() == kTimedOut;
}

Frame ReplyFrame(const Status& status, std::string reply) {
  if (status.ok()) return Frame{0, std::move(reply)};
  return Frame{static_cast<uint8_t>(status.code()), status.message()};
}

StatusCode ReplyCode(uint8_t tag) {
  if (tag > static_cast<uint8_t>(StatusCode::kUnauthenticated)) return StatusCode::kInternal;
  return static_cast<StatusCode>(tag);
}

}  // namespace gantry::wire
