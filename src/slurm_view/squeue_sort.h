// squeue's job order, for listings that see each job once and keep only its keys.
//
// Sorting follows squeue: first by expected start time (latest first), then by each key of the
// sort spec from last to first with a stable sort; keys are letters (i j P t T p Q u U M l L D
// C N S V e a q m B g G A), '-' before a key reverses it, ',' and '+' are ignored, and the letters
// squeue accepts without sorting on them (b c d f h n O v z H I J) are skipped. The default is
// "P,t,-p" (partition, compact state as text, priority descending); --start uses "S".
//
// Ties keep the order slurmctld lists its records in: creation order. A job array's record is
// replaced each time a task splits off: the task keeps the old record (created when the array
// was submitted, or at the previous split) and a new record for the remaining tasks goes to the
// end of the list. So a record sorts at the id it was created after: a split task after the task
// split before it (the array's first task at the array's id), the array's record (and the last
// task, which takes it) after the newest split task.
// Pure; thread-compatible.
#ifndef GANTRY_SLURM_VIEW_SQUEUE_SORT_H_
#define GANTRY_SLURM_VIEW_SQUEUE_SORT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "model/job_brief.h"
#include "slurm_view/listing_text.h"

namespace gantry::slurm {

// Sorts rows added one at a time by a sort spec.
class JobSorter {
 public:
  // Errors: InvalidArgument "Invalid sort specification: z".
  static Result<JobSorter> Create(std::string_view sort);
  // The shortest record form (model/job_brief.h) that holds everything the keys read: slim
  // for the default sort and keys on ids, names, users, states, priorities, times and nodes;
  // full for the group name ('g'); brief otherwise.
  static model::JobRecordForm RecordForm(std::string_view sort);

  // Keys the next row (rows count from 0 in the order added); `now` is the listing's time. A
  // key that depends on it lowers *stale_at (job_view.h's LowerStaleAt) when given.
  void Add(const v1::Job& job, UnixTime now, UnixTime* stale_at = nullptr);
  size_t size() const { return rows_; }
  // Room for this many rows (a hint; more may come).
  void Reserve(size_t rows) { flat_.reserve(rows * keys_.size()); }

  // The rows in sorted order; ties keep the order added.
  std::vector<uint32_t> Order() const;

  // The rows of `parts` (sorters of one sort spec, each keyed with one part of a listing) in
  // sorted order, as one sorter given the parts one after another would order them, except
  // that ties go first by `ties` (empty, or per part one value per row, smaller first).
  static std::vector<ListingRow> OrderParts(std::span<const JobSorter* const> parts,
                                            std::span<const std::span<const uint64_t>> ties);

 private:
  using NumberFn = int64_t (*)(const v1::Job& job, UnixTime now, UnixTime* stale_at);
  using TextFn = std::string_view (*)(const v1::Job& job, std::string* scratch);
  struct Key {
    // One of the two: a number, or a text (ranked among the column's texts when sorting; the
    // view is into the job or into `scratch`).
    NumberFn number = nullptr;
    TextFn text = nullptr;
    bool reversed = false;
    // A text key's values: text -> id (in the order first seen), and the last one looked up.
    std::map<std::string, int64_t, std::less<>> ids;
    std::string scratch;
    std::string last_text;
    std::optional<int64_t> last_id;
  };
  static std::optional<Key> KeyFor(char letter);

  std::vector<Key> keys_;
  size_t rows_ = 0;
  std::vector<int64_t> flat_;  // per row, per key: the number or the text's id
};

// What slurmctld's listing order needs of a record.
struct ListedRecord {
  uint32_t job_id = 0;
  uint32_t array_job_id = 0;
  bool split_task = false;  // an array task with a record of its own (not the array's record)
};
ListedRecord ListedRecordOf(const v1::Job& job);

// Orders records as slurmctld lists them.
class SlurmctldListOrder {
 public:
  // `records`: every record of the reply (filtered out or not), in any number of spans.
  explicit SlurmctldListOrder(std::span<const std::span<const ListedRecord>> records);
  // A value that orders `record` among the reply's records (smaller first).
  uint64_t KeyOf(const ListedRecord& record) const;

 private:
  std::map<uint32_t, std::vector<uint32_t>> splits_;  // array id -> its split tasks' ids, sorted
};

// The same orders on a vector of jobs (whole replies, in tests and small listings).
// SortAsSlurmctldLists: stable; call it on the whole reply, before filtering.
void SortAsSlurmctldLists(std::vector<const v1::Job*>* jobs);
// Sorts in place, ties kept in their order. Errors as JobSorter::Create.
Status SortJobs(std::vector<const v1::Job*>* jobs, std::string_view sort, UnixTime now);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_SQUEUE_SORT_H_
