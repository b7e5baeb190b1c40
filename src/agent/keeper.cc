#include "agent/keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <thread>

#include "agent/handoff.h"
#include "agent/process_tracker.h"
#include "agent/script_runner.h"
#include "proc/proc.h"
#include "sys/child_process.h"
#include "sys/files.h"

namespace gantry::agent {
namespace {

// What the keeper reads from the agent: a spec is the batch script's environment and arguments,
// which gantryd caps at its 64 MiB submissions.
constexpr size_t kMaxSpecBytes = size_t{80} << 20;

int64_t Microseconds(const timeval& tv) { return int64_t{tv.tv_sec} * 1000000 + tv.tv_usec; }

// How often a keeper looks at its agent's lease.
constexpr int kLeasePollMs = 500;

// Reaps `script` (its wait status; -1 on error). With a lease to watch, ends the whole job once
// the lease has run out (agent/keeper.h), then goes on waiting.
int WaitScript(const Spawned& script, const SpawnSpec& spec, const KeeperLease& lease,
               const std::string& exit_path, struct rusage* used) {
  if (lease.path.empty()) return sys::ReapChild(script.pid, used);
  JobProcesses job;
  job.leader = script.pid;
  job.leader_start = script.start_ticks;
  job.cgroup = spec.cgroup;
  job.limit_cgroups = spec.extra_cgroups;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, script.pid, 0));
  int64_t kill_at = -1;  // when the SIGKILL is due; -1 = the job is not being ended
  int status = 0;
  while (true) {
    const pid_t reaped = wait4(script.pid, &status, WNOHANG, used);
    if (reaped == script.pid) break;
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped < 0) {
      status = -1;
      break;
    }
    const int64_t now = MonotonicNowMs();
    if (kill_at < 0 && LeaseFileRunOut(lease.path)) {
      std::cerr << "gantry-keeper (" << exit_path
                << "): the agent is gone and its lease ran out: ending the job (SIGTERM, SIGKILL "
                   "after "
                << lease.kill_wait_sec << " s), which the controller runs elsewhere\n";
      ContinueJobProcesses(job);
      SignalJobProcesses(job, SIGTERM);
      kill_at = now + int64_t{lease.kill_wait_sec} * 1000;
    } else if (kill_at >= 0 && now >= kill_at) {
      KillJobProcesses(job);
      kill_at = now + 1000;  // again each second until the script is reaped
    }
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      (void)poll(&p, 1, kLeasePollMs);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(kLeasePollMs));
    }
  }
  if (pidfd >= 0) close(pidfd);
  if (kill_at >= 0) {
    // Being ended: what the script left behind gets the rest of KillWait, then SIGKILL.
    while (!LiveJobProcesses(job).empty() && MonotonicNowMs() < kill_at) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    KillJobProcesses(job);
    (void)WaitJobProcessesGone(job, std::chrono::seconds(10));
  }
  return status;
}

}  // namespace

// ---- BatchExit --------------------------------------------------------------------------------

std::string FormatBatchExit(const BatchExit& exit) {
  return "wait_status=" + std::to_string(exit.wait_status) +
         "\nuser_cpu_usec=" + std::to_string(exit.user_cpu_usec) +
         "\nsystem_cpu_usec=" + std::to_string(exit.system_cpu_usec) +
         "\nmax_rss_kib=" + std::to_string(exit.max_rss_kib) + "\n";
}

Result<BatchExit> ParseBatchExit(std::string_view text) {
  BatchExit exit;
  bool have_status = false;
  int line_no = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_no;
    const size_t eq = line.find('=');
    const std::string where = "line " + std::to_string(line_no);
    if (eq == std::string_view::npos) return InvalidArgument(where + ": expected key=value");
    const std::string_view key = line.substr(0, eq);
    const std::string_view value = line.substr(eq + 1);
    bool ok = false;
    if (key == "wait_status") {
      ok = have_status = ParseInt(value, &exit.wait_status);
    } else if (key == "user_cpu_usec") {
      ok = ParseInt(value, &exit.user_cpu_usec);
    } else if (key == "system_cpu_usec") {
      ok = ParseInt(value, &exit.system_cpu_usec);
    } else if (key == "max_rss_kib") {
      ok = ParseInt(value, &exit.max_rss_kib);
    } else {
      return InvalidArgument(where + ": unknown key \"" + std::string(key) + "\"");
    }
    if (!ok) {
      return InvalidArgument(where + ": " + std::string(key) + ": not a number: \"" +
                             std::string(value) + "\"");
    }
  }
  if (!have_status) return InvalidArgument("no wait_status");
  return exit;
}

// ---- SpawnSpec codec --------------------------------------------------------------------------

std::string EncodeSpawnSpec(const SpawnSpec& spec) {
  std::string out;
  PutField(&out, "path", spec.path);
  if (!spec.search_path.empty()) PutField(&out, "search_path", spec.search_path);
  for (const std::string& arg : spec.argv) PutField(&out, "arg", arg);
  for (const std::string& entry : spec.env) PutField(&out, "env", entry);
  if (spec.task_pid_env) PutField(&out, "task_pid_env", "1");
  if (spec.identity) {
    PutField(&out, "uid", std::to_string(spec.identity->uid));
    PutField(&out, "gid", std::to_string(spec.identity->gid));
    for (gid_t group : spec.identity->groups) PutField(&out, "group", std::to_string(group));
  }
  if (spec.umask) PutField(&out, "umask", std::to_string(*spec.umask));
  PutField(&out, "work_dir", spec.work_dir);
  PutField(&out, "stdin_path", spec.stdin_path);
  PutField(&out, "stdout_path", spec.stdout_path);
  if (!spec.stderr_path.empty()) PutField(&out, "stderr_path", spec.stderr_path);
  if (spec.stderr_to_agent) PutField(&out, "stderr_to_agent", "1");
  if (spec.append) PutField(&out, "append", "1");
  if (spec.keep_oom_score) PutField(&out, "keep_oom_score", "1");
  if (!spec.cgroup.empty()) PutField(&out, "cgroup", spec.cgroup);
  for (const std::string& cgroup : spec.extra_cgroups) PutField(&out, "extra_cgroup", cgroup);
  return out;
}

Result<SpawnSpec> DecodeSpawnSpec(std::string_view bytes) {
  SpawnSpec spec;
  spec.work_dir.clear();
  spec.stdin_path.clear();
  spec.stdout_path.clear();
  bool have_uid = false;
  bool have_gid = false;
  Identity identity;
  auto field = [&](const std::string& name, std::string value) -> Status {
    auto number = [&](auto* out) -> Status {
      if (!ParseInt(value, out)) {
        return InvalidArgument("spawn spec: " + name + ": not a number: \"" + value + "\"");
      }
      return Status::Ok();
    };
    auto flag = [&](bool* out) -> Status {
      if (value != "1") return InvalidArgument("spawn spec: " + name + ": expected 1");
      *out = true;
      return Status::Ok();
    };
    if (name == "path") {
      spec.path = value;
    } else if (name == "search_path") {
      spec.search_path = value;
    } else if (name == "arg") {
      spec.argv.push_back(value);
    } else if (name == "env") {
      spec.env.push_back(value);
    } else if (name == "task_pid_env") {
      GANTRY_RETURN_IF_ERROR(flag(&spec.task_pid_env));
    } else if (name == "uid") {
      GANTRY_RETURN_IF_ERROR(number(&identity.uid));
      have_uid = true;
    } else if (name == "gid") {
      GANTRY_RETURN_IF_ERROR(number(&identity.gid));
      have_gid = true;
    } else if (name == "group") {
      gid_t group = 0;
      GANTRY_RETURN_IF_ERROR(number(&group));
      identity.groups.push_back(group);
    } else if (name == "umask") {
      mode_t mask = 0;
      GANTRY_RETURN_IF_ERROR(number(&mask));
      if (mask > 0777) return InvalidArgument("spawn spec: umask: above 0777: " + value);
      spec.umask = mask;
    } else if (name == "work_dir") {
      spec.work_dir = value;
    } else if (name == "stdin_path") {
      spec.stdin_path = value;
    } else if (name == "stdout_path") {
      spec.stdout_path = value;
    } else if (name == "stderr_path") {
      spec.stderr_path = value;
    } else if (name == "stderr_to_agent") {
      GANTRY_RETURN_IF_ERROR(flag(&spec.stderr_to_agent));
    } else if (name == "append") {
      GANTRY_RETURN_IF_ERROR(flag(&spec.append));
    } else if (name == "keep_oom_score") {
      GANTRY_RETURN_IF_ERROR(flag(&spec.keep_oom_score));
    } else if (name == "cgroup") {
      spec.cgroup = value;
    } else if (name == "extra_cgroup") {
      spec.extra_cgroups.push_back(value);
    } else {
      return InvalidArgument("spawn spec: unknown field \"" + name + "\"");
    }
    return Status::Ok();
  };
  GANTRY_RETURN_IF_ERROR(ForEachField(bytes, "spawn spec", field));
  if (have_uid != have_gid) return InvalidArgument("spawn spec: uid and gid go together");
  if (have_uid) spec.identity = identity;
  if (spec.path.empty()) return InvalidArgument("spawn spec: no path");
  if (spec.work_dir.empty()) return InvalidArgument("spawn spec: no work_dir");
  if (spec.stdin_path.empty()) return InvalidArgument("spawn spec: no stdin_path");
  if (spec.stdout_path.empty()) return InvalidArgument("spawn spec: no stdout_path");
  return spec;
}

// ---- The agent's side -------------------------------------------------------------------------

bool LeaseFileRunOut(const std::string& path) {
  Result<LeaseRecord> lease = ReadLeaseFile(path);
  if (!lease.ok()) return false;
  return LeaseRunOut(
      *lease, MonotonicNowMs(),
      lease->agent_pid > 0 && proc::IsStillRunning(lease->agent_pid, lease->agent_start_ticks));
}

bool LeaseRunOut(const LeaseRecord& lease, int64_t now_ms, bool agent_running) {
  return lease.deadline_ms > 0 && now_ms > lease.deadline_ms + kKeeperLeaseGraceMs &&
         !agent_running;
}

Result<KeptBatch> SpawnKept(const std::string& keeper_path, const SpawnSpec& spec,
                            const std::string& exit_path, const KeeperLease& lease) {
  int in[2];
  int out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Unavailable(std::string("pipe2: ") + strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    const int err = errno;
    close(in[0]);
    close(in[1]);
    return Unavailable(std::string("pipe2: ") + strerror(err));
  }
  SpawnSpec keeper;
  keeper.path = keeper_path;
  keeper.argv = {keeper_path, "--exit-file", exit_path};
  if (!lease.path.empty()) {
    keeper.argv.insert(keeper.argv.end(), {"--lease-file", lease.path, "--kill-wait",
                                           std::to_string(lease.kill_wait_sec)});
  }
  keeper.stdin_fd = in[0];
  keeper.stdout_fd = out[1];
  keeper.stderr_to_agent = true;
  keeper.keep_oom_score = true;  // as shielded as the agent: it holds the job's exit status
  Result<Spawned> started = Spawn(keeper);
  close(in[0]);
  close(out[1]);
  if (!started.ok()) {
    close(in[1]);
    close(out[0]);
    return Unavailable("cannot start " + keeper_path + ": " + started.status().message());
  }
  // The keeper reads the whole spec before it answers: no deadlock on full pipes.
  (void)WriteAll(in[1], EncodeSpawnSpec(spec));
  close(in[1]);
  std::string answer;
  const bool read = ReadAll(out[0], 64 << 10, &answer);
  close(out[0]);

  KeptBatch kept;
  kept.keeper = *started;
  if (read && answer.rfind("started ", 0) == 0) {
    const std::string_view rest = std::string_view{answer}.substr(8);
    const size_t space = rest.find(' ');
    const size_t newline = rest.find('\n');
    if (space != std::string_view::npos && newline != std::string_view::npos && space < newline &&
        ParseInt(rest.substr(0, space), &kept.script.pid) &&
        ParseInt(rest.substr(space + 1, newline - space - 1), &kept.script.start_ticks) &&
        kept.script.pid > 0) {
      return kept;
    }
  }
  const int status = sys::ReapChild(started->pid);
  if (read && answer.rfind("failed ", 0) == 0) {
    std::string message = answer.substr(7);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return FailedPrecondition(message);
  }
  return Unavailable(keeper_path + " did not start the script (" + DescribeWaitStatus(status) +
                     ")");
}

void WaitForKeeper(pid_t pid, uint64_t start_ticks) {
  auto same = [&] { return proc::IsStillRunning(pid, start_ticks); };
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd >= 0) {
    // The pidfd names the process it was opened for: check that it is still the keeper.
    if (same()) {
      pollfd p{fd, POLLIN, 0};
      while (poll(&p, 1, -1) < 0 && errno == EINTR) {
      }
    }
    close(fd);
    return;
  }
  // Kernels before 5.3: look twice a second.
  while (same()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
}

// ---- The keeper -------------------------------------------------------------------------------

int RunKeeper(int argc, char** argv) {
  std::string exit_path;
  KeeperLease lease;
  bool have_kill_wait = false;
  bool usage = argc % 2 != 1;
  for (int i = 1; !usage && i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const std::string_view value = argv[i + 1];
    if (flag == "--exit-file" && !value.empty()) {
      exit_path = value;
    } else if (flag == "--lease-file" && !value.empty()) {
      lease.path = value;
    } else if (flag == "--kill-wait" && ParseInt(value, &lease.kill_wait_sec)) {
      have_kill_wait = true;
    } else {
      usage = true;
    }
  }
  if (usage || exit_path.empty() || lease.path.empty() == have_kill_wait) {
    std::cerr << "usage: gantry-keeper --exit-file PATH [--lease-file PATH --kill-wait SECONDS]  "
                 "(the spawn spec on stdin; started by gantry-agent)\n";
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // Ended only by its script's end: the job's signals are for the job (the script's child
  // starts with every disposition reset).
  for (int sig : {SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2}) signal(sig, SIG_IGN);

  auto answer = [](std::string line) {
    line += '\n';
    (void)WriteAll(STDOUT_FILENO, line);
    // Done with the agent's pipes: it reads to EOF.
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      close(null);
    }
  };
  std::string bytes;
  if (!ReadAll(STDIN_FILENO, kMaxSpecBytes, &bytes)) {
    answer("failed gantry-keeper: cannot read the spawn spec");
    return 2;
  }
  Result<SpawnSpec> spec = DecodeSpawnSpec(bytes);
  bytes = std::string();
  if (!spec.ok()) {
    answer("failed gantry-keeper: " + spec.status().message());
    return 2;
  }
  Result<Spawned> script = Spawn(*spec);
  if (!script.ok()) {
    std::string message = script.status().message();
    for (char& c : message) {
      if (c == '\n') c = ' ';
    }
    answer("failed " + message);
    return 0;
  }
  answer("started " + std::to_string(script->pid) + " " + std::to_string(script->start_ticks));
  struct rusage used {};
  const int status = WaitScript(*script, *spec, lease, exit_path, &used);
  BatchExit exit;
  exit.wait_status = status;
  exit.user_cpu_usec = Microseconds(used.ru_utime);
  exit.system_cpu_usec = Microseconds(used.ru_stime);
  exit.max_rss_kib = used.ru_maxrss;
  // The page cache outlives the agent, which is all this file must survive (the script does not
  // survive the machine).
  Status written =
      sys::WriteFileAtomically(exit_path, FormatBatchExit(exit), 0600, sys::Durability::kProcess);
  if (!written.ok()) {
    std::cerr << "gantry-keeper: " << written.message() << "\n";
    return 3;
  }
  return 0;
}

}  // namespace gantry::agent
