#include "sys/child_process.h"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace gantry::sys {

using SteadyClock = std::chrono::steady_clock;

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

}  // namespace gantry::sys
