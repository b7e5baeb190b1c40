// sbatch's options: the full 22.05 option table (every long and short option, so abbreviations and
// "ambiguous" errors match Slurm), the SBATCH_* input environment variables, and the values they
// set. Options Gantry does not implement yet are recognised and refused with
// "sbatch: error: --<name> is not supported by Gantry yet" (exit 1); issue 4 fills them in.
//
// ApplySbatchOption validates one value the way sbatch does and reports Slurm's error text and
// exit code: "Invalid --time specification" (255), "Invalid numeric value \"x\" for --ntasks."
// (1), "\"x\" is not a valid node count" (255), "Maximum node count 2 is less than minimum node
// count 3" (255), "Invalid --mem specification" (255), "Invalid --begin specification" (255),
// "Invalid --mail-type specification" (255), "Invalid --exclusive specification" (255).
// Later values replace earlier ones, so applying script directives, then the environment, then
// the command line gives Slurm's precedence.
// Pure functions (the --begin clock and zone are parameters); thread-safe.
#ifndef GANTRY_SLURM_SBATCH_OPTIONS_H_
#define GANTRY_SLURM_SBATCH_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "slurm/option_parser.h"
#include "text/gres.h"

namespace gantry::slurm {

// Ids of sbatch's options (short options use their letter).
enum SbatchOptionId : int {
  kOptHelp = 'h',
  kOptUsage = 0x200,
  kOptVersion = 'V',
  kOptParsable = 0x201,
  kOptWrap = 0x202,
  kOptTimeMin = 0x203,
  kOptMem = 0x204,
  kOptMemPerCpu = 0x205,
  kOptNtasksPerNode = 0x206,
  kOptExport = 0x207,
  kOptComment = 0x208,
  kOptNice = 0x209,
  kOptExclusive = 0x20a,
  kOptRequeue = 0x20b,
  kOptNoRequeue = 0x20c,
  kOptMailType = 0x20d,
  kOptMailUser = 0x20e,
  kOptGres = 0x20f,
  kOptGpusPerNode = 0x210,
  kOptKillOnInvalidDep = 0x211,
  kOptTasksPerNode = 0x212,
  kOptExportFile = 0x213,
  kOptGetUserEnv = 0x214,
  kOptOpenMode = 0x215,
  kOptSignal = 0x216,
  kOptTestOnly = 0x217,
  kOptGpusPerTask = 0x218,
  kOptCpusPerGpu = 0x219,
  kOptMemPerGpu = 0x21a,
  kOptUnsupported = 0x400,  // + index in the table for options not implemented yet
};

std::span<const ShortOption> SbatchShortOptions();
std::span<const LongOption> SbatchLongOptions();
// The long name of an option id ("time" for 't'), for messages.
std::string_view SbatchOptionName(int id);

// SBATCH_* variables and the option each one sets (in the order sbatch reads them).
struct SbatchEnvVar {
  std::string_view variable;
  int option_id;
};
std::span<const SbatchEnvVar> SbatchEnvVars();

struct SbatchOptions {
  std::optional<std::string> job_name;
  std::vector<std::string> partitions;
  std::optional<uint32_t> min_nodes;
  std::optional<uint32_t> max_nodes;
  std::optional<uint32_t> ntasks;
  std::optional<uint32_t> ntasks_per_node;
  std::optional<uint32_t> cpus_per_task;
  std::optional<uint64_t> mem_mb;
  std::optional<uint64_t> mem_per_cpu_mb;
  std::optional<uint32_t> time_limit_min;  // 0xFFFFFFFF = UNLIMITED
  std::optional<uint32_t> time_min_min;
  std::optional<std::string> output;
  std::optional<std::string> error;
  std::optional<std::string> input;
  std::optional<std::string> chdir;
  std::optional<std::string> export_env;
  bool parsable = false;
  bool hold = false;
  std::optional<std::string> account;
  std::optional<std::string> qos;
  std::optional<std::string> comment;
  std::optional<int32_t> nice;
  std::optional<UnixTime> begin;
  std::optional<std::string> nodelist;
  std::optional<std::string> exclude;
  std::optional<std::string> constraint;
  bool exclusive = false;
  uint32_t requeue = 0;  // 0 default, 1 --requeue, 2 --no-requeue
  std::optional<std::string> mail_type;
  std::optional<std::string> mail_user;
  bool quiet = false;
  bool test_only = false;                    // --test-only: when and where it would start
  bool wait = false;                         // -W/--wait: until the job ends, exit with its code
  std::optional<std::string> export_file;    // --export-file: a file name or a descriptor number
  std::vector<std::string> export_file_env;  // its definitions ("K=V"), read by RunSbatch
  bool open_append = false;                  // --open-mode=append
  // --signal=[{R|B}:]SIG[@SECONDS]: SIG this long (60 s by default) before the time limit.
  int warn_signal = 0;
  uint32_t warn_seconds = 0;
  bool warn_batch_only = false;  // B:
  std::optional<std::string> wrap;
  std::optional<std::string> dependency;
  std::optional<std::string> array;  // -a/--array, checked by the controller
  std::optional<std::string> gres;   // TresPerNode form: "gres:gpu:4"
  // --gpus, --gpus-per-task ([type:]count), --cpus-per-gpu, --mem-per-gpu: ResolveGpuOptions
  // turns them into gres, cpus_per_task and mem_mb.
  std::optional<text::GresSpec> gpus;
  std::optional<text::GresSpec> gpus_per_task;
  std::optional<uint32_t> cpus_per_gpu;
  std::optional<uint64_t> mem_per_gpu_mb;
  uint32_t kill_on_invalid_dep = 0;
};

// The outcome of applying one option.
struct OptionResult {
  bool ok = true;
  std::string message;  // the text after "sbatch: error: " (or the full line when `fatal`)
  int exit_code = 0;
};

// Applies one parsed option. Help/usage/version and unsupported options are the caller's; this
// returns ok for them without changing `options`.
OptionResult ApplySbatchOption(SbatchOptions* options, int id,
                               const std::optional<std::string>& value, UnixTime now,
                               const TimeZone& tz);

// Checks across options after everything is applied ("--mem, --mem-per-cpu, and --mem-per-gpu are
// mutually exclusive." is fatal, exit 1).
OptionResult VerifySbatchOptions(const SbatchOptions& options);

// Turns the GPU options into what the controller schedules by, per node: the GPUs (--gres or
// --gpus-per-node as given; else --gpus-per-task x tasks per node; else --gpus spread evenly
// over the nodes, rounded up), CPUs per task from --cpus-per-gpu (unless -c was given) and the
// memory per node from --mem-per-gpu. Tasks per node: --ntasks-per-node, else ceil(-n / -N),
// else 1. Call after VerifySbatchOptions.
void ResolveGpuOptions(SbatchOptions* options);

// sbatch's --help and --usage texts.
extern const char kSbatchHelp[];
extern const char kSbatchUsage[];

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SBATCH_OPTIONS_H_
