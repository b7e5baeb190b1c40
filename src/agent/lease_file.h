// The agent's lease on disk, for the keepers of its jobs (keeper.h): until when the controller
// counts this node alive, and which agent holds it.
//
// The agent's ControllerLink renews its lease with every call the controller acknowledges
// (controller_link.h) and writes the new deadline here each time; a keeper whose agent has died
// reads it, and once the deadline has passed ends its job, as the agent would have (the
// controller runs the job elsewhere from then on). A restarted agent reads the deadline its
// predecessor left and keeps to it until its own first acknowledged call.
//
// The file is one fixed-size record, rewritten in place (pwrite at offset 0 of a file that
// already has its size): renewing needs no new disk block, so a full spool disk cannot stop it.
// The record carries a checksum: a read that raced a write is refused, not misread.
//
// Thread-safety: LeaseFile is not thread-safe (ControllerLink writes under its lock); the free
// functions share no state.
#ifndef GANTRY_AGENT_LEASE_FILE_H_
#define GANTRY_AGENT_LEASE_FILE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::agent {

struct LeaseRecord {
  // CLOCK_MONOTONIC milliseconds (the same on every process of the host) after which the
  // controller may count the node lost; 0 = no lease (never registered, or the controller's
  // SlurmdTimeout is 0).
  int64_t deadline_ms = 0;
  pid_t agent_pid = 0;             // the agent that holds it
  uint64_t agent_start_ticks = 0;  // and its /proc start time (proc::IsStillRunning)

  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

// The record's bytes (kLeaseRecordSize, one text line) and back; parsing refuses anything else,
// naming what is wrong (a torn read fails the checksum).
inline constexpr size_t kLeaseRecordSize = 64;
std::string FormatLeaseRecord(const LeaseRecord& record);
Result<LeaseRecord> ParseLeaseRecord(std::string_view bytes);

// Reads the record at `path`: NotFound when there is none, InvalidArgument when unreadable.
Result<LeaseRecord> ReadLeaseFile(const std::string& path);

// CLOCK_MONOTONIC now, in milliseconds.
int64_t MonotonicNowMs();

// The agent's side: the file, open for rewriting.
class LeaseFile {
 public:
  // Opens (creating with mode 0600) `path`. The record already there, if valid, is kept, so that
  // a restarted agent keeps its predecessor's deadline until it renews it.
  static Result<LeaseFile> Open(const std::string& path);
  LeaseFile(LeaseFile&& other) noexcept;
  LeaseFile& operator=(LeaseFile&& other) noexcept;
  LeaseFile(const LeaseFile&) = delete;
  LeaseFile& operator=(const LeaseFile&) = delete;
  ~LeaseFile();

  // What the file held when opened (deadline 0 when nothing valid was there).
  const LeaseRecord& inherited() const { return inherited_; }
  // Rewrites the record in place.
  Status Write(const LeaseRecord& record);

 private:
  LeaseFile(int fd, std::string path, LeaseRecord inherited)
      : fd_(fd), path_(std::move(path)), inherited_(inherited) {}
  int fd_ = -1;
  std::string path_;
  LeaseRecord inherited_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_LEASE_FILE_H_
