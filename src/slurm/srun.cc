// srun, first version: inside a job allocation (a batch script, SLURM_JOB_ID set), runs one task
// of a command on this node, the job's batch host, as Slurm's `srun -n1 CMD` does there:
// the task inherits the environment plus the step's SLURM_* variables, srun forwards SIGINT,
// SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 to it, waits, and exits with its exit code (128+signal
// when a signal ended it), saying "srun: error: NODE: task 0: ..." as Slurm does when the task
// failed. Workflow engines (Snakemake's slurm executor) wrap every rule in exactly this. Each
// run is a job step recorded with the controller (its id in SLURM_STEP_ID, sacct's N.0, N.1...
// lines with the step's end); srun fails when the controller cannot record it.
//
// Not yet (the distributed-training issue): more than one task or node, an allocation of its
// own outside a job, per-step output files. Those options are refused with a clear error rather
// than ignored.
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "proc/proc.h"
#include "proc/usage_sampler.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/controller_client.h"

namespace gantry::slurm {
namespace {

enum : int {
  kHelp = 0x100,
  kUsage,
  kCpuBind,
  kExact,
  kExport,
  kJobId,
  kMem,
  kMemPerCpu,
  kMpi,
  kNtasksPerNode,
  kOverlap,
};

constexpr ShortOption kShort[] = {
    {'c', ArgKind::kRequired}, {'D', ArgKind::kRequired}, {'h', ArgKind::kNone},
    {'J', ArgKind::kRequired}, {'l', ArgKind::kNone},     {'n', ArgKind::kRequired},
    {'N', ArgKind::kRequired}, {'Q', ArgKind::kNone},     {'u', ArgKind::kNone},
    {'v', ArgKind::kNone},     {'V', ArgKind::kNone},
};

// The srun 22.05 options this version takes; any other is unknown to it.
constexpr LongOption kLong[] = {
    {"chdir", ArgKind::kRequired, 'D'},
    {"cpu-bind", ArgKind::kRequired, kCpuBind},
    {"cpus-per-task", ArgKind::kRequired, 'c'},
    {"exact", ArgKind::kNone, kExact},
    {"export", ArgKind::kRequired, kExport},
    {"help", ArgKind::kNone, kHelp},
    {"job-name", ArgKind::kRequired, 'J'},
    {"jobid", ArgKind::kRequired, kJobId},
    {"label", ArgKind::kNone, 'l'},
    {"mem", ArgKind::kRequired, kMem},
    {"mem-per-cpu", ArgKind::kRequired, kMemPerCpu},
    {"mpi", ArgKind::kRequired, kMpi},
    {"nodes", ArgKind::kRequired, 'N'},
    {"ntasks", ArgKind::kRequired, 'n'},
    {"ntasks-per-node", ArgKind::kRequired, kNtasksPerNode},
    {"overlap", ArgKind::kNone, kOverlap},
    {"quiet", ArgKind::kNone, 'Q'},
    {"unbuffered", ArgKind::kNone, 'u'},
    {"usage", ArgKind::kNone, kUsage},
    {"verbose", ArgKind::kNone, 'v'},
    {"version", ArgKind::kNone, 'V'},
};

constexpr char kUsageText[] =
    "Usage: srun [-N nnodes] [-n ntasks] [-c ncpus] [-D path] [-J jobname] [--jobid=id]\n"
    "            [--cpu-bind=...] [--export=ALL] [--unbuffered] executable [args...]\n";

constexpr char kHelpText[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]\n"
    "\n"
    "Gantry runs srun inside a job allocation (a batch script): one task on the job's batch\n"
    "host.\n"
    "\n"
    "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
    "      --cpu-bind=...          binding of tasks to CPUs (accepted; the task gets the job's)\n"
    "  -D, --chdir=path            change remote current working directory\n"
    "      --export=ALL            environment variables passed to the task (ALL only)\n"
    "  -J, --job-name=jobname      name of the job step\n"
    "      --jobid=id              run under an already allocated job\n"
    "  -n, --ntasks=ntasks         number of tasks to run (1)\n"
    "  -N, --nodes=N               number of nodes on which to run (1)\n"
    "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
    "  -u, --unbuffered            do not line-buffer stdout/err\n"
    "  -v, --verbose               verbose mode\n"
    "\n"
    "Help options:\n"
    "  -h, --help                  show this help message\n"
    "      --usage                 display brief usage message\n"
    "\n"
    "Other options:\n"
    "  -V, --version               output version information and exit\n";

pid_t g_task = -1;  // the task, for the signal forwarder

void Forward(int sig) {
  if (g_task > 0) kill(g_task, sig);
}

// One count option: a positive number, else Slurm's error text.
bool CountIsOne(const CommandContext& ctx, const ParsedOption& o, const char* what) {
  const std::optional<uint64_t> n = ParseUnsigned(o.value.value_or(""));
  if (!n || *n == 0) {
    *ctx.err << "srun: error: Invalid numeric value \"" << o.value.value_or("") << "\" for --"
             << what << ".\n";
    return false;
  }
  if (*n > 1) {
    *ctx.err << "srun: error: --" << what << "=" << *n
             << ": Gantry's srun runs one task on one node for now\n";
    return false;
  }
  return true;
}

}  // namespace

int RunSrun(const std::vector<std::string>& args, CommandContext& ctx) {
  const ParsedArgs parsed = ParseArgs(ctx.argv0, args, kShort, kLong, ArgOrder::kRequireOrder);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "srun", parsed.error);
    return 1;
  }
  std::optional<std::string> job_id = ctx.GetEnv("SLURM_JOB_ID");
  std::string chdir;
  std::string cpu_bind;
  std::string step_name;
  for (const ParsedOption& o : parsed.options) {
    const std::string value = o.value.value_or("");
    switch (o.id) {
      case 'n':
        if (!CountIsOne(ctx, o, "ntasks")) return 1;
        break;
      case 'N':
        if (!CountIsOne(ctx, o, "nodes")) return 1;
        break;
      case kNtasksPerNode:
        if (!CountIsOne(ctx, o, "ntasks-per-node")) return 1;
        break;
      case 'c':
        if (!ParseUnsigned(value).value_or(0)) {
          *ctx.err << "srun: error: Invalid numeric value \"" << value
                   << "\" for --cpus-per-task.\n";
          return 1;
        }
        break;
      case 'D':
        chdir = value;
        break;
      case kCpuBind:
        cpu_bind = value;
        break;
      case kExport:
        if (value != "ALL") {
          *ctx.err << "srun: error: --export=" << value
                   << " is not supported by Gantry yet (only ALL)\n";
          return 1;
        }
        break;
      case 'J':
        step_name = value;
        break;
      case kJobId:
        job_id = value;
        break;
      case 'l':
        *ctx.err << "srun: error: --label is not supported by Gantry yet\n";
        return 1;
      case kHelp:
        *ctx.out << kHelpText;
        return 0;
      case kUsage:
        *ctx.out << kUsageText;
        return 0;
      case 'V':
        *ctx.out << kVersionLine;
        return 0;
      default:  // --exact, --overlap, --mem, --mem-per-cpu, --mpi, -Q, -u, -v: nothing to do
        break;  // for one task inside the job's own allocation
    }
  }
  if (!job_id || job_id->empty()) {
    *ctx.err << "srun: error: Gantry's srun runs inside a job allocation (an sbatch script) for "
                "now: SLURM_JOB_ID is not set\n";
    return 1;
  }
  if (ctx.GetEnv("SLURM_JOB_ID") != job_id) {
    *ctx.err << "srun: error: --jobid=" << *job_id
             << ": Gantry's srun runs only inside its own job's allocation for now\n";
    return 1;
  }
  if (parsed.operands.empty()) {
    *ctx.err << "srun: fatal: No command given to execute.\n";
    return 1;
  }
  const std::string node = ctx.GetEnv("SLURMD_NODENAME").value_or(ctx.hostname);

  // The step is recorded with the controller (sacct's N.0, N.1...), which gives its id.
  const std::optional<uint64_t> job_number = ParseUnsigned(*job_id);
  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "srun", "srun: error: ");
  if (!client) return 1;
  v1::JobStepRequest start;
  start.set_job_id(static_cast<uint32_t>(job_number.value_or(0)));
  const std::string& program = parsed.operands[0];
  start.set_name(!step_name.empty() ? step_name : program.substr(program.rfind('/') + 1));
  start.set_node(node);
  start.set_num_tasks(1);
  Result<v1::JobStepReply> step = client->JobStep(start);
  if (!step.ok()) {
    *ctx.err << "srun: error: Unable to create step for job " << *job_id << ": "
             << step.status().message() << "\n";
    return 1;
  }
  const std::string step_id = std::to_string(step->step_id());
  auto end_step = [&](int status, const struct rusage* used = nullptr,
                      const proc::UsageSamples* sampled = nullptr) {
    v1::JobStepRequest end;
    end.set_job_id(start.job_id());
    end.set_end(true);
    end.set_step_id(step->step_id());
    end.set_exit_status(status);
    if (used != nullptr) {
      v1::JobUsage& usage = *end.mutable_usage();
      usage.set_user_cpu_usec(int64_t{used->ru_utime.tv_sec} * 1000000 + used->ru_utime.tv_usec);
      usage.set_system_cpu_usec(int64_t{used->ru_stime.tv_sec} * 1000000 + used->ru_stime.tv_usec);
      usage.set_max_rss_kib(used->ru_maxrss);  // Linux: KiB
    }
    if (used != nullptr && sampled != nullptr && sampled->samples > 0) {
      v1::JobUsage& usage = *end.mutable_usage();
      usage.set_max_rss_kib(std::max<int64_t>(usage.max_rss_kib(), sampled->max_rss_kib));
      usage.set_max_vmsize_kib(static_cast<int64_t>(sampled->max_vmsize_kib));
      usage.set_ave_rss_kib(static_cast<int64_t>(sampled->ave_rss_kib()));
      usage.set_ave_vmsize_kib(static_cast<int64_t>(sampled->ave_vmsize_kib()));
      usage.set_disk_read_bytes(static_cast<int64_t>(sampled->read_bytes));
      usage.set_disk_write_bytes(static_cast<int64_t>(sampled->write_bytes));
      usage.set_sampled(true);
    }
    (void)client->JobStep(end);  // the step's end is best effort: the job's end closes it too
  };

  ctx.out->flush();
  ctx.err->flush();
  // The task gets a process group of its own (unless it may read a terminal), so that its
  // processes can be sampled apart from the rest of the job.
  const bool own_group = isatty(STDIN_FILENO) == 0;
  const pid_t pid = fork();
  if (pid < 0) {
    *ctx.err << "srun: error: fork: " << std::strerror(errno) << "\n";
    return 1;
  }
  if (pid == 0) {
    if (own_group) setpgid(0, 0);
    setenv("SLURM_STEP_ID", step_id.c_str(), 1);
    setenv("SLURM_STEPID", step_id.c_str(), 1);
    setenv("SLURM_PROCID", "0", 1);
    setenv("SLURM_LOCALID", "0", 1);
    setenv("SLURM_NODEID", "0", 1);
    setenv("SLURM_NTASKS", "1", 1);
    setenv("SLURM_NPROCS", "1", 1);
    setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    setenv("SLURM_STEP_NUM_NODES", "1", 1);
    setenv("SLURM_STEP_NODELIST", node.c_str(), 1);
    setenv("SLURM_STEP_TASKS_PER_NODE", "1", 1);
    setenv("SLURM_SRUN_COMM_HOST", "127.0.0.1", 1);
    if (!cpu_bind.empty()) setenv("SLURM_CPU_BIND", cpu_bind.c_str(), 1);
    if (!step_name.empty()) setenv("SLURM_JOB_NAME", step_name.c_str(), 1);
    if (!chdir.empty() && ::chdir(chdir.c_str()) != 0) {
      std::fprintf(stderr, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
                   chdir.c_str(), std::strerror(errno));
      if (::chdir("/tmp") != 0) _exit(1);
    }
    std::vector<char*> argv;
    for (const std::string& a : parsed.operands) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "slurmstepd: error: execve(): %s: %s\n", argv[0], std::strerror(errno));
    _exit(2);
  }
  g_task = pid;
  if (own_group) setpgid(pid, pid);  // also here: sampling must not miss it
  proc::UsageSampler sampler(
      [pid, own_group] {
        return own_group ? proc::GroupOrSessionMembers(pid, 0) : std::vector<pid_t>{pid};
      },
      "", std::chrono::seconds(step->acct_gather_frequency_sec()));
  struct sigaction forward {};
  forward.sa_handler = Forward;
  sigemptyset(&forward.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) sigaction(sig, &forward, nullptr);
  int status = 0;
  struct rusage used = {};
  while (wait4(pid, &status, 0, &used) < 0) {
    if (errno != EINTR) {
      *ctx.err << "srun: error: waitpid: " << std::strerror(errno) << "\n";
      end_step(SIGKILL);
      return 1;
    }
  }
  const proc::UsageSamples sampled = sampler.Stop();
  end_step(status, &used, &sampled);
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code != 0) {
      *ctx.err << "srun: error: " << node << ": task 0: Exited with exit code " << code << "\n";
    }
    return code;
  }
  const int sig = WTERMSIG(status);
  *ctx.err << "srun: error: " << node << ": task 0: " << strsignal(sig) << "\n";
  return 128 + sig;
}

}  // namespace gantry::slurm
