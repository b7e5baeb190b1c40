// sacct's job listing as pure functions, as Slurm 22.05's sacct prints it (src/sacct/sacct.c,
// options.c, print.c and src/common/print_fields.c): the field table, -o/--format parsing, the
// default time window, which jobs and lines are selected, and rendering.
//
// Lines. Each selected job prints a job line, then (unless -X) a "<id>.batch" line for its batch
// step once the job has started. A job asked for only as "<id>.batch" prints just that line
// ("<id>.<n>" or "<id>.extern" name steps Gantry does not have: nothing); with -X such a job
// prints its job line.
//
// Fields. -o takes a comma-separated list; each item is matched case-insensitively as a prefix
// against the table, in table order (so "st" is Start); "ALL" (or any prefix of it) lists every
// field. "%N" after a name sets that field's width, negative meaning left-justified; like Slurm,
// the width belongs to the field, so the last "%N" given for a field applies to every column of
// it. An empty item ends the list (Slurm's parser stops there). Errors are Slurm's texts:
//   sacct: error: Invalid field requested: "foo"
//   sacct: fatal: AllocGRES has been removed, please use AllocTRES     (and ReqGRES/ReqTRES)
// Fields Gantry has no data for (usage statistics, energy, wckeys, reservations) print empty.
//
// Rendering (print_fields.c). Fixed width: every column is "<value> ", headers are cut to the
// width (no '+'), followed by a line of dashes. Text values longer than the width are cut with a
// '+' in the last column; numbers and durations are never cut; dates are cut without '+'. -p
// ends every field with the delimiter, -P separates fields with it (no trailing one); neither
// pads nor cuts.
//
// Values follow the job record (gantry.v1.Job): State prints "CANCELLED by <uid>" when scancel
// ended the job; the job line's ExitCode is 0:0 for jobs the controller ended (cancel, time
// limit, node failure, preemption, deadline, boot failure), else the batch script's wait status
// ("code:signal", codes of 128 and above less 128). The batch step is RUNNING/SUSPENDED while the
// job is; CANCELLED 0:15 (or the signal recorded) for jobs the controller ended; else COMPLETED
// (exit 0), FAILED (other exit) or CANCELLED (killed by a signal), or the job's state when the
// script's status is unknown. Times are YYYY-MM-DDTHH:MM:SS in the given zone, "Unknown" when
// unset, and Start is "None" for a job that ended without starting. TRES lists are sorted by name.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SACCT_FORMAT_H_
#define GANTRY_SLURM_SACCT_FORMAT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "model/job_state.h"

namespace gantry::slurm {

inline constexpr char kSacctDefaultFields[] =
    "jobid,jobname,partition,account,alloccpus,state,exitcode";
inline constexpr char kSacctBriefFields[] = "jobid,state,exitcode";
// sacct -l (Slurm 22.05's LONG_FIELDS).
inline constexpr char kSacctLongFields[] =
    "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,"
    "maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,"
    "mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,"
    "reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,"
    "maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,"
    "reqtres,alloctres,tresusageinave,tresusageinmax,tresusageinmaxnode,tresusageinmaxtask,"
    "tresusageinmin,tresusageinminnode,tresusageinmintask,tresusageintot,tresusageoutmax,"
    "tresusageoutmaxnode,tresusageoutmaxtask,tresusageoutave,tresusageouttot";

// One printed line: a job, or its batch step.
struct SacctRow {
  const v1::Job* job = nullptr;
  bool batch_step = false;            // the N.batch line (also set for the lines of srun steps)
  const v1::JobStep* step = nullptr;  // an srun step's N.<id> line
};

struct SacctPrintContext {
  UnixTime now = 0;  // Elapsed of running jobs, Reserved of pending ones
  const TimeZone* tz = nullptr;
  bool no_convert = false;  // --noconvert: memory stays in M
  std::string cluster;      // the Cluster column
  // Names for User/Group when the record has none; nullopt (or unset) prints empty.
  std::function<std::optional<std::string>(uint32_t)> user_name;
  std::function<std::optional<std::string>(uint32_t)> group_name;
};

// How a value is fitted to its column.
enum class SacctValueKind {
  kText,    // cut with '+'
  kNumber,  // never cut (numbers, durations)
  kDate,    // cut without '+'
};

struct SacctField {
  std::string_view name;
  int width;  // negative: left-justified
  SacctValueKind kind;
  // The value; "" prints empty. Null: always empty (data Gantry does not keep).
  std::string (*value)(const SacctRow& row, const SacctPrintContext& ctx);
};

// Every field, in Slurm 22.05's table order (what --helpformat lists).
std::span<const SacctField> SacctFields();

// What --helpformat prints: the names in rows of four, each "%-19s".
std::string SacctHelpFormat();

struct SacctColumn {
  const SacctField* field = nullptr;
  int width = 0;
};

// A parsed field list. On error `columns` is empty and `error` is the whole stderr line (without
// '\n').
struct SacctFormat {
  std::vector<SacctColumn> columns;
  std::string error;
};
// `list` is what sacct collected: the -o values, each followed by ',' (a missing final ',' is
// added).
SacctFormat ParseSacctFormat(std::string_view list);

enum class SacctLayout {
  kFixed,      // padded columns
  kParsable,   // -p: "a|b|"
  kParsable2,  // -P: "a|b"
};
struct SacctOutput {
  SacctLayout layout = SacctLayout::kFixed;
  std::string delimiter = "|";
};

// The header (and, in fixed layout, the dashes), each line with '\n'.
std::string RenderSacctHeader(std::span<const SacctColumn> columns, const SacctOutput& output);
// One line with '\n'.
std::string RenderSacctLine(std::span<const SacctColumn> columns, const SacctRow& row,
                            const SacctPrintContext& ctx, const SacctOutput& output);

// One item of -j: "<job>", "<job>.batch", "<job>.<step>", "<job>_<task>", "<job>+<offset>".
struct SacctJobSelector {
  enum class Part {
    kJob,    // the whole job
    kBatch,  // its batch step
    kStep,   // one srun step (step_id)
    kNone,   // a step kind or hetjob component Gantry does not have
  };
  SacctJobSelector() = default;
  SacctJobSelector(uint32_t id, Part p, std::optional<uint32_t> task = std::nullopt,
                   uint32_t step = 0)
      : job_id(id), part(p), array_task(task), step_id(step) {}

  uint32_t job_id = 0;  // a job, or every task of the array with that id
  Part part = Part::kJob;
  std::optional<uint32_t> array_task;  // `12_3`: task 3 of array 12
  uint32_t step_id = 0;                // kStep: `12.0`

  friend bool operator==(const SacctJobSelector&, const SacctJobSelector&) = default;
};
// Parses -j's comma-separated list (empty items skipped). Errors are Slurm's fatal texts:
// "Bad job/step specified: abc", "Bad step specified: 12", "Bad hetjob offset specified: 12".
Result<std::vector<SacctJobSelector>> ParseSacctJobList(std::string_view text);

// -s: Slurm's state names, long or short, any case. Errors are Slurm's fatal texts:
// "unrecognized job state value 'foo'", "job state CG is not supported / accounted".
Result<std::vector<model::JobStateSelector>> ParseSacctStates(std::string_view text);

// The time window (man sacct, DEFAULT TIME WINDOW): without -j and -s, midnight today to now;
// with -j, the epoch to now; with -s, -S defaults to now (epoch with -j) and -E to -S (now when
// -S was not given). Errors (start after end) are Slurm's text:
// "Start time (2026-12-03T06:30:00) requested is after end time (2026-12-03T06:00:00)."
struct SacctWindow {
  UnixTime start = 0;
  UnixTime end = 0;
};
Result<SacctWindow> ComputeSacctWindow(std::optional<UnixTime> start, std::optional<UnixTime> end,
                                       bool jobs_given, bool states_given, UnixTime now,
                                       const TimeZone& tz);

// What sacct's options select. Empty lists select everything.
struct SacctFilter {
  SacctWindow window;
  // -j given: the window applies to the submit time; otherwise a job must have been eligible.
  bool jobs_given = false;
  std::vector<SacctJobSelector> jobs;
  std::vector<uint32_t> user_ids;
  std::vector<std::string> names;
  std::vector<std::string> partitions;
  std::vector<std::string> accounts;
  std::vector<std::string> qos;
  std::vector<std::string> nodes;  // jobs that ran on any of these
  // -s: jobs that were in one of these states during the window.
  std::vector<model::JobStateSelector> states;
  bool allocations = false;  // -X: job lines only
};

// The lines to print for `jobs` (in the order given), as described above.
std::vector<SacctRow> SelectSacctRows(std::span<const v1::Job> jobs, const SacctFilter& filter);
std::vector<SacctRow> SelectSacctRows(const std::vector<const v1::Job*>& jobs,
                                      const SacctFilter& filter);

// The error line for a -S/-E value ParsePastTime refused, as Slurm prints it:
// "Invalid time specification (pos=5): 12:00xyz". The position is where Slurm's parser stopped
// for the usual mistakes (the end of the longest prefix that parses).
std::string SacctTimeError(std::string_view text, UnixTime now, const TimeZone& tz);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SACCT_FORMAT_H_
