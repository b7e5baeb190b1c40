#include "agent/script_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "agent/launcher.h"

namespace gantry::agent {
namespace {

using SteadyClock = std::chrono::steady_clock;

Status WriteScriptFile(const std::string& path, const std::string& text) {
  unlink(path.c_str());
  const auto writing = LockForWritingExecutable();
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
  if (fd < 0) return Unavailable("open(" + path + "): " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      return Unavailable("write(" + path + "): " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return Unavailable("close(" + path + "): " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

bool WaitChildExit(pid_t pid, std::chrono::milliseconds timeout) {
  const SteadyClock::time_point deadline = SteadyClock::now() + timeout;
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  std::chrono::milliseconds pause(2);
  bool ended = false;
  while (true) {
    siginfo_t info{};
    int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || info.si_pid == pid) {  // ended (or not our child: nothing to wait for)
      ended = true;
      break;
    }
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};  // readable once the process has exited
      poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    } else {
      std::this_thread::sleep_for(std::min(pause, left));
      pause = std::min(pause * 2, std::chrono::milliseconds(100));
    }
  }
  if (pidfd >= 0) close(pidfd);
  return ended;
}

int ReapChild(pid_t pid, struct rusage* usage) {
  int status = 0;
  while (true) {
    pid_t r = wait4(pid, &status, 0, usage);
    if (r == pid) return status;
    if (r < 0 && errno == EINTR) continue;
    return -1;
  }
}

ScriptOutcome RunScripts(const ScriptBatch& batch) {
  for (size_t i = 0; i < batch.entries.size(); ++i) {
    const std::string& entry = batch.entries[i];
    std::string path = entry;
    std::string name = batch.kind + " " + entry;
    bool inline_script = false;
    struct stat st {};
    if (stat(entry.c_str(), &st) != 0) {
      if (entry.rfind("#!", 0) != 0) {
        return {false, name + ": no such file (and not an inline script starting with \"#!\")"};
      }
      inline_script = true;
      name = batch.kind + " " + std::to_string(i + 1) + " (inline script)";
      path = batch.scratch_dir;
      path += "/" + batch.kind + "-" + batch.tag + "-" + std::to_string(i + 1);
      if (Status s = WriteScriptFile(path, entry); !s.ok()) {
        return {false, name + ": " + s.message()};
      }
    } else if (!S_ISREG(st.st_mode)) {
      return {false, name + ": not a regular file"};
    }
    SpawnSpec spec;
    spec.path = path;
    spec.env = batch.env;
    spec.stderr_to_agent = true;
    Result<Spawned> spawned = Spawn(spec);
    if (!spawned.ok()) {
      if (inline_script) unlink(path.c_str());
      return {false, name + ": " + spawned.status().message()};
    }
    const bool timed_out = !WaitChildExit(spawned->pid, batch.timeout);
    // Whatever the script left behind in its process group goes with it (before reaping, so
    // that the group id still names this group).
    kill(-spawned->pid, SIGKILL);
    const int status = ReapChild(spawned->pid);
    if (inline_script) unlink(path.c_str());
    if (timed_out) {
      auto secs = std::chrono::duration_cast<std::chrono::seconds>(batch.timeout).count();
      std::string limit =
          secs > 0 ? std::to_string(secs) + " s" : std::to_string(batch.timeout.count()) + " ms";
      return {false, name + ": timed out after " + limit};
    }
    if (status != 0) return {false, name + ": " + DescribeWaitStatus(status)};
  }
  return {true, ""};
}

}  // namespace gantry::agent
