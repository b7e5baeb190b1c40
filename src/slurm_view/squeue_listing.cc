#include "slurm_view/squeue_listing.h"

#include <utility>

namespace gantry::slurm {
namespace {

Status BadView(std::string_view field, std::string_view why) {
  return InvalidArgument("squeue view: " + std::string(field) + ": " + std::string(why));
}

std::vector<std::string> ListOf(const google::protobuf::RepeatedPtrField<std::string>& items) {
  return {items.begin(), items.end()};
}

}  // namespace

Result<SqueueQuery> QueryOf(const v1::SqueueView& view) {
  SqueueQuery query;
  query.format = view.format_long().empty() ? ParseJobFormat(view.format())
                                            : ParseJobLongFormat(view.format_long());
  query.sort = view.sort().empty() ? std::string(kSqueueDefaultSort) : view.sort();
  if (Result<JobSorter> sorter = JobSorter::Create(query.sort); !sorter.ok()) {
    return BadView("sort", sorter.status().message());
  }
  query.expand_arrays = view.expand_arrays();
  JobFilter& filter = query.filter;
  filter.user_filter = view.user_filter();
  filter.user_ids.assign(view.user_ids().begin(), view.user_ids().end());
  filter.partitions = ListOf(view.partitions());
  filter.names = ListOf(view.names());
  filter.accounts = ListOf(view.accounts());
  filter.qos = ListOf(view.qos());
  filter.nodes = ListOf(view.nodes());
  if (!view.states().empty()) {
    Result<model::JobStateFilter> states = model::ParseJobStateFilter(view.states());
    if (!states.ok()) return BadView("states", states.status().message());
    filter.states = std::move(states).value();
  }
  return query;
}

model::JobRecordForm RecordFormOf(const SqueueQuery& query) {
  return model::WiderForm(
      JobFormatRecordForm(query.format),
      model::WiderForm(JobSorter::RecordForm(query.sort), JobFilterRecordForm(query.filter)));
}

bool ControllerCanList(const SqueueQuery& query) {
  return query.filter.job_ids.empty() && query.filter.array_tasks.empty() &&
         !JobFormatPrintsLocalTime(query.format) &&
         JobFormatLineBound(query.format) <= kMaxControllerLineBytes;
}

ListingPiece NewPiece(const SqueueQuery& query, size_t records) {
  ListingPiece piece(*JobSorter::Create(query.sort));
  piece.records.reserve(records);
  piece.rows.reserve(records);
  piece.sorter.Reserve(records);
  // A line is about as long as the header (a reason or node list may run past its title): text
  // reserved too short would be copied each time it grows.
  piece.lines.Reserve(records, RenderJobHeader(query.format).size() + 16);
  return piece;
}

void AddRecord(const SqueueQuery& query, const v1::Job& job, const JobPrintContext& ctx,
               ListingPiece* piece) {
  auto add = [&](const v1::Job& one) {
    piece->records.push_back(ListedRecordOf(one));
    if (!JobMatches(query.filter, one)) return;
    piece->rows.push_back(static_cast<uint32_t>(piece->records.size() - 1));
    piece->sorter.Add(one, ctx.now, &piece->stale_at);
    ctx.stale_at = kNeverStale;
    AppendJobLine(query.format, one, ctx, piece->lines.text());
    LowerStaleAt(ctx.stale_at, &piece->stale_at);
    piece->lines.EndPiece();
  };
  if (!query.expand_arrays) {
    add(job);
  } else {  // -r (and task ids): every pending task of an array record on its own line
    for (const v1::Job& one : ExpandArrayTasks(job)) add(one);
  }
}

std::vector<ListingRow> OrderPieces(std::span<const ListingPiece* const> pieces) {
  std::vector<std::span<const ListedRecord>> records;
  records.reserve(pieces.size());
  for (const ListingPiece* piece : pieces) records.emplace_back(piece->records);
  const SlurmctldListOrder list_order(records);
  std::vector<std::vector<uint64_t>> ties(pieces.size());
  std::vector<std::span<const uint64_t>> tie_spans;
  std::vector<const JobSorter*> sorters;
  for (size_t p = 0; p < pieces.size(); ++p) {
    ties[p].reserve(pieces[p]->rows.size());
    for (uint32_t r : pieces[p]->rows) ties[p].push_back(list_order.KeyOf(pieces[p]->records[r]));
    tie_spans.emplace_back(ties[p]);
    sorters.push_back(&pieces[p]->sorter);
  }
  return JobSorter::OrderParts(sorters, tie_spans);
}

std::string OrderedText(std::span<const ListingPiece* const> pieces) {
  std::string text;
  for (const ListingRow& row : OrderPieces(pieces)) text += pieces[row.part]->lines.Piece(row.row);
  return text;
}

}  // namespace gantry::slurm
