// squeue listings made by gantryd (GetJobsRequest.squeue), kept for the next request of the same
// view: polling squeues then cost the controller little and their commands only print.
//
// A listing is made from the record cache's blocks (record_cache.h) with slurm_view's functions
// (squeue_listing.h), one piece per block. A piece is made again only when its block was (a job
// in it changed) or when `now` reached a time its lines or keys depend on (a running job's TIME,
// say); the pieces are then put in order, and the listing (slices of the pieces' text in that
// order) is kept until a piece changes. A view is kept from the second time it is asked for (a
// one-off format leaves nothing behind), while there are at most kViews and their text takes at
// most kViewBytes (a 100k-job listing takes about 20 MB), the least recently used one dropped
// first.
//
// Thread-safe: a listing is made under the cache's lock (requests for the same listing wait for
// it and share it), without any of the controller's locks; many pieces to make are made on a
// few threads at once.
#ifndef GANTRY_CTLD_LISTING_CACHE_H_
#define GANTRY_CTLD_LISTING_CACHE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "base/time.h"
#include "ctld/record_cache.h"
#include "gantry/v1/controller.pb.h"
#include "slurm_view/jobs_reply_reader.h"
#include "slurm_view/squeue_listing.h"
#include "wire/frame.h"

namespace gantry::ctld {

class ListingCache {
 public:
  static constexpr size_t kViews = 16;
  static constexpr size_t kSeen = 64;
  static constexpr size_t kViewBytes = size_t{96} << 20;
  // Pieces are made on up to this many threads (no more than the machine's cores).
  static constexpr size_t kMakers = 4;
  // The text of a GetJobsReply's `lines` fields is cut into pieces of about this many bytes.
  static constexpr size_t kLinesFieldBytes = 64 << 10;
  // A view (its filters and formats) takes at most this many bytes.
  static constexpr size_t kMaxViewBytes = 64 << 10;
  // A listing is kept as slices of its pieces' text while its lines run on in them by at least
  // this many on average; a listing whose order interleaves them is one copy of its text.
  static constexpr size_t kSlicedLines = 8;
  // A listing takes at most this many bytes of text (ResourceExhausted beyond: lines are
  // bounded by slurm::kMaxControllerLineBytes, so it takes a queue far past MaxJobCount).
  static constexpr size_t kMaxListingBytes = size_t{256} << 20;

  // A listing: its lines as GetJobsReply `lines` fields (tag, length, text), in order, as
  // slices: the fields' heads, and runs of lines in the pieces' own text (no copy of it).
  struct Listing {
    wire::Slices fields;
    uint32_t lines = 0;
  };

  // Frees the views dropped since the last call (those asked once, those pushed out), away from
  // any request; true when there were any: memory the caller may give back to the system.
  bool Collect();

  // The record form a view's listing is made from (the blocks Make wants). Errors as
  // slurm::QueryOf.
  static Result<model::JobRecordForm> FormOf(const v1::SqueueView& view);

  // The listing `request` asks for over `blocks` (every block of the record cache in
  // FormOf(request), in id order) at `now`; `cluster` is the -O Cluster column. Errors: the
  // view's (as FormOf), a malformed record.
  Result<std::shared_ptr<const Listing>> Make(
      const v1::SqueueView& request,
      std::span<const std::shared_ptr<const RecordCache::Block>> blocks, UnixTime now,
      std::string_view cluster);

 private:
  struct Piece {
    std::shared_ptr<const RecordCache::Block> block;  // what it was made from
    UnixTime made_at = 0;
    std::shared_ptr<const slurm::ListingPiece> piece;  // shared with the listings made of it
  };
  struct View {
    explicit View(slurm::SqueueQuery q) : query(std::move(q)) {}
    slurm::SqueueQuery query;
    std::unordered_map<const RecordCache::Block*, Piece> pieces;
    std::vector<const RecordCache::Block*> listed;  // the blocks of `listing`, in order
    UnixTime made_at = 0;                           // when `listing` was made
    UnixTime stale_at = 0;                          // when it may change with time
    std::shared_ptr<const Listing> listing;
    size_t bytes = 0;  // about what the view's text takes (pieces and listing)
  };

  // `view`'s listing over `blocks` at `now`: the one it holds while its blocks are the same and
  // `now` changes none of its lines, else made again from the pieces it can keep. `keep`: the
  // view stays in views_ (its bytes are counted and the least recently used views dropped).
  Result<std::shared_ptr<const Listing>> Refresh(
      View* view, std::span<const std::shared_ptr<const RecordCache::Block>> blocks, UnixTime now,
      std::string_view cluster, bool keep) GANTRY_REQUIRES(mu_);
  // The piece of one block: its records decoded (with `decoder`, made for the query's
  // record form) and added (slurm::AddRecord) at `now`. `listed_bytes` counts the text of the
  // listing's pieces: ResourceExhausted when this piece would take it past kMaxListingBytes.
  static Result<slurm::ListingPiece> MakePiece(const slurm::SqueueQuery& query,
                                               const RecordCache::Block& block, UnixTime now,
                                               std::string_view cluster,
                                               slurm::RecordDecoder* decoder,
                                               std::atomic<size_t>* listed_bytes);
  // The pieces' lines in the listing's order (slurm::OrderPieces), as `lines` fields: slices
  // of the pieces' text, or with `one_copy` (or an order that interleaves them) one copy of it
  // that holds none of the pieces.
  static std::shared_ptr<const Listing> Join(
      std::span<const std::shared_ptr<const slurm::ListingPiece>> pieces, bool one_copy);

  Mutex mu_;
  // Most recently used first; by serialized view.
  std::list<std::pair<std::string, View>> views_ GANTRY_GUARDED_BY(mu_);
  size_t bytes_ GANTRY_GUARDED_BY(mu_) = 0;  // the views' bytes
  // The hashes of the last views asked for that were not kept (a ring): a view is kept from
  // its second request on, so that one-off formats leave no text behind.
  std::array<uint64_t, kSeen> seen_ GANTRY_GUARDED_BY(mu_){};
  std::list<View> dropped_ GANTRY_GUARDED_BY(mu_);  // for Collect to free
  size_t seen_next_ GANTRY_GUARDED_BY(mu_) = 0;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_LISTING_CACHE_H_
