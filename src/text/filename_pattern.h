// Standard input/output/error file name patterns (sbatch -i/-o/-e, srun -i/-o/-e), expanded
// exactly as Slurm 22.05 does it when a job's IO files are opened.
//
// Who expands what in Slurm 22.05:
//   - Batch step (sbatch): slurmstepd on the batch node expands the whole pattern
//     (src/slurmd/common/fname.c, fname_create -> _create_batch_fname). The default when no -o is
//     given is "slurm-%J.out" ("slurm-%A_%a.out" for an array task), see DefaultOutputPattern.
//   - Job step (srun): srun first expands %A %a %J %j %s %x itself and passes %t %n %N %u on
//     (src/srun/libsrun/fname.c, fname_create); when one of those four remains, every slurmstepd
//     expands them per task (fname.c, _create_step_fname), otherwise srun opens the one file.
//
// Specifiers (the same letters for both, with the quirks of each pass reproduced):
//   %%  one '%'.                          %A  array master job id (the job id if not an array)
//   %a  array task id (4294967294 = NO_VAL when the job is not an array task)
//   %J  jobid.stepid; for the batch step only the job id ("slurm-%J.out" is "slurm-128.out")
//   %j  job id                            %N  short node name (never padded)
//   %n  node index in the step            %s  step id (4294967291, SLURM_BATCH_SCRIPT, in batch)
//   %t  task id (rank)                    %u  user name (never padded)
//   %x  job name (never padded)
// A number between '%' and the letter zero-pads numeric fields to that width, at most 10
// ("%12a" pads to 10, "%4j" of job 128 is "0128"). Anything else is not a specifier: "%z" and a
// trailing '%' stay as they are. %b (array task id modulo 10) only exists from Slurm 24.11 on:
// in 22.05 "%b" is left as it is. A backslash anywhere turns every replacement off (see
// ExpandFilenamePattern for what happens to the backslashes).
//
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_FILENAME_PATTERN_H_
#define GANTRY_TEXT_FILENAME_PATTERN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::text {

// What %a prints for a job that is not an array task (Slurm's NO_VAL).
inline constexpr uint32_t kFilenameNoArrayTask = 0xfffffffe;
// What %s prints for the batch step (Slurm's SLURM_BATCH_SCRIPT step id).
inline constexpr uint32_t kFilenameBatchStepId = 0xfffffffb;
// The largest zero-padding width; wider requests pad to this width.
inline constexpr uint32_t kFilenameMaxPadding = 10;

// The values one IO file name is expanded with.
struct FilenameContext {
  uint32_t job_id = 0;
  // The array's master job id; only used when array_task_id is set.
  uint32_t array_job_id = 0;
  // Set for an array task; nullopt for any other job.
  std::optional<uint32_t> array_task_id;
  // nullopt for the batch step (sbatch's script), the step id for a job step (srun).
  std::optional<uint32_t> step_id;
  // The short name of the node whose slurmstepd opens the file (slurmd's host name in 22.05).
  std::string node_name;
  // The node's index in the step; 0 for the batch step.
  uint32_t node_index = 0;
  // The task's global rank in the step; 0 for the batch step.
  uint32_t task_id = 0;
  std::string user;
  std::string job_name;
};

// The file name `pattern` stands for, before the working directory is put in front of a relative
// name (ResolveOutputPath, or ExpandStdioPath for both steps at once).
//
// Batch step (ctx.step_id is nullopt): one left-to-right pass. "%%" is '%'; "%<digits><letter>"
// with a known letter is its value; otherwise the text stays, except that digits after a '%' eat
// the '%' and all but their last digit ("%5z" is "5z", "%123z" is "3z", a trailing "%12" is "2")
// while a lone '%' stays ("%z" and a trailing '%' are unchanged). If the pattern holds any '\',
// nothing is replaced: each "\\" becomes one '\' and every other '\' is dropped
// ("out\%j" is "out%j", "a\\b" is "a\b").
//
// Job step (ctx.step_id is set): srun's pass, then, when %t, %n, %N or %u remain, slurmstepd's
// pass, with their quirks: the character right after an expanded %t/%n/%N/%u is copied without
// being looked at ("%t%t" is "0%t" for task 0), a padded "%5u" keeps its '%' ("%alice"), and
// "%0t" is "0t". If the pattern holds any '\', srun drops every '\' and replaces nothing
// ("a\\b" is "ab").
//
// A pattern that is only a task number ("3") is returned as it is: see SingleTaskIoId.
// Errors: an empty pattern (Slurm has no file to open; use DefaultOutputPattern when no pattern
// was given), a pattern holding a NUL byte (Slurm's patterns are C strings, which would cut it
// short), and a job step pattern whose second pass would zero-pad %t or %n to more than 4096
// (PATH_MAX) digits: slurmstepd's pass does not cap widths, and one can reach it past srun's cap
// of 10 ("%t%%33t" pads the second %t to 33 digits).
Result<std::string> ExpandFilenamePattern(std::string_view pattern, const FilenameContext& ctx);

// An expanded file name as a path: an absolute name (starting with '/') as it is, a relative one
// under `workdir` (the job's or step's working directory, WorkDir), with one '/' between them
// unless `workdir` already ends with '/'. An empty `workdir` leaves the name relative.
std::string ResolveOutputPath(std::string_view expanded, std::string_view workdir);

// The path the IO file is opened at, exactly as Slurm 22.05 builds it for the batch step
// (slurmstepd's fname_create) or for a job step (srun's then slurmstepd's fname_create):
//   - batch step, pattern that is only a task number other than ctx.task_id (SingleTaskIoId):
//     "/dev/null" (sbatch -o 3 discards the output);
//   - batch step, pattern holding a '\': `workdir` followed directly by the unescaped name,
//     without a '/' between them, when the pattern does not start with '/' (Slurm's
//     fname_create: "out\%j" in /home/alice is "/home/aliceout%j"); the unescaped name alone
//     otherwise;
//   - batch step, any other pattern: `workdir` + '/' + the expanded name when the pattern does
//     not start with '/' (checked on the pattern, before expansion); the expanded name otherwise;
//   - job step: `workdir` + '/' + the expanded name when the name is relative: when srun opens
//     it (no %t/%n/%N/%u), the expanded name does not start with '/'; when slurmstepd does, the
//     name srun handed it does not. (srun opens its file relative to its own working directory,
//     which is the step's unless srun --chdir moved the step.) A step pattern that is only a
//     task number (srun -o 3) sends that task's output back to srun when the step has more
//     tasks than that number, which callers must check first (SingleTaskIoId); here it names a
//     file.
// Errors as ExpandFilenamePattern.
Result<std::string> ExpandStdioPath(std::string_view pattern, const FilenameContext& ctx,
                                    std::string_view workdir);

// The pattern of a batch job's stdout (and stderr) when sbatch has no -o/-e, as documented in
// sbatch(1): "slurm-%j.out", or "slurm-%A_%a.out" for an array job. (slurmstepd uses
// "slurm-%J.out", which expands to the same name for the batch step.)
std::string_view DefaultOutputPattern(bool is_array);

// The task a pattern that is only a number selects, as Slurm's fname_single_task_io:
// strtoul(pattern, base 10) must consume the whole text (leading white space and a sign are
// allowed, as strtoul does) and the result, cast to int, must not be negative. "3" is 3, " 3"
// and "+3" are 3, "-1", "3a" and "x" select none. Like Slurm, the empty text selects task 0.
std::optional<uint32_t> SingleTaskIoId(std::string_view pattern);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_FILENAME_PATTERN_H_
