// Reads a GetJobsReply's wire form piece by piece, handing out each job as soon as its record
// is in, so that a listing of 100k jobs never holds the whole reply or one message per job.
//
// The reply's head (`now` and `jobs_at_most`) goes to `start` once, before the first job (at
// Finish when there is none). gantryd writes the head before the jobs on the command socket;
// where `now` comes last (a reply serialized the usual way, e.g. over gRPC) the records wait in
// the buffer until it is found, and `jobs_at_most` may then be missed (0). Unknown fields are
// skipped. Each job is decoded by a RecordDecoder: a job handed to the visitor is gone when it
// returns. A listing the controller made (GetJobsRequest.squeue) comes as lines instead, each
// piece handed to `lines` as it is in, after the head.
// Thread-compatible.
#ifndef GANTRY_SLURM_VIEW_JOBS_REPLY_READER_H_
#define GANTRY_SLURM_VIEW_JOBS_REPLY_READER_H_

#include <google/protobuf/arena.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/job.pb.h"

namespace gantry::slurm {

struct JobsReplyHead {
  UnixTime now = 0;           // 0 when the reply has none
  uint32_t jobs_at_most = 0;  // 0 when not given
  uint32_t shards = 0;        // the parts the controller split the listing into; 0 = none
};

struct JobsReplyVisitor {
  std::function<void(const JobsReplyHead& head)> start;  // may be empty
  std::function<Status(const v1::Job& job)> job;
  // A listing's lines (GetJobsReply.lines), each piece as it comes; may be empty when the
  // request asked for jobs (then lines are an error).
  std::function<Status(std::string_view lines)> lines;
};

// Decodes job records (v1::Job's wire form) into memory it reuses: one message for slim
// records (model::ClearSlimJob, model::MergeSlimRecord; a record with other fields goes through
// protobuf's parser), else an arena: much cheaper than a new message per record. A decoded job
// is gone at the next Decode. Its request is always there (empty when the record has none).
class RecordDecoder {
 public:
  explicit RecordDecoder(bool slim) : slim_(slim) {}
  // Errors: InvalidArgument for bytes that are no record.
  Result<const v1::Job*> Decode(std::string_view bytes);

 private:
  static constexpr size_t kArenaBytes = size_t{1} << 20;  // the arena's first block
  static google::protobuf::ArenaOptions ArenaOn(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kArenaBytes;
    return options;
  }

  std::unique_ptr<char[]> arena_block_{new char[kArenaBytes]};
  google::protobuf::Arena arena_{ArenaOn(arena_block_.get())};
  bool slim_;
  v1::Job reused_;          // with slim_: every record's message
  v1::Job* job_ = nullptr;  // the record being handled: reused_ or on arena_
};

class JobsReplyReader {
 public:
  // With `slim`: the listing asked for slim records (model/job_brief.h); see RecordDecoder.
  explicit JobsReplyReader(JobsReplyVisitor visitor, bool slim = false)
      : visitor_(std::move(visitor)), decoder_(slim) {}

  // The next piece of the reply. Errors: InvalidArgument for bytes that are no GetJobsReply;
  // the visitor's error.
  Status Feed(std::string_view piece);
  // After the last piece. InvalidArgument when the reply ends inside a field.
  Result<JobsReplyHead> Finish();

 private:
  // Handles the complete fields at the start of `data`; returns how many bytes they took. With
  // `at_end`, jobs do not wait for `now` any longer.
  Result<size_t> Drain(std::string_view data, bool at_end);
  void Start();

  JobsReplyVisitor visitor_;
  std::string buffer_;  // bytes not handled yet
  size_t scanned_ = 0;  // how far buffer_ was searched for `now`
  JobsReplyHead head_;
  bool has_now_ = false;
  bool started_ = false;
  RecordDecoder decoder_;
};

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_JOBS_REPLY_READER_H_
