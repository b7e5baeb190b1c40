#include "slurm_view/jobs_reply_reader.h"

#include <google/protobuf/message_lite.h>

#include <algorithm>

#include "model/job_brief.h"

namespace gantry::slurm {
namespace {

constexpr uint32_t kJobsField = 1;    // GetJobsReply.jobs, length-delimited
constexpr uint32_t kNowField = 2;     // GetJobsReply.now, varint
constexpr uint32_t kAtMostField = 3;  // GetJobsReply.jobs_at_most, varint
constexpr uint32_t kShardsField = 4;  // GetJobsReply.shards, varint
constexpr uint32_t kLinesField = 5;   // GetJobsReply.lines, length-delimited

constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kFixed32 = 5;

struct Field {
  uint32_t number = 0;
  int type = 0;
  uint64_t value = 0;      // a varint's value
  std::string_view bytes;  // a length-delimited field's contents
  size_t begin = 0;        // where its contents (or fixed value) start
  size_t end = 0;          // where the next field starts
};

// A varint at data[*at]; false when the data ends first. Sets *bad for one over 10 bytes.
bool ReadVarint(std::string_view data, size_t* at, uint64_t* value, bool* bad) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*at >= data.size()) return false;
    const auto byte = static_cast<uint8_t>(data[(*at)++]);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  *bad = true;
  return false;
}

Status Malformed() { return InvalidArgument("the controller's job list is malformed"); }

// The head of the field that starts at data[at]: its number, type, varint value, `begin` and
// `end` (which may lie past the data: the contents are not looked at). nullopt while the tag and
// the value or length are not all there.
Result<std::optional<Field>> FieldHead(std::string_view data, size_t at) {
  bool bad = false;
  uint64_t tag = 0;
  Field f;
  if (!ReadVarint(data, &at, &tag, &bad)) {
    if (bad) return Malformed();
    return std::optional<Field>();
  }
  f.number = static_cast<uint32_t>(tag >> 3);
  f.type = static_cast<int>(tag & 7);
  size_t need = 0;
  switch (f.type) {
    case kVarint:
      if (!ReadVarint(data, &at, &f.value, &bad)) {
        if (bad) return Malformed();
        return std::optional<Field>();
      }
      break;
    case kFixed64:
      need = 8;
      break;
    case kFixed32:
      need = 4;
      break;
    case kLengthDelimited: {
      uint64_t length = 0;
      if (!ReadVarint(data, &at, &length, &bad)) {
        if (bad) return Malformed();
        return std::optional<Field>();
      }
      if (length > (uint64_t{1} << 32)) return Malformed();
      need = static_cast<size_t>(length);
      break;
    }
    default:
      return Malformed();  // groups are not used by any Gantry message
  }
  if (f.number == 0) return Malformed();
  f.begin = at;
  f.end = at + need;
  return std::optional<Field>(f);
}

// The field that starts at data[at]: nullopt while it is not complete yet.
Result<std::optional<Field>> NextField(std::string_view data, size_t at) {
  GANTRY_ASSIGN_OR_RETURN(std::optional<Field> f, FieldHead(data, at));
  if (!f || f->end > data.size()) return std::optional<Field>();
  f->bytes = data.substr(f->begin, f->end - f->begin);
  return f;
}

}  // namespace

Status JobsReplyReader::Feed(std::string_view piece) {
  // A record the last piece cut is completed first, from only the bytes it still needs; the
  // records after it are handled where they lie in the piece. (Until `now` is found, records
  // wait in the buffer: then the whole piece joins them.)
  while (!buffer_.empty() && !piece.empty()) {
    size_t take = piece.size();
    if (has_now_) {  // a malformed head takes a few bytes, and Drain reports it
      const Result<std::optional<Field>> head = FieldHead(buffer_, 0);
      const bool known = head.ok() && *head && (*head)->end > buffer_.size();
      take = std::min(take, known ? (*head)->end - buffer_.size() : size_t{16});
    }
    buffer_.append(piece.substr(0, take));
    piece.remove_prefix(take);
    GANTRY_ASSIGN_OR_RETURN(const size_t used, Drain(buffer_, false));
    buffer_.erase(0, used);
    scanned_ = scanned_ > used ? scanned_ - used : 0;
  }
  if (piece.empty()) return Status::Ok();
  GANTRY_ASSIGN_OR_RETURN(const size_t used, Drain(piece, false));
  buffer_.assign(piece.substr(used));
  scanned_ = scanned_ > used ? scanned_ - used : 0;
  return Status::Ok();
}

Result<JobsReplyHead> JobsReplyReader::Finish() {
  GANTRY_ASSIGN_OR_RETURN(const size_t used, Drain(buffer_, true));
  if (used != buffer_.size()) {
    return InvalidArgument("the controller's job list ended in the middle of a record");
  }
  buffer_.clear();
  Start();
  return head_;
}

void JobsReplyReader::Start() {
  if (started_) return;
  started_ = true;
  if (visitor_.start) visitor_.start(head_);
}

Result<size_t> JobsReplyReader::Drain(std::string_view data, bool at_end) {
  size_t at = 0;
  for (;;) {
    GANTRY_ASSIGN_OR_RETURN(std::optional<Field> f, NextField(data, at));
    if (!f) break;
    if (f->number == kNowField && f->type == kVarint) {
      head_.now = static_cast<UnixTime>(f->value);
      has_now_ = true;
    } else if (f->number == kAtMostField && f->type == kVarint) {
      head_.jobs_at_most = static_cast<uint32_t>(f->value);
    } else if (f->number == kShardsField && f->type == kVarint) {
      head_.shards = static_cast<uint32_t>(f->value);
    } else if ((f->number == kJobsField || f->number == kLinesField) &&
               f->type == kLengthDelimited) {
      if (!has_now_ && !at_end) {  // look ahead for `now` among the complete fields
        size_t ahead = std::max(scanned_, f->end);
        for (;;) {
          GANTRY_ASSIGN_OR_RETURN(std::optional<Field> next, NextField(data, ahead));
          if (!next) break;
          ahead = next->end;
          if (next->number == kNowField && next->type == kVarint) {
            head_.now = static_cast<UnixTime>(next->value);
            has_now_ = true;
            break;
          }
        }
        scanned_ = ahead;
        if (!has_now_) break;  // the jobs wait here for more of the reply
      }
      Start();
      if (f->number == kLinesField) {
        if (!visitor_.lines) return InvalidArgument("the controller sent lines for a job list");
        GANTRY_RETURN_IF_ERROR(visitor_.lines(f->bytes));
      } else {
        GANTRY_ASSIGN_OR_RETURN(const v1::Job* job, decoder_.Decode(f->bytes));
        GANTRY_RETURN_IF_ERROR(visitor_.job(*job));
      }
    }
    at = f->end;
  }
  return at;
}

Result<const v1::Job*> RecordDecoder::Decode(std::string_view bytes) {
  // A slim record is decoded into the one reused message (a field outside the slim form sends
  // it through protobuf's parser; the listing reads none of those). Any other record is a new
  // message on the arena (cheaper than clearing one message's many fields for each record);
  // the arena starts again in its first block once half of that is used.
  if (slim_) {
    job_ = &reused_;
    model::ClearSlimJob(job_);
    if (model::MergeSlimRecord(bytes, job_)) return job_;
    model::ClearSlimJob(job_);
  } else {
    if (arena_.SpaceUsed() > kArenaBytes / 2) arena_.Reset();
    job_ = google::protobuf::Arena::CreateMessage<v1::Job>(&arena_);
  }
  // Merged from the flat bytes: protobuf's parser without the stream wrapper that
  // MergeFromCodedStream goes through (about a sixth faster on a listing's small records).
  if (!google::protobuf::internal::MergeFromImpl<false>(
          google::protobuf::StringPiece(bytes.data(), bytes.size()), job_,
          google::protobuf::MessageLite::kMerge)) {
    return InvalidArgument("the controller's job list has a malformed record");
  }
  if (!job_->has_request()) job_->mutable_request();
  return job_;
}

}  // namespace gantry::slurm
