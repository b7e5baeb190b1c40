#include "agent/launcher.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "proc/proc.h"

namespace gantry::agent {
namespace {

// The step of the child's setup that failed, sent back through the pipe with its errno.
enum ChildStep : int {
  kStepSetsid = 1,
  kStepCgroup,
  kStepSetgroups,
  kStepSetresgid,
  kStepSetresuid,
  kStepChdir,
  kStepStdin,
  kStepStdout,
  kStepStderr,
  kStepDup,
  kStepExec,
};

struct ChildError {
  int step = 0;
  int err = 0;
};

constexpr char kTaskPidPrefix[] = "SLURM_TASK_PID=";

[[noreturn]] void ChildFail(int pipe_fd, int step) {
  ChildError error{step, errno};
  ssize_t ignored = write(pipe_fd, &error, sizeof(error));
  (void)ignored;
  _exit(127);
}

// Writes the decimal digits of `value` at `out` (NUL-terminated); async-signal-safe.
void FormatPid(pid_t value, char* out) {
  char digits[24];
  int n = 0;
  auto v = static_cast<uint64_t>(value);
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v > 0);
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = '\0';
}

// Moves `fd` to a number >= 10, so that dup2 onto 0..2 cannot clobber another open file.
int MoveHigh(int fd) {
  if (fd >= 10) return fd;
  int high = fcntl(fd, F_DUPFD, 10);
  return high;
}

std::string StepText(const SpawnSpec& spec, const ChildError& error) {
  std::string what;
  switch (error.step) {
    case kStepSetsid:
      what = "setsid()";
      break;
    case kStepCgroup:
      what = "joining cgroup " + spec.cgroup;
      break;
    case kStepSetgroups:
      what = "setgroups(" + std::to_string(spec.identity ? spec.identity->groups.size() : 0) +
             " groups)";
      break;
    case kStepSetresgid:
      what = "setresgid(" + std::to_string(spec.identity ? spec.identity->gid : 0) + ")";
      break;
    case kStepSetresuid:
      what = "setresuid(" + std::to_string(spec.identity ? spec.identity->uid : 0) + ")";
      break;
    case kStepChdir:
      what = "chdir(" + spec.work_dir + ")";
      break;
    case kStepStdin:
      what = "open(" + spec.stdin_path + ")";
      break;
    case kStepStdout:
      what = "open(" + spec.stdout_path + ")";
      break;
    case kStepStderr:
      what = "open(" + spec.stderr_path + ")";
      break;
    case kStepDup:
      what = "dup2()";
      break;
    case kStepExec:
      what = "execve(" + spec.path + ")";
      break;
    default:
      what = "child setup";
  }
  return what + ": " + strerror(error.err);
}

// What the child needs, prepared by the parent: the child may not allocate.
struct ChildArgs {
  const SpawnSpec* spec;
  char** argv;
  char** sh_argv;
  char** envp;
  char* task_pid_digits;  // where SLURM_TASK_PID's digits go
  int err_fd;             // the close-on-exec pipe that reports a failed step
  const int* cgroup_fds;  // cgroup.procs of each cgroup to join
  size_t cgroup_count;
  bool root;
  bool same_err_file;
  int out_flags;
};

// The child's side of Spawn (see the header). Runs in a fork()ed child or, sharing the agent's
// memory, in a clone(CLONE_VM | CLONE_VFORK) child: only raw system calls from here, no
// allocation, no locks, and ids changed with syscall(2) directly (glibc's setresuid() would
// signal the agent's other threads to change theirs too).
[[noreturn]] void RunChild(const ChildArgs& a) {
  const SpawnSpec& spec = *a.spec;
  const int err_fd = a.err_fd;
  // Signals arrive blocked (the parent blocked them around the clone): reset every handler
  // before unblocking, so that none of the agent's handlers can run in the child.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int s = 1; s < NSIG; ++s) sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setsid() < 0) ChildFail(err_fd, kStepSetsid);
  if (a.root && !spec.keep_oom_score) {
    // The agent shields itself from the OOM killer (sys::ShieldFromOomKiller); what it starts
    // must not inherit that.
    const int oom = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (oom >= 0) {
      (void)!write(oom, "0", 1);
      close(oom);
    }
  }
  for (size_t i = 0; i < a.cgroup_count; ++i) {
    if (write(a.cgroup_fds[i], "0", 1) != 1) ChildFail(err_fd, kStepCgroup);
    close(a.cgroup_fds[i]);
  }
  if (spec.identity) {
    const Identity& id = *spec.identity;
    if (a.root && syscall(SYS_setgroups, id.groups.size(), id.groups.data()) != 0) {
      ChildFail(err_fd, kStepSetgroups);
    }
    if (syscall(SYS_setresgid, id.gid, id.gid, id.gid) != 0) ChildFail(err_fd, kStepSetresgid);
    if (syscall(SYS_setresuid, id.uid, id.uid, id.uid) != 0) ChildFail(err_fd, kStepSetresuid);
  }
  if (spec.umask) umask(*spec.umask);
  if (chdir(spec.work_dir.c_str()) != 0) ChildFail(err_fd, kStepChdir);
  int in_fd = spec.stdin_fd;
  if (in_fd < 0) in_fd = open(spec.stdin_path.c_str(), O_RDONLY | O_NOCTTY);
  if (in_fd < 0 || (in_fd = MoveHigh(in_fd)) < 0) ChildFail(err_fd, kStepStdin);
  int out_fd = spec.stdout_fd;
  if (out_fd < 0) out_fd = open(spec.stdout_path.c_str(), a.out_flags, 0666);
  if (out_fd < 0 || (out_fd = MoveHigh(out_fd)) < 0) ChildFail(err_fd, kStepStdout);
  int err_out_fd = out_fd;
  if (spec.stderr_fd >= 0) {
    err_out_fd = MoveHigh(spec.stderr_fd);
    if (err_out_fd < 0) ChildFail(err_fd, kStepStderr);
  } else if (spec.stderr_to_agent) {
    err_out_fd = STDERR_FILENO;
  } else if (!a.same_err_file) {
    err_out_fd = open(spec.stderr_path.c_str(), a.out_flags, 0666);
    if (err_out_fd < 0 || (err_out_fd = MoveHigh(err_out_fd)) < 0) {
      ChildFail(err_fd, kStepStderr);
    }
  }
  if (dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
      (err_out_fd != STDERR_FILENO && dup2(err_out_fd, STDERR_FILENO) < 0)) {
    ChildFail(err_fd, kStepDup);
  }
  close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  if (spec.task_pid_env) FormatPid(static_cast<pid_t>(syscall(SYS_getpid)), a.task_pid_digits);
  // Runs `program`, or /bin/sh with it when it is a script without "#!"; returns on failure.
  auto try_exec = [&a](char* program) {
    execve(program, a.argv, a.envp);
    if (errno == ENOEXEC) {
      a.sh_argv[1] = program;
      execve("/bin/sh", a.sh_argv, a.envp);
      errno = ENOEXEC;
    }
  };
  if (spec.search_path.empty() || spec.path.find('/') != std::string::npos) {
    try_exec(const_cast<char*>(spec.path.c_str()));
    ChildFail(err_fd, kStepExec);
  }
  // execvp's search, already as the job's user (review L5: searched as root, "Permission
  // denied" against "No such file" told users what exists in directories they cannot read).
  char candidate[PATH_MAX];
  bool denied = false;
  const char* dir = spec.search_path.c_str();
  for (;;) {
    const char* end = strchrnul(dir, ':');
    const size_t dir_len = dir == end ? 1 : static_cast<size_t>(end - dir);
    if (dir_len + 1 + spec.path.size() < sizeof(candidate)) {
      std::memcpy(candidate, dir == end ? "." : dir, dir_len);
      candidate[dir_len] = '/';
      std::memcpy(candidate + dir_len + 1, spec.path.c_str(), spec.path.size() + 1);
      try_exec(candidate);
      if (errno == EACCES) denied = true;
    }
    if (*end == '\0') break;
    dir = end + 1;
  }
  errno = denied ? EACCES : ENOENT;
  ChildFail(err_fd, kStepExec);
}

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer cannot follow a child that runs on the parent's memory: fork() there.
Result<pid_t> StartChild(ChildArgs* args) {
  pid_t pid = fork();
  if (pid < 0) return Unavailable(std::string("fork: ") + strerror(errno));
  if (pid == 0) RunChild(*args);
  return pid;
}
#else
int ChildEntry(void* args) { RunChild(*static_cast<ChildArgs*>(args)); }

// Starts the child with clone(CLONE_VM | CLONE_VFORK): no copy of the agent's page tables and
// no copy-on-write faults afterwards (fork() of the multi-threaded agent cost more CPU than the
// job's own trivial script). The agent's thread waits until the child has exec'd or exited.
Result<pid_t> StartChild(ChildArgs* args) {
  constexpr size_t kStackBytes = size_t{256} * 1024;
  void* stack = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return Unavailable(std::string("mmap: ") + strerror(errno));
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = clone(ChildEntry, static_cast<char*>(stack) + kStackBytes,
                          CLONE_VM | CLONE_VFORK | SIGCHLD, args);
  const int err = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  munmap(stack, kStackBytes);
  if (pid < 0) return Unavailable(std::string("clone: ") + strerror(err));
  return pid;
}
#endif
// No child may start while a file to be executed is open for writing (launcher.h).
std::shared_mutex& ExecutableWriteLock() {
  static std::shared_mutex lock;
  return lock;
}

}  // namespace

std::unique_lock<std::shared_mutex> LockForWritingExecutable() {
  return std::unique_lock(ExecutableWriteLock());
}

Result<Spawned> Spawn(const SpawnSpec& spec) {
  if (spec.path.empty()) return InvalidArgument("nothing to run: empty path");
  // Everything the child needs is prepared here: it may not allocate.
  std::vector<std::string> args =
      spec.argv.empty() ? std::vector<std::string>{spec.path} : spec.argv;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> sh_args = {"/bin/sh", spec.path};
  for (size_t i = 1; i < args.size(); ++i) sh_args.push_back(args[i]);
  std::vector<char*> sh_argv;
  sh_argv.reserve(sh_args.size() + 1);
  for (std::string& a : sh_args) sh_argv.push_back(a.data());
  sh_argv.push_back(nullptr);

  std::vector<std::string> env;
  for (const std::string& entry : spec.env) {
    if (spec.task_pid_env && entry.rfind(kTaskPidPrefix, 0) == 0) continue;
    env.push_back(entry);
  }
  std::string task_pid_entry(std::string(kTaskPidPrefix) + std::string(24, '\0'));
  std::vector<char*> envp;
  envp.reserve(env.size() + 2);
  for (std::string& e : env) envp.push_back(e.data());
  if (spec.task_pid_env) envp.push_back(task_pid_entry.data());
  envp.push_back(nullptr);
  char* task_pid_digits = task_pid_entry.data() + sizeof(kTaskPidPrefix) - 1;

  const bool same_err_file = spec.stderr_path.empty() || spec.stderr_path == spec.stdout_path;
  const int out_flags = O_CREAT | O_WRONLY | O_APPEND | (spec.append ? 0 : O_TRUNC) | O_NOCTTY;
  const bool root = geteuid() == 0;

  std::vector<int> cgroup_fds;
  auto close_cgroups = [&cgroup_fds] {
    for (int fd : cgroup_fds) close(fd);
    cgroup_fds.clear();
  };
  std::vector<std::string> cgroups = spec.extra_cgroups;
  if (!spec.cgroup.empty()) cgroups.insert(cgroups.begin(), spec.cgroup);
  for (const std::string& cgroup : cgroups) {
    const int fd = open((cgroup + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      close_cgroups();
      return FailedPrecondition("open(" + cgroup + "/cgroup.procs): " + strerror(err));
    }
    cgroup_fds.push_back(fd);
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    int err = errno;
    close_cgroups();
    return Unavailable(std::string("pipe2: ") + strerror(err));
  }

  ChildArgs child{&spec,       argv.data(),       sh_argv.data(),    envp.data(), task_pid_digits,
                  pipe_fds[1], cgroup_fds.data(), cgroup_fds.size(), root,        same_err_file,
                  out_flags};
  Result<pid_t> started = [&] {
    // With clone(CLONE_VFORK) the child has exec'd (its inherited descriptors closed) by the
    // time StartChild returns; a fork()ed child holds only descriptors open at the fork.
    std::shared_lock no_writers(ExecutableWriteLock());
    return StartChild(&child);
  }();
  if (!started.ok()) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    close_cgroups();
    return started.status();
  }
  const pid_t pid = *started;
  close(pipe_fds[1]);
  close_cgroups();
  ChildError error;
  size_t got = 0;
  while (got < sizeof(error)) {
    ssize_t n = read(pipe_fds[0], reinterpret_cast<char*>(&error) + got, sizeof(error) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(pipe_fds[0]);
  if (got == sizeof(error)) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return FailedPrecondition(StepText(spec, error));
  }
  Spawned spawned;
  spawned.pid = pid;
  if (std::optional<proc::ProcStat> stat = proc::ReadProcStat(pid)) {
    spawned.start_ticks = stat->start_ticks;
  }
  return spawned;
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return "exit status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    const char* name = sigdescr_np(sig);
    std::string text = "killed by signal " + std::to_string(sig);
    if (name != nullptr) text += std::string(" (") + name + ")";
    if (WCOREDUMP(wait_status)) text += ", core dumped";
    return text;
  }
  return "wait status " + std::to_string(wait_status);
}

}  // namespace gantry::agent
