#include "agent/lease_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include "base/hash.h"

namespace gantry::agent {
namespace {

// 32 bits: enough to tell a torn record from a whole one.
uint32_t Checksum(std::string_view text) { return Fnv1a32(text); }

template <typename T>
bool ParseNumber(std::string_view text, T* out, int base = 10) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

std::string FormatLeaseRecord(const LeaseRecord& record) {
  std::string body = "lease " + std::to_string(record.deadline_ms) + " " +
                     std::to_string(record.agent_pid) + " " +
                     std::to_string(record.agent_start_ticks);
  char sum[16];
  std::snprintf(sum, sizeof(sum), " %08x", Checksum(body));
  body += sum;
  body.resize(kLeaseRecordSize - 1, ' ');
  body += '\n';
  return body;
}

Result<LeaseRecord> ParseLeaseRecord(std::string_view bytes) {
  if (bytes.size() != kLeaseRecordSize || bytes.back() != '\n') {
    return InvalidArgument("lease record: expected " + std::to_string(kLeaseRecordSize) +
                           " bytes ending in a newline, got " + std::to_string(bytes.size()));
  }
  std::string_view text = bytes.substr(0, bytes.size() - 1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  const size_t last = text.rfind(' ');
  if (text.substr(0, 6) != "lease " || last == std::string_view::npos) {
    return InvalidArgument("lease record: expected \"lease DEADLINE PID TICKS SUM\"");
  }
  const std::string_view body = text.substr(0, last);
  uint32_t sum = 0;
  if (!ParseNumber(text.substr(last + 1), &sum, 16) || sum != Checksum(body)) {
    return InvalidArgument("lease record: checksum mismatch (torn or damaged)");
  }
  LeaseRecord record;
  std::string_view fields = body.substr(6);
  const size_t a = fields.find(' ');
  const size_t b = a == std::string_view::npos ? a : fields.find(' ', a + 1);
  if (b == std::string_view::npos || !ParseNumber(fields.substr(0, a), &record.deadline_ms) ||
      !ParseNumber(fields.substr(a + 1, b - a - 1), &record.agent_pid) ||
      !ParseNumber(fields.substr(b + 1), &record.agent_start_ticks)) {
    return InvalidArgument("lease record: DEADLINE PID TICKS must be numbers");
  }
  return record;
}

Result<LeaseRecord> ReadLeaseFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound(path + ": no lease file");
    return InvalidArgument(path + ": " + std::strerror(errno));
  }
  char buffer[kLeaseRecordSize + 1];
  ssize_t n;
  do {
    n = pread(fd, buffer, sizeof(buffer), 0);
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  close(fd);
  if (n < 0) return InvalidArgument(path + ": " + std::strerror(err));
  Result<LeaseRecord> record = ParseLeaseRecord(std::string_view(buffer, static_cast<size_t>(n)));
  if (!record.ok()) return InvalidArgument(path + ": " + record.status().message());
  return record;
}

int64_t MonotonicNowMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
}

Result<LeaseFile> LeaseFile::Open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Unavailable(path + ": " + std::strerror(errno));
  LeaseRecord inherited;
  if (Result<LeaseRecord> there = ReadLeaseFile(path); there.ok()) inherited = *there;
  LeaseFile file(fd, path, inherited);
  // Give the file its size now, so that later rewrites need no new block.
  if (Status written = file.Write(inherited); !written.ok()) return written;
  return file;
}

LeaseFile::LeaseFile(LeaseFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      inherited_(other.inherited_) {}

LeaseFile& LeaseFile::operator=(LeaseFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    inherited_ = other.inherited_;
  }
  return *this;
}

LeaseFile::~LeaseFile() {
  if (fd_ >= 0) close(fd_);
}

Status LeaseFile::Write(const LeaseRecord& record) {
  const std::string bytes = FormatLeaseRecord(record);
  ssize_t n;
  do {
    n = pwrite(fd_, bytes.data(), bytes.size(), 0);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(bytes.size())) {
    return Unavailable(path_ + ": " + (n < 0 ? std::strerror(errno) : "short write"));
  }
  return Status::Ok();
}

}  // namespace gantry::agent
