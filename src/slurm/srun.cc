// srun: runs a job step's tasks through the node agents, inside a job's allocation (a batch
// script or salloc: SLURM_JOB_ID, or --jobid) or, outside one, inside an allocation it makes
// first and releases at the end (slurm/allocation.h), as Slurm's srun does.
//
// The step: srun listens for the agents (slurm/srun_io.h), asks the controller for the step
// with its shape (-n, -N, --ntasks-per-node, -c, -m, -w: state/step_plan.h) and what to run
// (the command, srun's environment with --export applied, the working directory, its
// address and key); each step node's agent starts its tasks and streams them back. srun prints
// their output line by line (-u: as it comes; -l labels each line "RANK: ", padded to the
// widest rank; -o/-e/-i take files with %j %J %s %t %n %N %u %x %% patterns, or "none"),
// forwards its stdin to every task, and forwards SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and
// SIGCONT. Ctrl-C once prints the tasks' state ("srun: interrupt (one more within 1 sec to
// abort)"); twice within a second sends SIGINT to every task ("srun: sending Ctrl-C to
// StepId=J.S", "srun: forcing job termination") and SIGKILL once KillWait + 2 s have passed;
// another pair kills at once. -K/--kill-on-bad-exit ends the rest when a task exits non-zero,
// -W/--wait=S S seconds after the first task ended (SIGTERM, SIGKILL 10 s later).
//
// The exit code is the worst task's (its exit code, 128+signal when a signal ended it), with
// "srun: error: NODE: task(s) R: Exited with exit code C" (or the signal's name) per node, as
// Slurm prints them; the step's end (the worst wait status, the tasks' summed CPU times and
// largest RSS) is recorded with the controller (sacct's N.S line).
#include <fcntl.h>
#include <netdb.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "model/task_layout.h"
#include "slurm/allocation.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"
#include "slurm/sbatch.h"
#include "slurm/sbatch_options.h"
#include "slurm/srun_io.h"
#include "text/array_spec.h"
#include "text/ascii.h"
#include "text/filename_pattern.h"

namespace gantry::slurm {
namespace {

using Clock = std::chrono::steady_clock;

// srun's own options (allocation options take sbatch's ids, so ApplySbatchOption reads them).
enum : int {
  kSrunHelp = 0x300,
  kSrunUsage,
  kCpuBind,
  kExact,
  kJobId,
  kMpi,
  kOverlap,
  kPty,
};

constexpr ShortOption kSrunShort[] = {
    {'A', ArgKind::kRequired}, {'c', ArgKind::kRequired}, {'C', ArgKind::kRequired},
    {'D', ArgKind::kRequired}, {'e', ArgKind::kRequired}, {'G', ArgKind::kRequired},
    {'h', ArgKind::kNone},     {'i', ArgKind::kRequired}, {'J', ArgKind::kRequired},
    {'K', ArgKind::kOptional}, {'l', ArgKind::kNone},     {'m', ArgKind::kRequired},
    {'n', ArgKind::kRequired}, {'N', ArgKind::kRequired}, {'o', ArgKind::kRequired},
    {'p', ArgKind::kRequired}, {'q', ArgKind::kRequired}, {'Q', ArgKind::kNone},
    {'t', ArgKind::kRequired}, {'u', ArgKind::kNone},     {'v', ArgKind::kNone},
    {'V', ArgKind::kNone},     {'w', ArgKind::kRequired}, {'W', ArgKind::kRequired},
    {'x', ArgKind::kRequired},
};

// The srun 22.05 options Gantry takes; any other is unknown to it.
constexpr LongOption kSrunLong[] = {
    {"account", ArgKind::kRequired, 'A'},
    {"chdir", ArgKind::kRequired, 'D'},
    {"constraint", ArgKind::kRequired, 'C'},
    {"cpu-bind", ArgKind::kRequired, kCpuBind},
    {"cpus-per-task", ArgKind::kRequired, 'c'},
    {"distribution", ArgKind::kRequired, 'm'},
    {"error", ArgKind::kRequired, 'e'},
    {"exact", ArgKind::kNone, kExact},
    {"exclude", ArgKind::kRequired, 'x'},
    {"exclusive", ArgKind::kOptional, kOptExclusive},
    {"export", ArgKind::kRequired, kOptExport},
    {"gpus-per-node", ArgKind::kRequired, kOptGpusPerNode},
    {"gpus-per-task", ArgKind::kRequired, kOptGpusPerTask},
    {"gpus", ArgKind::kRequired, 'G'},
    {"cpus-per-gpu", ArgKind::kRequired, kOptCpusPerGpu},
    {"mem-per-gpu", ArgKind::kRequired, kOptMemPerGpu},
    {"gres", ArgKind::kRequired, kOptGres},
    {"help", ArgKind::kNone, kSrunHelp},
    {"input", ArgKind::kRequired, 'i'},
    {"job-name", ArgKind::kRequired, 'J'},
    {"jobid", ArgKind::kRequired, kJobId},
    {"kill-on-bad-exit", ArgKind::kOptional, 'K'},
    {"label", ArgKind::kNone, 'l'},
    {"mem", ArgKind::kRequired, kOptMem},
    {"mem-per-cpu", ArgKind::kRequired, kOptMemPerCpu},
    {"mpi", ArgKind::kRequired, kMpi},
    {"nodelist", ArgKind::kRequired, 'w'},
    {"nodes", ArgKind::kRequired, 'N'},
    {"ntasks", ArgKind::kRequired, 'n'},
    {"ntasks-per-node", ArgKind::kRequired, kOptNtasksPerNode},
    {"output", ArgKind::kRequired, 'o'},
    {"overlap", ArgKind::kNone, kOverlap},
    {"partition", ArgKind::kRequired, 'p'},
    {"pty", ArgKind::kNone, kPty},
    {"qos", ArgKind::kRequired, 'q'},
    {"quiet", ArgKind::kNone, 'Q'},
    {"time", ArgKind::kRequired, 't'},
    {"unbuffered", ArgKind::kNone, 'u'},
    {"usage", ArgKind::kNone, kSrunUsage},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
    {"wait", ArgKind::kRequired, 'W'},
};

constexpr char kSrunUsageText[] =
    "Usage: srun [-N nnodes] [-n ntasks] [-c ncpus] [-m dist] [-w hosts] [-D path] [-J jobname]\n"
    "            [--jobid=id] [-l] [-o out] [-e err] [-i in] [-K] [-W sec] [--gpus-per-task=n]\n"
    "            [-p partition] [-t time] [-A account] [--gres=list] executable [args...]\n";

constexpr char kSrunHelpText[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]\n"
    "\n"
    "Parallel run options:\n"
    "  -A, --account=name          charge job to specified account\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "  -C, --constraint=list       specify a list of constraints\n"
    "      --cpu-bind=...          binding of tasks to CPUs (passed on as SLURM_CPU_BIND)\n"
    "  -D, --chdir=path            change remote current working directory\n"
    "  -e, --error=err             location of stderr redirection\n"
    "      --export=env_vars|NONE  environment variables passed to launcher with\n"
    "                              optional values or NONE (pass no variables)\n"
    "  -i, --input=in              location of stdin redirection\n"
    "  -J, --job-name=jobname      name of job\n"
    "      --jobid=id              run under already allocated job\n"
    "  -K, --kill-on-bad-exit      kill the job if any task terminates with a\n"
    "                              non-zero exit code\n"
    "  -l, --label                 prepend task number to lines of stdout/err\n"
    "  -m, --distribution=type     distribution method for processes to nodes\n"
    "                              (type = block|cyclic|plane=size)\n"
    "  -n, --ntasks=ntasks         number of tasks to run\n"
    "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
    "  -o, --output=out            location of stdout redirection\n"
    "  -p, --partition=partition   partition requested\n"
    "  -q, --qos=qos               quality of service\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "  -t, --time=minutes          time limit\n"
    "  -u, --unbuffered            do not line-buffer stdout/err\n"
    "  -W, --wait=sec              seconds to wait after first task exits\n"
    "                              before killing job\n"
    "  -w, --nodelist=hosts...     request a specific list of hosts\n"
    "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
    "\n"
    "Consumable resources related options:\n"
    "      --exact                 use only the resources requested for the step\n"
    "      --exclusive             for job allocation: do not share nodes\n"
    "      --gres=list             required generic resources\n"
    "  -G, --gpus=n                count of GPUs required for the job\n"
    "      --gpus-per-node=n       number of GPUs required per allocated node\n"
    "      --gpus-per-task=n       number of GPUs required per spawned task; each task\n"
    "                              sees only its own (CUDA_VISIBLE_DEVICES)\n"
    "      --mem=MB                minimum amount of real memory\n"
    "      --mem-per-cpu=MB        maximum amount of real memory per allocated cpu\n"
    "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
    "      --mem-per-gpu=MB        real memory required per allocated GPU\n"
    "      --overlap               share the allocation's resources with other steps\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n"
    "\n"
    "Other options:\n"
    "  -V, --version               output version information and exit\n";

// The options that shape an allocation of srun's own (passed to ApplySbatchOption).
bool IsAllocationOption(int id) {
  switch (id) {
    case 'A':
    case 'c':
    case 'C':
    case 'D':
    case 'J':
    case 'n':
    case 'N':
    case 'p':
    case 'q':
    case 't':
    case 'w':
    case 'x':
    case kOptExclusive:
    case kOptExport:
    case kOptGpusPerNode:
    case kOptGres:
    case kOptMem:
    case kOptMemPerCpu:
    case kOptNtasksPerNode:
      return true;
    default:
      return false;
  }
}

// Caught signals go through this pipe to the I/O loop (one byte each).
int g_signal_pipe[2] = {-1, -1};

void Caught(int sig) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(sig);
  if (write(g_signal_pipe[1], &byte, 1) < 0) {
  }
  errno = saved;
}

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};

bool InstallSignalPipe() {
  if (pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  struct sigaction action {};
  action.sa_handler = Caught;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : kForwarded) sigaction(sig, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);  // an agent that closed its stream is seen as a failed write
  return true;
}

// A signal caught while no step runs yet (while waiting for an allocation).
bool InterruptPending() {
  unsigned char byte = 0;
  bool interrupted = false;
  while (read(g_signal_pipe[0], &byte, 1) == 1) {
    interrupted = interrupted || byte == SIGINT || byte == SIGTERM || byte == SIGHUP;
  }
  return interrupted;
}

// The address the agents connect back to: this host's name when it resolves, else loopback.
std::string OwnAddress() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(name, nullptr, &hints, &found) == 0) {
      freeaddrinfo(found);
      return name;
    }
  }
  return "127.0.0.1";
}

// What each rank runs on, from the step the controller recorded.
struct SrunLayout {
  std::vector<std::string> node_of;  // per rank
  std::vector<uint32_t> node_index_of;
  std::map<std::string, std::vector<uint32_t>> ranks_of;
};

SrunLayout LayoutOf(const v1::JobStep& step) {
  const std::vector<uint32_t> counts(step.tasks_per_node().begin(), step.tasks_per_node().end());
  const model::Distribution distribution =
      model::ParseDistribution(step.distribution()).value_or(model::Distribution{});
  const auto ranks = model::TaskRanks(counts, distribution.kind, distribution.plane_size);
  SrunLayout layout;
  uint32_t total = 0;
  for (uint32_t c : counts) total += c;
  layout.node_of.resize(total);
  layout.node_index_of.resize(total);
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (uint32_t r : ranks[i]) {
      if (r >= total) continue;
      layout.node_of[r] = step.nodes(static_cast<int>(i));
      layout.node_index_of[r] = static_cast<uint32_t>(i);
      layout.ranks_of[step.nodes(static_cast<int>(i))].push_back(r);
    }
  }
  return layout;
}

// Where the tasks' output goes: srun's stdout/stderr (labelled with -l) or -o/-e files.
class Output {
 public:
  Output(bool label, bool unbuffered, uint32_t ntasks, std::string out_pattern,
         std::string err_pattern, text::FilenameContext names, const SrunLayout& layout,
         std::string cwd)
      : label_(label),
        unbuffered_(unbuffered),
        width_(std::to_string(ntasks > 0 ? ntasks - 1 : 0).size()),
        patterns_{std::move(out_pattern), std::move(err_pattern)},
        names_(std::move(names)),
        layout_(layout),
        cwd_(std::move(cwd)) {}
  ~Output() {
    for (const auto& [key, fd] : files_) close(fd);
  }

  // Whole lines only (so that tasks' lines never mix), unless unbuffered (-u) without -l.
  void Write(uint32_t rank, bool is_stderr, std::string_view data) {
    const int fd = FdFor(rank, is_stderr);
    if (fd < 0) return;
    if (unbuffered_ && !label_) {
      WriteAll(fd, data);
      return;
    }
    std::string& partial = partial_[{rank, is_stderr}];
    partial.append(data);
    size_t start = 0;
    for (size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      WriteAll(fd, (label_ ? Label(rank) : "") + partial.substr(start, nl + 1 - start));
    }
    partial.erase(0, start);
  }
  // The last line of a task that ended without a newline.
  void Flush(uint32_t rank) {
    for (bool is_stderr : {false, true}) {
      auto it = partial_.find({rank, is_stderr});
      if (it == partial_.end() || it->second.empty()) continue;
      const int fd = FdFor(rank, is_stderr);
      if (fd >= 0) WriteAll(fd, (label_ ? Label(rank) : "") + it->second);
      it->second.clear();
    }
  }
  std::string Label(uint32_t rank) const {
    std::string text = std::to_string(rank);
    return std::string(width_ > text.size() ? width_ - text.size() : 0, ' ') + text + ": ";
  }

 private:
  static void WriteAll(int fd, std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = write(fd, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      data.remove_prefix(static_cast<size_t>(n));
    }
  }
  int FdFor(uint32_t rank, bool is_stderr) {
    const std::string& pattern = patterns_[is_stderr && !patterns_[1].empty() ? 1 : 0];
    if (pattern.empty()) return is_stderr ? STDERR_FILENO : STDOUT_FILENO;
    if (text::EqualsIgnoreCase(pattern, "none")) return -1;
    text::FilenameContext names = names_;
    names.task_id = rank;
    if (rank < layout_.node_of.size()) {
      names.node_name = layout_.node_of[rank];
      names.node_index = layout_.node_index_of[rank];
    }
    Result<std::string> expanded = text::ExpandStdioPath(pattern, names, cwd_);
    if (!expanded.ok()) return -1;
    const std::string& path = *expanded;
    auto it = files_.find(path);
    if (it != files_.end()) return it->second;
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0666);
    files_.emplace(path, fd);
    return fd;
  }

  const bool label_;
  const bool unbuffered_;
  const size_t width_;
  const std::string patterns_[2];
  const text::FilenameContext names_;  // the step's; FdFor adds the task's
  const SrunLayout& layout_;
  const std::string cwd_;
  std::map<std::pair<uint32_t, bool>, std::string> partial_;
  std::map<std::string, int> files_;
};

// The exit code srun reports for a task's wait status.
int CodeOf(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::string DescribeEnd(const TaskEnd& end) {
  if (WIFSIGNALED(end.wait_status)) return strsignal(WTERMSIG(end.wait_status));
  return "Exited with exit code " + std::to_string(CodeOf(end.wait_status));
}

// KillWait from the controller's configuration (30 s, Slurm's default, when unknown).
uint32_t KillWaitOf(ControllerClient& client) {
  Result<v1::GetConfigReply> config = client.GetConfig(v1::GetConfigRequest());
  if (config.ok()) {
    for (const v1::ConfigEntry& e : config->entries()) {
      if (e.key() != "KillWait") continue;
      const std::optional<uint64_t> sec = ParseUnsigned(e.value().substr(0, e.value().find(' ')));
      if (sec) return static_cast<uint32_t>(std::min<uint64_t>(*sec, 65533));
    }
  }
  return 30;
}

// A task's start failure as slurmstepd words it: the agent's "execve(/bin/x): No such file or
// directory" becomes "execve(): /bin/x: No such file or directory".
std::string StepdError(const std::string& error) {
  const std::string prefix = "execve(";
  const size_t close = error.find("): ");
  if (error.rfind(prefix, 0) != 0 || close == std::string::npos) return error;
  return "execve(): " + error.substr(prefix.size(), close - prefix.size()) +
         error.substr(close + 1);
}

// "task 3" or "tasks 0-1,4".
std::string TasksText(std::vector<uint32_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  return (ranks.size() == 1 ? "task " : "tasks ") + text::FormatTaskIds(ranks);
}

struct SrunOptions {
  SbatchOptions alloc;  // -n, -N, -c, --ntasks-per-node, -J, -D, -w ... and allocation options
  std::optional<std::string> job_id;
  std::string cpu_bind;
  std::string distribution;
  bool label = false;
  bool unbuffered = false;
  bool kill_on_bad_exit = false;
  std::optional<uint32_t> wait_sec;
  uint32_t gpus_per_task = 0;
  std::string output, error, input;
  bool quiet = false;
};

int SrunFail(CommandContext& ctx, const std::string& message) {
  *ctx.err << "srun: error: " << message << "\n";
  return 1;
}

}  // namespace

int RunSrun(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed =
      ParseArgs(ctx.argv0, args, kSrunShort, kSrunLong, ArgOrder::kRequireOrder);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "srun", parsed.error);
    return 255;
  }
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  SrunOptions o;
  o.job_id = ctx.GetEnv("SLURM_JOB_ID");
  // Inside an allocation, srun's input variables give the defaults (the command line wins).
  for (const auto& [variable, id] : {std::pair<const char*, int>{"SLURM_NTASKS", 'n'},
                                     {"SLURM_NTASKS_PER_NODE", kOptNtasksPerNode},
                                     {"SLURM_CPUS_PER_TASK", 'c'}}) {
    if (!o.job_id) break;
    if (std::optional<std::string> value = ctx.GetEnv(variable)) {
      (void)ApplySbatchOption(&o.alloc, id, value, ctx.now, tz);
    }
  }
  for (const ParsedOption& opt : parsed.options) {
    const std::string value = opt.value.value_or("");
    if (IsAllocationOption(opt.id)) {
      const OptionResult r = ApplySbatchOption(&o.alloc, opt.id, opt.value, ctx.now, tz);
      if (!r.ok) return SrunFail(ctx, r.message);
      continue;
    }
    switch (opt.id) {
      case kCpuBind:
        o.cpu_bind = value;
        break;
      case 'm': {
        const std::optional<model::Distribution> d = model::ParseDistribution(value);
        if (!d) {
          return SrunFail(ctx, "Invalid --distribution specification: " + value +
                                   " (Gantry lays tasks out block, cyclic or plane=N)");
        }
        o.distribution = d->ToString();
        break;
      }
      case 'l':
        o.label = true;
        break;
      case 'K':
        o.kill_on_bad_exit = value.empty() || value != "0";
        break;
      case 'W': {
        const std::optional<uint64_t> sec = ParseUnsigned(value);
        if (!sec) return SrunFail(ctx, "Invalid numeric value \"" + value + "\" for --wait.");
        if (*sec > 0) o.wait_sec = static_cast<uint32_t>(std::min<uint64_t>(*sec, 65535));
        break;
      }
      case kOptGpusPerTask: {  // the allocation's request, and each task's own GPUs
        const OptionResult r = ApplySbatchOption(&o.alloc, opt.id, opt.value, ctx.now, tz);
        if (!r.ok) return SrunFail(ctx, r.message);
        o.gpus_per_task =
            static_cast<uint32_t>(std::min<int64_t>(o.alloc.gpus_per_task->count, 1024));
        break;
      }
      case 'o':
        o.output = value;
        break;
      case 'e':
        o.error = value;
        break;
      case 'i':
        o.input = value;
        break;
      case kJobId:
        o.job_id = value;
        break;
      case 'Q':
        o.quiet = true;
        break;
      case 'u':
        o.unbuffered = true;
        break;
      case kPty:
        return SrunFail(ctx, "--pty is not supported by Gantry yet");
      case kSrunHelp:
        *ctx.out << kSrunHelpText;
        return 0;
      case kSrunUsage:
        *ctx.out << kSrunUsageText;
        return 0;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      default:  // --exact, --overlap, --mpi, -v: steps share the allocation's resources
        break;
    }
  }
  if (const OptionResult r = VerifySbatchOptions(o.alloc); !r.ok) {
    *ctx.err << "srun: fatal: " << r.message << "\n";
    return r.exit_code;
  }
  ResolveGpuOptions(&o.alloc);
  if (parsed.operands.empty()) {
    *ctx.err << "srun: fatal: No command given to execute.\n";
    return 1;
  }
  std::optional<uint64_t> job_number;
  if (o.job_id) {
    job_number = ParseUnsigned(*o.job_id);
    if (!job_number || *job_number == 0 || *job_number > UINT32_MAX) {
      return SrunFail(ctx, "Invalid job id specified: " + *o.job_id);
    }
  }
  if (o.alloc.ntasks && o.alloc.min_nodes && *o.alloc.ntasks < *o.alloc.min_nodes) {
    *ctx.err << "srun: Warning: can't run " << *o.alloc.ntasks << " processes on "
             << *o.alloc.min_nodes << " nodes, setting nnodes to " << *o.alloc.ntasks << "\n";
    o.alloc.min_nodes = o.alloc.ntasks;
    o.alloc.max_nodes.reset();
  }
  if (!InstallSignalPipe()) return SrunFail(ctx, std::string("pipe: ") + strerror(errno));

  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "srun", "srun: error: ");
  if (!client) return 1;
  const std::string& program = parsed.operands[0];
  const std::string program_name = program.substr(program.rfind('/') + 1);

  // Outside an allocation: one of srun's own, released when the step is over.
  std::optional<v1::Job> own;
  std::vector<std::string> environment =
      BatchEnvironment(ctx.environment, o.alloc.export_env.value_or("ALL"));
  if (!job_number) {
    Result<v1::Job> job = AcquireAllocation(*client, AllocationRequest(o.alloc, program_name, ctx),
                                            AllocationStyle::kSrun, ctx, InterruptPending);
    if (!job.ok()) return 1;
    own = *job;
    job_number = job->job_id();
    for (const std::string& entry : AllocationEnvironment(*job, ctx)) {
      environment.push_back(entry);
    }
  }
  const auto job_id = static_cast<uint32_t>(*job_number);
  auto release = [&](int status) {
    if (own) ReleaseAllocation(*client, job_id, status, AllocationStyle::kSrun, ctx);
  };
  {
    char mask[8];
    std::snprintf(mask, sizeof(mask), "%04o", ctx.umask & 0777);
    environment.push_back(std::string("SLURM_UMASK=") + mask);
  }

  Result<std::unique_ptr<StepIoServer>> io = StepIoServer::Listen(OwnAddress());
  if (!io.ok()) {
    release(1 << 8);
    return SrunFail(ctx, io.status().message());
  }
  StepIoServer& server = **io;
  v1::JobStepRequest start;
  start.set_job_id(job_id);
  start.set_name(o.alloc.job_name.value_or(program_name));
  start.set_num_tasks(o.alloc.ntasks.value_or(0));
  start.set_num_nodes(o.alloc.min_nodes.value_or(0));
  start.set_ntasks_per_node(o.alloc.ntasks_per_node.value_or(0));
  start.set_cpus_per_task(o.alloc.cpus_per_task.value_or(0));
  start.set_distribution(o.distribution);
  if (!own) start.set_node_list(o.alloc.nodelist.value_or(""));
  v1::StepLaunch& launch = *start.mutable_launch();
  for (const std::string& a : parsed.operands) launch.add_argv(a);
  for (const std::string& e : environment) launch.add_environment(e);
  launch.set_work_dir(o.alloc.chdir ? Absolute(*o.alloc.chdir, ctx.cwd) : ctx.cwd);
  launch.set_io_host(server.host());
  launch.set_io_port(server.port());
  launch.set_io_key(server.key());
  launch.set_gpus_per_task(o.gpus_per_task);
  launch.set_cpu_bind(o.cpu_bind);
  Result<v1::JobStepReply> reply = client->JobStep(start);
  if (!reply.ok()) {
    *ctx.err << "srun: error: Unable to create step for job " << job_id << ": "
             << reply.status().message() << "\n";
    release(1 << 8);
    return 1;
  }
  const v1::JobStep& step = reply->step();
  const std::string step_name =
      "StepId=" + std::to_string(job_id) + "." + std::to_string(step.step_id());
  const SrunLayout layout = LayoutOf(step);
  const auto ntasks = static_cast<uint32_t>(layout.node_of.size());

  text::FilenameContext names;
  names.job_id = job_id;
  names.step_id = step.step_id();
  names.user = ctx.UserName(ctx.uid);
  names.job_name = start.name();
  Output output(o.label, o.unbuffered, ntasks, o.output, o.error, names, layout, ctx.cwd);
  // srun's stdin goes to the tasks; a terminal srun is not in the foreground of is not read
  // (reading it would stop srun with SIGTTIN).
  int stdin_fd =
      isatty(STDIN_FILENO) != 0 && tcgetpgrp(STDIN_FILENO) != getpgrp() ? -1 : STDIN_FILENO;
  int opened_input = -1;
  if (!o.input.empty()) {
    if (text::EqualsIgnoreCase(o.input, "none")) {
      stdin_fd = -1;
    } else {
      Result<std::string> expanded = text::ExpandStdioPath(o.input, names, ctx.cwd);
      const std::string path = expanded.ok() ? *expanded : o.input;
      opened_input = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (opened_input < 0) {
        *ctx.err << "srun: error: Could not open stdin file: " << path << ": " << strerror(errno)
                 << "\n";
      }
      stdin_fd = opened_input;
    }
  }

  std::vector<TaskEnd> ends;
  std::set<uint32_t> running;
  for (uint32_t r = 0; r < ntasks; ++r) running.insert(r);
  Clock::time_point last_interrupt{};
  int interrupts_sent = 0;
  bool aborted = false;  // Ctrl-C twice: the tasks' ends are not reported one by one
  bool terminating = false;
  std::optional<Clock::time_point> first_end;
  // -K and -W end the rest as Slurm does: SIGTERM, SIGKILL if they are still there 10 s later.
  std::optional<Clock::time_point> kill_at;
  auto terminate = [&] {
    if (terminating) return;
    terminating = true;
    *ctx.err << "srun: launch/slurm: _step_signal: Terminating " << step_name << "\n";
    ctx.err->flush();
    server.SendSignal(SIGCONT);
    server.SendSignal(SIGTERM);
    kill_at = Clock::now() + std::chrono::seconds(10);
  };
  StepIoHooks hooks;
  hooks.output = [&](uint32_t rank, bool is_stderr, std::string_view data) {
    output.Write(rank, is_stderr, data);
  };
  // A node's failed tasks are reported once all its tasks ended (Slurm: as its exit message
  // arrives), grouped by outcome: "srun: error: n1: tasks 0-1: Exited with exit code 3".
  std::map<std::string, size_t> running_on;
  for (const auto& [node, ranks] : layout.ranks_of) running_on[node] = ranks.size();
  std::map<std::string, std::map<std::string, std::vector<uint32_t>>> failed_on;
  hooks.task_ended = [&](const TaskEnd& end) {
    output.Flush(end.rank);
    running.erase(end.rank);
    if (!end.error.empty() && end.wait_status == (2 << 8)) {
      *ctx.err << "slurmstepd-" << end.node << ": error: " << StepdError(end.error) << "\n";
    }
    if (end.wait_status != 0) {
      const bool lost = !end.error.empty() && end.wait_status != (2 << 8);
      failed_on[end.node][lost ? end.error : DescribeEnd(end)].push_back(end.rank);
    }
    if (--running_on[end.node] == 0 && !aborted) {
      for (const auto& [what, ranks] : failed_on[end.node]) {
        *ctx.err << "srun: error: " << end.node << ": " << TasksText(ranks) << ": " << what << "\n";
      }
      ctx.err->flush();
    }
    ends.push_back(end);
    if (!first_end) first_end = Clock::now();
    if (o.kill_on_bad_exit && end.wait_status != 0 && !running.empty()) terminate();
  };
  hooks.caught = [&](int sig) {
    if (sig != SIGINT) {
      server.SendSignal(sig);
      return;
    }
    const Clock::time_point now = Clock::now();
    if (now - last_interrupt > std::chrono::seconds(1)) {
      last_interrupt = now;
      *ctx.err << "srun: interrupt (one more within 1 sec to abort)\n";
      std::vector<uint32_t> still(running.begin(), running.end());
      if (!still.empty()) {
        *ctx.err << "srun: " << step_name << " " << TasksText(still) << ": running\n";
      }
      ctx.err->flush();
      return;
    }
    // Twice within a second: Ctrl-C to the tasks, then, as Slurm's job_force_termination,
    // SIGKILL once KillWait (+2 s) has passed; a further pair kills at once.
    aborted = true;
    if (interrupts_sent++ == 0) {
      *ctx.err << "srun: sending Ctrl-C to " << step_name << "\n";
      server.SendSignal(SIGINT);
      const uint32_t wait = KillWaitOf(*client) + 2;
      *ctx.err << "srun: forcing job termination\n"
               << "srun: Job step aborted: Waiting up to " << wait
               << " seconds for job step to finish.\n";
      kill_at = Clock::now() + std::chrono::seconds(wait);
    } else {
      server.SendSignal(SIGKILL);
    }
    ctx.err->flush();
  };
  hooks.tick = [&] {
    if (kill_at && Clock::now() >= *kill_at) {
      server.SendSignal(SIGKILL);
      kill_at.reset();
    }
    if (o.wait_sec && first_end && !running.empty() && !terminating &&
        Clock::now() - *first_end >= std::chrono::seconds(*o.wait_sec)) {
      *ctx.err << "srun: First task exited " << *o.wait_sec << "s ago\n";
      std::vector<uint32_t> still(running.begin(), running.end());
      *ctx.err << "srun: " << step_name << " " << TasksText(still) << ": running\n";
      terminate();
    }
  };
  ctx.out->flush();
  ctx.err->flush();
  server.Serve(layout.ranks_of, stdin_fd, g_signal_pipe[0], std::chrono::seconds(30), hooks);
  if (opened_input >= 0) close(opened_input);

  // Messages per node and outcome, the exit code (the worst task's), and the step's end.
  int worst_code = 0;
  int worst_status = 0;
  v1::JobUsage usage;
  for (const TaskEnd& end : ends) {
    const int code = CodeOf(end.wait_status);
    if (code > worst_code) {
      worst_code = code;
      worst_status = end.wait_status;
    }
    // CPU times add up; the memory and I/O figures are the largest task's (sacct's Max*),
    // the averages the mean over the tasks.
    const v1::JobUsage& u = end.usage;
    usage.set_user_cpu_usec(usage.user_cpu_usec() + u.user_cpu_usec());
    usage.set_system_cpu_usec(usage.system_cpu_usec() + u.system_cpu_usec());
    usage.set_max_rss_kib(std::max(usage.max_rss_kib(), u.max_rss_kib()));
    usage.set_max_vmsize_kib(std::max(usage.max_vmsize_kib(), u.max_vmsize_kib()));
    usage.set_disk_read_bytes(std::max(usage.disk_read_bytes(), u.disk_read_bytes()));
    usage.set_disk_write_bytes(std::max(usage.disk_write_bytes(), u.disk_write_bytes()));
    usage.set_ave_rss_kib(usage.ave_rss_kib() + u.ave_rss_kib() / static_cast<int64_t>(ntasks));
    usage.set_ave_vmsize_kib(usage.ave_vmsize_kib() +
                             u.ave_vmsize_kib() / static_cast<int64_t>(ntasks));
    usage.set_sampled(usage.sampled() || u.sampled());
  }
  if (terminating) *ctx.err << "srun: Force Terminated " << step_name << "\n";
  v1::JobStepRequest end;
  end.set_job_id(job_id);
  end.set_end(true);
  end.set_step_id(step.step_id());
  end.set_exit_status(worst_status);
  *end.mutable_usage() = usage;
  (void)client->JobStep(end);  // best effort: the job's end closes the step too
  ctx.err->flush();
  release(worst_status);
  return worst_code;
}

}  // namespace gantry::slurm
