#include "ctld/listing_cache.h"

#include <algorithm>
#include <utility>

#include "slurm_view/jobs_reply_reader.h"

namespace gantry::ctld {
namespace {

constexpr char kLinesTag = 0x2A;  // GetJobsReply.lines (field 5), length-delimited

void AppendLinesField(std::string_view text, std::string* out) {
  out->push_back(kLinesTag);
  for (uint64_t v = text.size(); true; v >>= 7) {
    if (v < 0x80) {
      out->push_back(static_cast<char>(v));
      break;
    }
    out->push_back(static_cast<char>(v | 0x80));
  }
  out->append(text);
}

Result<slurm::SqueueQuery> CheckedQueryOf(const v1::SqueueView& view) {
  GANTRY_ASSIGN_OR_RETURN(slurm::SqueueQuery query, slurm::QueryOf(view));
  if (slurm::JobFormatPrintsLocalTime(query.format)) {
    return InvalidArgument(
        "squeue view: format: prints a time of day, which only the command can (its time zone)");
  }
  return query;
}

}  // namespace

Result<model::JobRecordForm> ListingCache::FormOf(const v1::SqueueView& view) {
  GANTRY_ASSIGN_OR_RETURN(const slurm::SqueueQuery query, CheckedQueryOf(view));
  return slurm::RecordFormOf(query);
}

Result<std::shared_ptr<const ListingCache::Listing>> ListingCache::Make(
    const v1::SqueueView& request,
    std::span<const std::shared_ptr<const RecordCache::Block>> blocks, UnixTime now,
    std::string_view cluster) {
  std::string key = request.SerializeAsString();
  std::lock_guard lock(mu_);
  auto it = std::find_if(views_.begin(), views_.end(),
                         [&key](const auto& entry) { return entry.first == key; });
  if (it == views_.end()) {
    GANTRY_ASSIGN_OR_RETURN(slurm::SqueueQuery query, CheckedQueryOf(request));
    views_.emplace_front(std::move(key), View{std::move(query), {}, {}, 0, nullptr});
    if (views_.size() > kViews) views_.pop_back();
  } else {
    views_.splice(views_.begin(), views_, it);
  }
  View& view = views_.front().second;

  const bool same_blocks = view.listed.size() == blocks.size() &&
                           std::equal(blocks.begin(), blocks.end(), view.listed.begin(),
                                      [](const auto& block, const RecordCache::Block* listed) {
                                        return block.get() == listed;
                                      });
  if (view.listing != nullptr && same_blocks && now < view.stale_at) return view.listing;

  // The pieces of these blocks: kept where their block and `now` allow, else made again.
  std::unordered_map<const RecordCache::Block*, Piece> kept;
  std::vector<const slurm::ListingPiece*> pieces;
  view.stale_at = slurm::kNeverStale;
  Status status;
  for (const std::shared_ptr<const RecordCache::Block>& block : blocks) {
    auto found = view.pieces.find(block.get());
    const bool fresh = found != view.pieces.end() &&
                       (found->second.piece.stale_at == slurm::kNeverStale ||
                        (now >= found->second.made_at && now < found->second.piece.stale_at));
    if (fresh) {
      kept.emplace(block.get(), std::move(found->second));
    } else {
      Result<slurm::ListingPiece> piece = MakePiece(view.query, *block, now, cluster);
      if (!piece.ok()) {
        status = piece.status();
        break;
      }
      kept.emplace(block.get(), Piece{block, now, std::move(piece).value()});
    }
  }
  view.pieces = std::move(kept);
  if (!status.ok()) {
    view.listing = nullptr;
    view.listed.clear();
    return status;
  }
  view.listed.clear();
  for (const std::shared_ptr<const RecordCache::Block>& block : blocks) {
    const slurm::ListingPiece& piece = view.pieces.at(block.get()).piece;
    pieces.push_back(&piece);
    view.listed.push_back(block.get());
    view.stale_at = std::min(view.stale_at, piece.stale_at);
  }
  view.listing = Join(pieces);
  return view.listing;
}

Result<slurm::ListingPiece> ListingCache::MakePiece(const slurm::SqueueQuery& query,
                                                    const RecordCache::Block& block, UnixTime now,
                                                    std::string_view cluster) {
  slurm::ListingPiece piece = slurm::NewPiece(query, block.entries.size());
  slurm::RecordDecoder decoder(slurm::RecordFormOf(query) == model::JobRecordForm::kSlim);
  const slurm::JobPrintContext ctx{now, &TimeZone::Utc(), cluster};
  const std::vector<uint32_t>& users = query.filter.user_ids;
  for (const RecordCache::Entry& e : block.entries) {
    // Another user's record is left out before it is decoded (an array's records are all its
    // user's, so slurmctld's order of the rest is the same).
    if (query.filter.user_filter &&
        std::find(users.begin(), users.end(), e.user_id) == users.end()) {
      continue;
    }
    GANTRY_ASSIGN_OR_RETURN(const v1::Job* job, decoder.Decode(block.Record(e)));
    slurm::AddRecord(query, *job, ctx, &piece);
  }
  return piece;
}

std::shared_ptr<const ListingCache::Listing> ListingCache::Join(
    std::span<const slurm::ListingPiece* const> pieces) {
  auto listing = std::make_shared<Listing>();
  std::string text;
  text.reserve(kLinesFieldBytes + 4096);
  size_t bytes = 0;
  for (const slurm::ListingPiece* piece : pieces) bytes += piece->lines.bytes();
  listing->fields.reserve(bytes + bytes / kLinesFieldBytes * 4 + 16);
  for (const slurm::ListingRow& row : slurm::OrderPieces(pieces)) {
    text.append(pieces[row.part]->lines.Piece(row.row));
    ++listing->lines;
    if (text.size() >= kLinesFieldBytes) {
      AppendLinesField(text, &listing->fields);
      text.clear();
    }
  }
  if (!text.empty()) AppendLinesField(text, &listing->fields);
  return listing;
}

}  // namespace gantry::ctld
