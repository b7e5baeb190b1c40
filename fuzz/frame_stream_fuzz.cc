// Fuzzes the local command protocol's framing (wire/frame.h) as the command socket reads it: the
// input is a byte stream arriving on a connection; ReadFrame takes frames from it until it
// fails. Every frame it returns has a body within kMaxRequestBytes, and it never allocates
// more than what arrived (twice that at most, plus 64 KiB): an announced length costs nothing.
// Failures are Status values (a torn frame, a bad length, the end); anything else traps.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "base/status.h"
#include "wire/frame.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fds[2];
  Check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  std::thread writer([&] {
    for (size_t done = 0; done < size;) {
      const ssize_t n = write(fds[1], data + done, size - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    shutdown(fds[1], SHUT_WR);
  });
  size_t consumed = 0;
  for (;;) {
    gantry::Result<gantry::wire::Frame> frame = gantry::wire::ReadFrame(
        fds[0], gantry::wire::kMaxRequestBytes, std::chrono::milliseconds(2000));
    if (!frame.ok()) {
      Check(!frame.status().message().empty());
      break;
    }
    consumed += 5 + frame->body.size();
    Check(consumed <= size);
    Check(frame->body.capacity() <= 2 * frame->body.size() + (64 << 10));
    (void)gantry::wire::MethodFromTag(frame->tag);
  }
  close(fds[0]);
  writer.join();
  close(fds[1]);
  return 0;
}
