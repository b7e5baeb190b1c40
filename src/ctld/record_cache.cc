#include "ctld/record_cache.h"

#include <algorithm>

namespace gantry::ctld {

std::string_view RecordCache::Block::Record(const Entry& e) const {
  std::string_view field = Field(e);
  size_t head = 1;  // the tag, then the length's bytes up to the one without the high bit
  while (head < field.size() && (static_cast<uint8_t>(field[head]) & 0x80) != 0) ++head;
  return field.substr(std::min(head + 1, field.size()));
}

void RecordCache::Forget(uint32_t job_id) {
  if (complete_) stale_.insert(job_id / kBlockJobs);
}

void RecordCache::Clear() {
  blocks_.clear();
  stale_.clear();
  complete_ = false;
}

std::vector<std::shared_ptr<const RecordCache::Block>> RecordCache::Blocks(
    const Jobs& jobs, std::span<const uint32_t> changed) {
  if (!complete_) {
    blocks_.clear();
    stale_.clear();
    for (auto it = jobs.begin(); it != jobs.end();) {
      const uint32_t index = it->first / kBlockJobs;
      Make(index, jobs);
      it = jobs.lower_bound((index + 1) * kBlockJobs);
    }
    complete_ = true;
  } else {
    for (uint32_t id : changed) stale_.insert(id / kBlockJobs);
    for (uint32_t index : stale_) Make(index, jobs);
  }
  stale_.clear();
  std::vector<std::shared_ptr<const Block>> out;
  out.reserve(blocks_.size());
  for (const auto& [index, block] : blocks_) out.push_back(block);
  return out;
}

void RecordCache::AppendJobField(const v1::Job& job, model::JobRecordForm form, std::string* out) {
  if (form == model::JobRecordForm::kFull) {
    AppendJobField(job, out);
    return;
  }
  thread_local v1::Job scratch;
  model::CopyJobInForm(job, form, &scratch);
  AppendJobField(scratch, out);
}

void RecordCache::AppendJobField(const v1::Job& job, std::string* out) {
  out->push_back(static_cast<char>(0x0A));  // field 1, length-delimited
  for (uint64_t v = job.ByteSizeLong();; v >>= 7) {
    if (v < 0x80) {
      out->push_back(static_cast<char>(v));
      break;
    }
    out->push_back(static_cast<char>(v | 0x80));
  }
  job.AppendToString(out);
}

void RecordCache::Make(uint32_t index, const Jobs& jobs) {
  const uint32_t first = index * kBlockJobs;
  const auto end = jobs.lower_bound(first + kBlockJobs);
  auto block = std::make_shared<Block>();
  for (auto it = jobs.lower_bound(first); it != end; ++it) {
    const auto begin = static_cast<uint32_t>(block->bytes.size());
    AppendJobField(it->second, form_, &block->bytes);
    block->entries.push_back(Entry{it->first, it->second.user_id(), begin,
                                   static_cast<uint32_t>(block->bytes.size() - begin)});
  }
  if (block->entries.empty()) {
    blocks_.erase(index);
  } else {
    blocks_[index] = std::move(block);
  }
}

}  // namespace gantry::ctld
