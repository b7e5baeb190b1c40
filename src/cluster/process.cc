#include "cluster/process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace gantry::cluster {

namespace {

// What the forked children report through the status pipe (fixed size, so each write is atomic).
struct ChildReport {
  int32_t step;   // kPid, or the step that failed
  int32_t value;  // the pid, or errno
};
constexpr int32_t kPid = 0;
constexpr int32_t kSetsidFailed = 1;
constexpr int32_t kForkFailed = 2;
constexpr int32_t kRedirectFailed = 3;
constexpr int32_t kChdirFailed = 4;
constexpr int32_t kExecFailed = 5;

// Async-signal-safe: only write(2).
void Report(int fd, int32_t step, int32_t value) {
  const ChildReport r{step, value};
  ssize_t ignored = write(fd, &r, sizeof(r));
  (void)ignored;
}

std::string ErrnoText(int e) { return std::strerror(e); }

std::string StepText(int32_t step) {
  switch (step) {
    case kSetsidFailed:
      return "setsid";
    case kForkFailed:
      return "fork";
    case kRedirectFailed:
      return "redirecting output";
    case kChdirFailed:
      return "chdir";
    default:
      return "exec";
  }
}

// Reads the whole status pipe: the daemon's pid and, if something failed, the failure.
Result<pid_t> ReadReports(int fd, const std::string& program) {
  pid_t pid = -1;
  std::optional<ChildReport> failure;
  ChildReport r{};
  size_t have = 0;
  while (true) {
    const ssize_t n = read(fd, reinterpret_cast<char*>(&r) + have, sizeof(r) - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    if (have < sizeof(r)) continue;
    have = 0;
    if (r.step == kPid) {
      pid = r.value;
    } else if (!failure) {
      failure = r;
    }
  }
  if (failure) {
    return Unavailable("cannot start " + program + ": " + StepText(failure->step) + ": " +
                       ErrnoText(failure->value));
  }
  if (pid <= 0) return Internal("cannot start " + program + ": no pid from the forked child");
  return pid;
}

}  // namespace

Result<pid_t> SpawnDetached(const SpawnOptions& options) {
  // Everything the children need is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> strings;
  strings.reserve(options.args.size() + 1);
  strings.push_back(options.program);
  strings.insert(strings.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  argv.reserve(strings.size() + 1);
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string cwd = options.working_dir.empty() ? "/" : options.working_dir;

  const int log_fd =
      open(options.log_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    return Unavailable("cannot open log file " + options.log_file + ": " + ErrnoText(errno));
  }
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) {
    const int e = errno;
    close(log_fd);
    return Unavailable("cannot open /dev/null: " + ErrnoText(e));
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    const int e = errno;
    close(log_fd);
    close(null_fd);
    return Unavailable("cannot start " + options.program + ": pipe: " + ErrnoText(e));
  }
  const int report_fd = pipe_fds[1];

  const pid_t child = fork();
  if (child < 0) {
    const int e = errno;
    close(log_fd);
    close(null_fd);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return Unavailable("cannot start " + options.program + ": fork: " + ErrnoText(e));
  }
  if (child == 0) {
    // Intermediate child: new session, fork the daemon, report its pid, exit.
    close(pipe_fds[0]);
    if (setsid() < 0) {
      Report(report_fd, kSetsidFailed, errno);
      _exit(1);
    }
    const pid_t daemon = fork();
    if (daemon < 0) {
      Report(report_fd, kForkFailed, errno);
      _exit(1);
    }
    if (daemon > 0) {
      Report(report_fd, kPid, daemon);
      _exit(0);
    }
    // The daemon.
    if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(log_fd, STDOUT_FILENO) < 0 ||
        dup2(log_fd, STDERR_FILENO) < 0) {
      Report(report_fd, kRedirectFailed, errno);
      _exit(127);
    }
    // Leave nothing of the caller's open (gRPC sockets, a test harness's pipes) but the
    // report pipe, which closes on exec.
    if (report_fd > 3) close_range(3, static_cast<unsigned>(report_fd) - 1, 0);
    close_range(static_cast<unsigned>(report_fd) + 1, ~0U, 0);
    // Signal state is inherited across exec where ignored or blocked: start clean.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (chdir(cwd.c_str()) != 0) {
      Report(report_fd, kChdirFailed, errno);
      _exit(127);
    }
    execv(argv[0], argv.data());
    Report(report_fd, kExecFailed, errno);
    _exit(127);
  }

  close(log_fd);
  close(null_fd);
  close(pipe_fds[1]);
  Result<pid_t> pid = ReadReports(pipe_fds[0], options.program);
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return pid;
}

bool ProcessAlive(pid_t pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return true;  // no /proc: trust kill()
  // "pid (comm) S ...": comm may hold spaces and parentheses; the state follows the last ')'.
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= stat.size()) return true;
  const char state = stat[close_paren + 2];
  return state != 'Z' && state != 'X';
}

std::vector<std::string> ProcessArgv(pid_t pid) {
  std::vector<std::string> argv;
  if (pid <= 0) return argv;
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  if (!in) return argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

bool ArgvMatches(const std::vector<std::string>& argv, std::string_view program_name,
                 const std::vector<std::string>& required) {
  auto base = [](const std::string& path) {
    return std::filesystem::path(path).filename().string();
  };
  size_t program_at = 0;
  if (!argv.empty() && base(argv[0]) == program_name) {
    program_at = 1;
  } else if (argv.size() > 1 && base(argv[1]) == program_name) {
    program_at = 2;
  } else {
    return false;
  }
  if (required.empty()) return true;
  for (size_t i = program_at; i + required.size() <= argv.size(); ++i) {
    bool all = true;
    for (size_t j = 0; j < required.size() && all; ++j) all = argv[i + j] == required[j];
    if (all) return true;
  }
  return false;
}

std::optional<std::string> ArgvFlagValue(const std::vector<std::string>& argv,
                                         std::string_view flag) {
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == flag && i + 1 < argv.size()) return argv[i + 1];
    if (argv[i].size() > flag.size() && argv[i].starts_with(flag) && argv[i][flag.size()] == '=') {
      return argv[i].substr(flag.size() + 1);
    }
  }
  return std::nullopt;
}

std::optional<pid_t> ReadPidFile(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (ec != std::errc() || end != text.data() + text.size() || pid <= 0) return std::nullopt;
  return pid;
}

Status WritePidFile(const std::string& path, pid_t pid) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << pid << "\n";
    if (!out.flush()) return Unavailable("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Unavailable("cannot write " + path + ": " + ec.message());
  return Status::Ok();
}

std::optional<pid_t> LiveDaemon(const std::string& pid_file, std::string_view program_name,
                                const std::vector<std::string>& required) {
  const std::optional<pid_t> pid = ReadPidFile(pid_file);
  if (!pid || !ProcessAlive(*pid)) return std::nullopt;
  if (!ArgvMatches(ProcessArgv(*pid), program_name, required)) return std::nullopt;
  return pid;
}

Result<std::vector<StopResult>> StopProcesses(const std::vector<pid_t>& pids,
                                              std::chrono::milliseconds timeout,
                                              std::chrono::milliseconds kill_timeout) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kPoll = std::chrono::milliseconds(20);
  std::vector<StopResult> results(pids.size());
  for (size_t i = 0; i < pids.size(); ++i) {
    if (!ProcessAlive(pids[i])) continue;
    results[i].was_running = true;
    if (kill(pids[i], SIGTERM) != 0 && errno != ESRCH) {
      return PermissionDenied("cannot signal pid " + std::to_string(pids[i]) + ": " +
                              ErrnoText(errno));
    }
  }
  auto any_alive = [&] {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (results[i].was_running && ProcessAlive(pids[i])) return true;
    }
    return false;
  };
  const auto term_deadline = Clock::now() + timeout;
  while (any_alive() && Clock::now() < term_deadline) std::this_thread::sleep_for(kPoll);
  for (size_t i = 0; i < pids.size(); ++i) {
    if (results[i].was_running && ProcessAlive(pids[i])) {
      results[i].killed = true;
      kill(pids[i], SIGKILL);
    }
  }
  const auto kill_deadline = Clock::now() + kill_timeout;
  while (any_alive() && Clock::now() < kill_deadline) std::this_thread::sleep_for(kPoll);
  for (size_t i = 0; i < pids.size(); ++i) {
    if (results[i].was_running && ProcessAlive(pids[i])) {
      return Unavailable("pid " + std::to_string(pids[i]) + " survived SIGKILL");
    }
  }
  return results;
}

std::string TailOfFile(const std::string& path, size_t max_lines, uint64_t from) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  constexpr uint64_t kMaxBytes = uint64_t{64} * 1024;
  in.seekg(0, std::ios::end);
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  if (from > size) from = 0;  // the file was replaced
  if (size - from > kMaxBytes) from = size - kMaxBytes;
  in.seekg(static_cast<std::streamoff>(from));
  std::ostringstream s;
  s << in.rdbuf();
  std::vector<std::string> lines;
  std::istringstream text(s.str());
  for (std::string line; std::getline(text, line);) lines.push_back(std::move(line));
  std::string tail;
  for (size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size(); ++i) {
    tail += lines[i] + "\n";
  }
  return tail;
}

uint64_t FileSize(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(size);
}

}  // namespace gantry::cluster
