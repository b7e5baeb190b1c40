// gantryd's job records in their wire form, kept for listings (the command socket's GetJobs).
//
// Records are kept in blocks of kBlockJobs consecutive job ids. A block's bytes are its jobs'
// GetJobsReply `jobs` fields (tag, length, record), in id order, so a listing of every job is the
// blocks' bytes one after another: written straight from here, with no per-job work and no copy.
// A job that is added, changed or removed makes its block stale; the next listing makes the
// block again from the records. Blocks are immutable once made: a listing keeps the ones it
// sends (shared_ptr) while the cache moves on.
//
// A cache keeps records in one form: full, brief or slim (model/job_brief.h).
// Thread-compatible: the owner serializes calls (gantryd holds records_mu_).
#ifndef GANTRY_CTLD_RECORD_CACHE_H_
#define GANTRY_CTLD_RECORD_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "model/job_brief.h"

namespace gantry::ctld {

class RecordCache {
 public:
  static constexpr uint32_t kBlockJobs = 1024;

  // One job's field in a block's bytes.
  struct Entry {
    uint32_t job_id;
    uint32_t user_id;
    uint32_t begin;  // offset in `bytes`
    uint32_t size;   // tag, length and record
  };
  struct Block {
    std::string bytes;
    std::vector<Entry> entries;  // ascending job ids
    std::string_view Field(const Entry& e) const { return {bytes.data() + e.begin, e.size}; }
    // The record alone (its field without tag and length).
    std::string_view Record(const Entry& e) const;
  };
  using Jobs = std::map<uint32_t, v1::Job>;

  explicit RecordCache(model::JobRecordForm form = model::JobRecordForm::kFull) : form_(form) {}

  // The job with this id was added, changed or removed.
  void Forget(uint32_t job_id);
  // Every block is stale (after recovery).
  void Clear();

  // Every block that holds jobs, in id order, brought up to date with `jobs` first: stale
  // blocks and those of `changed` (ids edited since their last Forget) are made again.
  std::vector<std::shared_ptr<const Block>> Blocks(const Jobs& jobs,
                                                   std::span<const uint32_t> changed);

  // A job's `jobs` field: tag 1, its length, then the record (in `form`).
  static void AppendJobField(const v1::Job& job, std::string* out);
  static void AppendJobField(const v1::Job& job, model::JobRecordForm form, std::string* out);

 private:
  void Make(uint32_t index, const Jobs& jobs);

  model::JobRecordForm form_;
  std::map<uint32_t, std::shared_ptr<const Block>> blocks_;  // by id / kBlockJobs
  std::set<uint32_t> stale_;                                 // block indexes
  bool complete_ = false;  // false: blocks_ may miss jobs; make them all from `jobs`
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_RECORD_CACHE_H_
