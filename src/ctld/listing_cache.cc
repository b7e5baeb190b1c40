#include "ctld/listing_cache.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <utility>

#include "slurm_view/jobs_reply_reader.h"

namespace gantry::ctld {
namespace {

constexpr char kLinesTag = 0x2A;  // GetJobsReply.lines (field 5), length-delimited

// The tag and length of a `lines` field of `length` bytes.
void AppendLinesHead(size_t length, std::string* out) {
  out->push_back(kLinesTag);
  for (; length >= 0x80; length >>= 7) out->push_back(static_cast<char>(length | 0x80));
  out->push_back(static_cast<char>(length));
}

// Whether what was made at `made_at` and may change from `stale_at` on holds at `now` (a clock
// set back makes it again).
bool FreshAt(UnixTime made_at, UnixTime stale_at, UnixTime now) {
  return stale_at == slurm::kNeverStale || (now >= made_at && now < stale_at);
}

Result<slurm::SqueueQuery> CheckedQueryOf(const v1::SqueueView& view) {
  if (const size_t bytes = view.ByteSizeLong(); bytes > ListingCache::kMaxViewBytes) {
    return InvalidArgument("squeue view: " + std::to_string(bytes) + " bytes; at most " +
                           std::to_string(ListingCache::kMaxViewBytes));
  }
  GANTRY_ASSIGN_OR_RETURN(slurm::SqueueQuery query, slurm::QueryOf(view));
  if (slurm::JobFormatPrintsLocalTime(query.format)) {
    return InvalidArgument(
        "squeue view: format: prints a time of day, which only the command can (its time zone)");
  }
  if (const size_t bound = slurm::JobFormatLineBound(query.format);
      bound > slurm::kMaxControllerLineBytes) {
    return InvalidArgument("squeue view: format: lines up to " + std::to_string(bound) +
                           " bytes wide; gantryd makes listings of lines up to " +
                           std::to_string(slurm::kMaxControllerLineBytes) +
                           " (the command makes wider ones)");
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
  MutexLock lock(mu_);
  auto it = std::find_if(views_.begin(), views_.end(),
                         [&key](const auto& entry) { return entry.first == key; });
  if (it != views_.end()) {
    views_.splice(views_.begin(), views_, it);
    return Refresh(&views_.front().second, blocks, now, cluster, /*keep=*/true);
  }
  GANTRY_ASSIGN_OR_RETURN(slurm::SqueueQuery query, CheckedQueryOf(request));
  const uint64_t hash = std::hash<std::string>{}(key);
  if (std::find(seen_.begin(), seen_.end(), hash) == seen_.end()) {  // asked once so far
    seen_[seen_next_++ % seen_.size()] = hash;
    // Its text is one block of its own (Join): its pieces go to dropped_.
    dropped_.emplace_back(std::move(query));
    return Refresh(&dropped_.back(), blocks, now, cluster, /*keep=*/false);
  }
  views_.emplace_front(std::move(key), View{std::move(query)});
  return Refresh(&views_.front().second, blocks, now, cluster, /*keep=*/true);
}

Result<std::shared_ptr<const ListingCache::Listing>> ListingCache::Refresh(
    View* view_ptr, std::span<const std::shared_ptr<const RecordCache::Block>> blocks, UnixTime now,
    std::string_view cluster, bool keep) {
  View& view = *view_ptr;
  const bool same_blocks = view.listed.size() == blocks.size() &&
                           std::equal(blocks.begin(), blocks.end(), view.listed.begin(),
                                      [](const auto& block, const RecordCache::Block* listed) {
                                        return block.get() == listed;
                                      });
  if (view.listing != nullptr && same_blocks && FreshAt(view.made_at, view.stale_at, now)) {
    return view.listing;
  }

  // The pieces of these blocks: kept where their block and `now` allow, else made again (on
  // a few threads when there are several to make: a new view, or a listing after a restart).
  std::unordered_map<const RecordCache::Block*, Piece> kept;
  std::vector<size_t> to_make;  // indexes into blocks
  for (size_t b = 0; b < blocks.size(); ++b) {
    const std::shared_ptr<const RecordCache::Block>& block = blocks[b];
    auto found = view.pieces.find(block.get());
    const bool fresh = found != view.pieces.end() &&
                       FreshAt(found->second.made_at, found->second.piece->stale_at, now);
    if (fresh) {
      kept.emplace(block.get(), std::move(found->second));
    } else {
      to_make.push_back(b);
    }
  }
  std::vector<std::optional<Result<slurm::ListingPiece>>> made(to_make.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> listed_bytes{0};  // of the listing's pieces, as far as they are known
  for (const auto& [block, piece] : kept) listed_bytes += piece.piece->lines.bytes();
  auto make = [&] {  // one decoder per thread, reused for its pieces
    slurm::RecordDecoder decoder(slurm::RecordFormOf(view.query) == model::JobRecordForm::kSlim);
    for (size_t i = next++; i < to_make.size(); i = next++) {
      made[i] = MakePiece(view.query, *blocks[to_make[i]], now, cluster, &decoder, &listed_bytes);
    }
  };
  const auto threads =
      std::min<size_t>({std::thread::hardware_concurrency(), kMakers, to_make.size() / 8});
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < threads; ++i) helpers.emplace_back(make);
  make();
  for (std::thread& t : helpers) t.join();
  for (size_t i = 0; i < to_make.size(); ++i) {
    if (!made[i]->ok()) {  // the view starts again from the pieces it kept
      view.pieces = std::move(kept);
      view.listing = nullptr;
      view.listed.clear();
      return made[i]->status();
    }
    const std::shared_ptr<const RecordCache::Block>& block = blocks[to_make[i]];
    kept.emplace(block.get(),
                 Piece{block, now,
                       std::make_shared<const slurm::ListingPiece>(std::move(*made[i]).value())});
  }
  view.pieces = std::move(kept);
  view.listed.clear();
  view.made_at = now;
  view.stale_at = slurm::kNeverStale;
  std::vector<std::shared_ptr<const slurm::ListingPiece>> pieces;
  for (const std::shared_ptr<const RecordCache::Block>& block : blocks) {
    pieces.push_back(view.pieces.at(block.get()).piece);
    view.listed.push_back(block.get());
    view.stale_at = std::min(view.stale_at, pieces.back()->stale_at);
  }
  view.listing = Join(pieces, /*one_copy=*/!keep);
  if (!keep) return view.listing;
  bytes_ -= view.bytes;
  // The text once, its slices, and the rows' keys.
  view.bytes = view.listing->fields.size() + 16 * view.listing->fields.parts.size() +
               48 * size_t{view.listing->lines};
  bytes_ += view.bytes;
  while (views_.size() > 1 && (views_.size() > kViews || bytes_ > kViewBytes)) {
    bytes_ -= views_.back().second.bytes;
    dropped_.push_back(std::move(views_.back().second));
    views_.pop_back();
  }
  return view.listing;
}

Result<slurm::ListingPiece> ListingCache::MakePiece(const slurm::SqueueQuery& query,
                                                    const RecordCache::Block& block, UnixTime now,
                                                    std::string_view cluster,
                                                    slurm::RecordDecoder* decoder,
                                                    std::atomic<size_t>* listed_bytes) {
  slurm::ListingPiece piece = slurm::NewPiece(query, block.entries.size());
  const slurm::JobPrintContext ctx{now, &TimeZone::Utc(), cluster};
  const std::vector<uint32_t>& users = query.filter.user_ids;
  for (const RecordCache::Entry& e : block.entries) {
    // Another user's record is left out before it is decoded (an array's records are all its
    // user's, so slurmctld's order of the rest is the same).
    if (query.filter.user_filter &&
        std::find(users.begin(), users.end(), e.user_id) == users.end()) {
      continue;
    }
    GANTRY_ASSIGN_OR_RETURN(const v1::Job* job, decoder->Decode(block.Record(e)));
    slurm::AddRecord(query, *job, ctx, &piece);
    if (listed_bytes->load(std::memory_order_relaxed) + piece.lines.bytes() > kMaxListingBytes) {
      return ResourceExhausted("squeue listing: over " + std::to_string(kMaxListingBytes >> 20) +
                               " MiB of text; list fewer jobs or narrower columns");
    }
  }
  *listed_bytes += piece.lines.bytes();
  return piece;
}

std::shared_ptr<const ListingCache::Listing> ListingCache::Join(
    std::span<const std::shared_ptr<const slurm::ListingPiece>> pieces, bool one_copy) {
  auto listing = std::make_shared<Listing>();
  std::vector<const slurm::ListingPiece*> parts;
  for (const std::shared_ptr<const slurm::ListingPiece>& piece : pieces) {
    parts.push_back(piece.get());
  }
  const std::vector<slurm::ListingRow> order = slurm::OrderPieces(parts);
  auto line = [&](size_t i) { return parts[order[i].part]->lines.Piece(order[i].row); };
  // The fields: each one's lines up to kLinesFieldBytes, its head (tag and length) before
  // them; and how many runs of lines that follow one another in a piece's text they hold.
  struct Field {
    size_t begin, end, head;  // lines [begin, end); the head's offset in `heads`
  };
  std::vector<Field> fields;
  auto heads = std::make_shared<std::string>();
  size_t text_bytes = 0;
  size_t runs = 0;
  for (size_t begin = 0, end = 0; begin < order.size(); begin = end) {
    size_t length = 0;
    for (; end < order.size() && length < kLinesFieldBytes; ++end) {
      const std::string_view text = line(end);
      if (end == begin || line(end - 1).data() + line(end - 1).size() != text.data()) ++runs;
      length += text.size();
    }
    fields.push_back({begin, end, heads->size()});
    AppendLinesHead(length, heads.get());
    text_bytes += length;
  }
  const std::string_view all_heads = *heads;
  auto head = [&](size_t f) {
    const size_t head_end = f + 1 < fields.size() ? fields[f + 1].head : all_heads.size();
    return all_heads.substr(fields[f].head, head_end - fields[f].head);
  };
  listing->lines = static_cast<uint32_t>(order.size());
  if (one_copy || runs > kSlicedLines + order.size() / kSlicedLines) {
    // One copy of the text, which holds none of the pieces: asked for, or the order
    // interleaves them (-S -i: every line its own run) and a slice per line would cost more.
    std::string text;
    text.reserve(all_heads.size() + text_bytes);
    for (size_t f = 0; f < fields.size(); ++f) {
      text.append(head(f));
      for (size_t i = fields[f].begin; i < fields[f].end; ++i) text.append(line(i));
    }
    listing->fields = wire::Slices::Of(std::move(text));
    return listing;
  }
  std::vector<std::string_view>& parts_out = listing->fields.parts;
  parts_out.reserve(fields.size() + runs);
  for (size_t f = 0; f < fields.size(); ++f) {
    parts_out.push_back(head(f));
    for (size_t i = fields[f].begin; i < fields[f].end; ++i) {
      const std::string_view text = line(i);
      std::string_view& last = parts_out.back();
      if (i > fields[f].begin && last.data() + last.size() == text.data()) {
        last = std::string_view(last.data(), last.size() + text.size());  // the same run
      } else {
        parts_out.push_back(text);
      }
    }
  }
  listing->fields.owners.assign(pieces.begin(), pieces.end());
  listing->fields.owners.push_back(std::move(heads));
  return listing;
}

bool ListingCache::Collect() {
  std::list<View> dropped;
  {
    MutexLock lock(mu_);
    dropped.swap(dropped_);
  }
  return !dropped.empty();  // freed on the way out, without the lock
}

}  // namespace gantry::ctld
