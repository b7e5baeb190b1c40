// salloc: an interactive allocation (slurm/allocation.h). It takes sbatch's allocation options
// (-N -n -c -p -t -A -q --gres --gpus-per-node --mem ... with the same checks and errors, under
// "salloc: error: "), waits for the job to run, then runs the command given (default: the
// user's $SHELL, else /bin/sh) on this host with the allocation's SLURM_* variables, so that
// srun inside it uses the allocation. When the command exits the allocation is released
// ("salloc: Relinquishing job allocation N") and salloc exits with the command's exit code.
// While the command runs salloc ignores SIGINT and SIGQUIT (they are the command's, from the
// terminal) and passes SIGTERM and SIGHUP on; when the allocation ends underneath it (scancel,
// time limit) it says "salloc: Job allocation N has been revoked." and sends the command SIGHUP.
// --no-shell: the allocation is made and kept; salloc exits at once (release it with scancel).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "model/job_state.h"
#include "slurm/allocation.h"
#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/sbatch_options.h"
#include "slurm_view/job_view.h"

namespace gantry::slurm {
namespace {

constexpr int kNoShell = 0x380;

const std::vector<LongOption>& SallocLongOptions() {
  static const std::vector<LongOption> options = [] {
    std::vector<LongOption> all(SbatchLongOptions().begin(), SbatchLongOptions().end());
    all.push_back({"no-shell", ArgKind::kNone, kNoShell});
    return all;
  }();
  return options;
}

volatile sig_atomic_t g_interrupted = 0;
volatile sig_atomic_t g_forward = 0;

void OnInterrupt(int /*sig*/) { g_interrupted = 1; }
void OnForward(int sig) { g_forward = sig; }

}  // namespace

int RunSalloc(const std::vector<std::string>& args, CommandContext& ctx) {
  const TimeZone& tz = ctx.time_zone ? *ctx.time_zone : TimeZone::Utc();
  const ParsedArgs parsed = ParseArgs(ctx.argv0, args, SbatchShortOptions(), SallocLongOptions(),
                                      ArgOrder::kRequireOrder);
  if (!parsed.error.empty()) {
    ReportUsageError(ctx, "salloc", parsed.error);
    return 255;
  }
  SbatchOptions options;
  bool no_shell = false;
  for (const ParsedOption& o : parsed.options) {
    if (o.id == kOptHelp || o.id == kOptUsage) {
      *ctx.out << "Usage: salloc [OPTIONS(0)...] [command(0) [args(0)...]]\n"
                  "Takes sbatch's allocation options (see sbatch --help) and --no-shell.\n";
      return 0;
    }
    if (o.id == kOptVersion) {
      *ctx.out << kVersionLine;
      return 0;
    }
    if (o.id == kNoShell) {
      no_shell = true;
      continue;
    }
    if (o.id == kOptWrap || o.id == kOptParsable || o.id == 'o' || o.id == 'e' || o.id == 'i' ||
        o.id == 'a') {
      *ctx.err << "salloc: error: " << o.spelling << " is an sbatch option, not salloc's\n";
      return 1;
    }
    const OptionResult r = ApplySbatchOption(&options, o.id, o.value, ctx.now, tz);
    if (!r.ok) {
      *ctx.err << "salloc: error: " << r.message << "\n";
      return r.exit_code != 0 ? r.exit_code : 1;
    }
  }
  if (const OptionResult r = VerifySbatchOptions(options); !r.ok) {
    *ctx.err << "salloc: fatal: " << r.message << "\n";
    return r.exit_code;
  }
  ResolveGpuOptions(&options);
  std::vector<std::string> command = parsed.operands;
  if (command.empty() && !no_shell) {
    const std::optional<std::string> shell = ctx.GetEnv("SHELL");
    command.push_back(shell && !shell->empty() ? *shell : "/bin/sh");
  }

  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "salloc", "salloc: error: ");
  if (!client) return 1;
  struct sigaction interrupt {};
  interrupt.sa_handler = OnInterrupt;
  sigemptyset(&interrupt.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &interrupt, nullptr);
  const std::string name =
      command.empty() ? "interactive" : command[0].substr(command[0].rfind('/') + 1);
  Result<v1::Job> job =
      AcquireAllocation(*client, AllocationRequest(options, name, ctx), AllocationStyle::kSalloc,
                        ctx, [] { return g_interrupted != 0; });
  if (!job.ok()) return 1;
  const uint32_t job_id = job->job_id();
  if (no_shell) return 0;

  std::vector<std::string> env = ctx.environment;
  for (const std::string& entry : AllocationEnvironment(*job, ctx)) env.push_back(entry);
  ctx.out->flush();
  ctx.err->flush();
  const pid_t child = fork();
  if (child < 0) {
    *ctx.err << "salloc: error: fork: " << strerror(errno) << "\n";
    ReleaseAllocation(*client, job_id, 1 << 8, AllocationStyle::kSalloc, ctx);
    return 1;
  }
  if (child == 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &dfl, nullptr);
    std::vector<char*> argv;
    argv.reserve(command.size() + 1);
    for (std::string& a : command) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    envp.reserve(env.size() + 1);
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "salloc: error: %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, nullptr);
  sigaction(SIGQUIT, &ignore, nullptr);
  struct sigaction forward {};
  forward.sa_handler = OnForward;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGTERM, &forward, nullptr);
  sigaction(SIGHUP, &forward, nullptr);

  int status = 0;
  bool revoked = false;
  auto next_check = std::chrono::steady_clock::now();
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    if (g_forward != 0) {
      kill(child, g_forward);
      g_forward = 0;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!revoked && now >= next_check) {
      next_check = now + std::chrono::seconds(2);
      v1::GetJobsRequest request;
      request.add_job_ids(job_id);
      request.set_include_all(true);
      Result<v1::GetJobsReply> reply = client->GetJobs(request);
      if (reply.ok() &&
          (reply->jobs().empty() || model::IsFinished(StateOf(reply->jobs(0)).base))) {
        revoked = true;
        *ctx.err << "salloc: Job allocation " << job_id << " has been revoked.\n";
        ctx.err->flush();
        kill(child, SIGHUP);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!revoked) ReleaseAllocation(*client, job_id, status, AllocationStyle::kSalloc, ctx);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace gantry::slurm
