// squeue's job listing as pure functions: the field table (one row per %-letter / -O name, as
// Slurm 22.05's fmt_data_job), format parsing, filtering, sorting and rendering.
//
// Fields print as squeue's print.c does: headers and values through PadField; most values are
// cut to a right-justified width, times (%M %l %L) and node lists (%N, %R for running jobs) are
// not; unset strings print "(null)". %R prints "(<reason>)" for pending, failed and timed-out jobs
// that are not completing, else the node list.
// The order is squeue_sort.h's.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_VIEW_SQUEUE_FORMAT_H_
#define GANTRY_SLURM_VIEW_SQUEUE_FORMAT_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "model/job_brief.h"
#include "model/job_state.h"
#include "slurm_view/job_view.h"

namespace gantry::slurm {

inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
inline constexpr char kSqueueStartFormat[] = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
inline constexpr char kSqueueDefaultSort[] = "P,t,-p";

struct JobPrintContext {
  UnixTime now = 0;
  const TimeZone* tz = nullptr;
  std::string_view cluster;  // -O Cluster
  // Lowered by a value printed that depends on `now` (job_view.h's LowerStaleAt): a line kept
  // for later must be printed again from then on.
  mutable UnixTime stale_at = kNeverStale;
};

// One row of the field table.
struct JobField {
  std::string_view name;    // -O name ("JobArrayId"); empty when only a letter exists
  char letter;              // -o letter; 0 when only a name exists
  std::string_view header;  // column title
  bool cut;                 // right-justified values are cut to the width
  bool header_cut;          // the title is cut (node list titles are not)
  // The value: a view into the job or a constant, or text made in `scratch`.
  std::string_view (*value)(const v1::Job& job, const JobPrintContext& ctx, std::string& scratch);
};

std::span<const JobField> SqueueFields();
const JobField* FindSqueueField(char letter);
// A -O name, case-insensitive, with squeue's other spellings ("shared", "tres", "gres",
// "packjob*", "numtask..."); null when squeue 22.05 does not know it.
const JobField* FindSqueueFieldByName(std::string_view name);

// A parsed -o format: unknown letters become literal text ("%Z") and an error message each.
struct JobColumn {
  const JobField* field = nullptr;  // null: print `literal` only
  int width = 0;
  bool right = false;
  std::string suffix;
  std::string literal;
};
struct JobFormat {
  std::string prefix;
  std::vector<JobColumn> columns;
  std::vector<std::string> errors;  // "Invalid job format specification: Z"
};
JobFormat ParseJobFormat(std::string_view format);
// A parsed -O/--Format: "name[:[.][width][suffix]],..." (width 20 when no ':' is given, 0 = as
// wide as the value). Unknown names print only their suffix and an error message each
// ("Invalid job format specification: Foo").
JobFormat ParseJobLongFormat(std::string_view format);

// The shortest record form (model/job_brief.h) that holds everything the columns print, which
// the listing may ask for: slim for the default, -l and --start formats.
model::JobRecordForm JobFormatRecordForm(const JobFormat& format);

// Whether a column prints a time of day (in the command's time zone, which only the command
// knows): StartTime, SubmitTime, EndTime and the like.
bool JobFormatPrintsLocalTime(const JobFormat& format);

// About how wide a line of `format` may be: the prefix, the suffixes and literals, and each
// column's width, a column counting at least kNaturalColumnBytes (a value wider than its column
// is printed whole). Saturates instead of overflowing.
inline constexpr size_t kNaturalColumnBytes = 64;
size_t JobFormatLineBound(const JobFormat& format);

// gantryd makes listings whose lines are at most this wide (JobFormatLineBound); the command
// makes wider ones itself, in its own memory.
inline constexpr size_t kMaxControllerLineBytes = 8192;

// The header line (with '\n').
std::string RenderJobHeader(const JobFormat& format);
// One line per job (each with '\n').
std::string RenderJobLine(const JobFormat& format, const v1::Job& job, const JobPrintContext& ctx);
// The same line appended to *out (long listings build one buffer).
void AppendJobLine(const JobFormat& format, const v1::Job& job, const JobPrintContext& ctx,
                   std::string* out);

// What squeue's options select. Empty lists select everything.
struct JobFilter {
  std::vector<uint32_t> job_ids;  // a job, or every record of the array with that id
  // (array id, task id): one task of an array (`-j 12_3`; the lister expands array records into
  // one record per pending task first, ExpandArrayTasks).
  std::vector<std::pair<uint32_t, uint32_t>> array_tasks;
  std::vector<uint32_t> user_ids;
  bool user_filter = false;  // -u given (even when no name resolved: then nothing matches)
  std::vector<std::string> partitions;
  std::vector<std::string> names;               // case-insensitive
  std::vector<std::string> accounts;            // case-insensitive
  std::vector<std::string> qos;                 // case-insensitive
  std::vector<std::string> nodes;               // jobs on any of these nodes
  std::optional<model::JobStateFilter> states;  // unset: squeue's default states
};
bool JobMatches(const JobFilter& filter, const v1::Job& job);
// The shortest record form that holds everything the filter reads: slim unless it selects by
// partition, account or QOS.
model::JobRecordForm JobFilterRecordForm(const JobFilter& filter);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_VIEW_SQUEUE_FORMAT_H_
