// squeue's listing of job records, made in pieces: each piece holds the lines and sort keys of
// a run of records (squeue makes one per part of a reply it reads; gantryd one per record block,
// which it keeps while the block and `now` allow), and the pieces are put in order together at
// the end. squeue and gantryd make listings with these same functions, so a listing is the same
// text wherever it is made.
//
// A listing's query comes from squeue's options as a v1::SqueueView (the message squeue sends
// when gantryd makes the listing): QueryOf parses it on either side.
// Pure; thread-compatible.
#ifndef GANTRY_SLURM_VIEW_SQUEUE_LISTING_H_
#define GANTRY_SLURM_VIEW_SQUEUE_LISTING_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "gantry/v1/job.pb.h"
#include "model/job_brief.h"
#include "slurm_view/job_view.h"
#include "slurm_view/listing_text.h"
#include "slurm_view/squeue_format.h"
#include "slurm_view/squeue_sort.h"

namespace gantry::slurm {

// What a listing shows.
struct SqueueQuery {
  JobFormat format;
  JobFilter filter;
  std::string sort;  // JobSorter::Create accepts it
  bool expand_arrays = false;
};

// The query of a view. Errors: InvalidArgument naming the field and the value
// ("squeue view: sort: Invalid sort specification: z", "squeue view: states: ..."). Format
// errors (unknown letters) are not errors here: the format keeps them.
Result<SqueueQuery> QueryOf(const v1::SqueueView& view);

// The shortest record form (model/job_brief.h) that holds everything the query reads.
model::JobRecordForm RecordFormOf(const SqueueQuery& query);

// Whether gantryd can make this listing for squeue: not when a column prints a time of day
// (in the command's time zone, which gantryd does not know), nor for named jobs (a short
// listing, and squeue reports an unknown id itself), nor when its lines may be wider than
// kMaxControllerLineBytes (the command pays for a listing that wide, not the controller).
bool ControllerCanList(const SqueueQuery& query);

// The lines and keys of a run of records.
struct ListingPiece {
  explicit ListingPiece(JobSorter s) : sorter(std::move(s)) {}

  JobSorter sorter;                   // the keys of the rows
  std::vector<ListedRecord> records;  // every record added, shown or not (slurmctld's order)
  std::vector<uint32_t> rows;         // the records shown: indexes into `records`
  ListingText lines;                  // one piece of text per row
  UnixTime stale_at = kNeverStale;    // from then on a line or a key may be another
};

// A piece for `query`, with room for `records` records.
ListingPiece NewPiece(const SqueueQuery& query, size_t records);

// Adds a record (with expand_arrays, an array record's pending tasks one by one): its place in
// slurmctld's order, and when the filter selects it its keys and its line. ctx.now is the
// listing's time.
void AddRecord(const SqueueQuery& query, const v1::Job& job, const JobPrintContext& ctx,
               ListingPiece* piece);

// The rows of `pieces` (one listing's, in record order) in the listing's order: squeue's sort,
// ties as slurmctld lists its records.
std::vector<ListingRow> OrderPieces(std::span<const ListingPiece* const> pieces);
// Their lines in that order, as one text (small listings; large ones are written piece by piece).
std::string OrderedText(std::span<const ListingPiece* const> pieces);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_SQUEUE_LISTING_H_
