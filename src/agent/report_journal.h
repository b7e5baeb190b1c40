// The agent's outbound reports, kept on disk until the controller acknowledges them, so that a
// report the agent queued is delivered even if the agent dies first (review M5: a BATCH_ENDED
// lost with the agent made the controller run the job again).
//
// One file per report, <dir>/<seq>.report (the serialized JobReport), written through a temporary
// file, fsync and rename; removed once acknowledged. Sequence numbers go on from the largest
// found at Open.
//
// Thread-compatible: ControllerLink calls it under its lock.
#ifndef GANTRY_AGENT_REPORT_JOURNAL_H_
#define GANTRY_AGENT_REPORT_JOURNAL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::agent {

class ReportJournal {
 public:
  // Makes `dir` (0700) when missing. Unavailable naming the path.
  static Result<ReportJournal> Open(const std::string& dir);

  // Writes `report` durably; returns its sequence number.
  Result<uint64_t> Append(const gantry::v1::JobReport& report);
  // Forgets an acknowledged report (a missing file is fine).
  void Remove(uint64_t seq);
  // Every report kept, oldest first. Unreadable files are named in *problems and removed.
  std::vector<std::pair<uint64_t, gantry::v1::JobReport>> Load(std::vector<std::string>* problems);

  const std::string& dir() const { return dir_; }

 private:
  ReportJournal(std::string dir, uint64_t next) : dir_(std::move(dir)), next_(next) {}
  std::string PathOf(uint64_t seq) const;

  std::string dir_;
  uint64_t next_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_REPORT_JOURNAL_H_
