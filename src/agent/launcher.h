// Starting a process for a job: the batch script as the job's user, or a prolog/epilog script as
// the agent (root).
//
// Spawn starts a child that shares the agent's memory until it execs (clone with CLONE_VM |
// CLONE_VFORK, as posix_spawn does; fork() under AddressSanitizer). The child, using only raw
// system calls (the agent is multi-threaded),
//   1. resets its signal dispositions and mask, setsid()s (own session and process group, whose
//      id is its pid) and joins `cgroup` when one is given, then `extra_cgroups` (cgroup.procs,
//      before anything else, so that every process it starts is inside);
//   2. when `identity` is set: setgroups(groups) (only when the agent is root), setresgid(gid),
//      setresuid(uid); applies `umask` when set;
//   3. chdir(work_dir), opens stdin, stdout and stderr AS THAT USER (after step 2): stdout and
//      stderr with O_CREAT|O_WRONLY|O_APPEND, plus O_TRUNC unless `append`, mode 0666 & umask;
//      stderr = the stdout file when stderr_path is empty (one open file), or the agent's own
//      stderr when `stderr_to_agent`;
//   4. marks every other descriptor close-on-exec, puts SLURM_TASK_PID=<its pid> into the
//      environment when `task_pid_env`, and execve()s `path` (through /bin/sh when the file has
//      no "#!" line, ENOEXEC).
// A failing step is sent back through a close-on-exec pipe, so Spawn returns either the running
// child or an error naming the step, the path or id and strerror, e.g.
// "chdir(/home/alice/nope): No such file or directory" (the child has been reaped then).
//
// Thread-safe: concurrent Spawn calls are fine. The caller reaps the returned pid.
//
// A file the agent writes and then executes (batch, prolog and epilog scripts) must be written
// under LockForWritingExecutable: a child spawned while its descriptor is open inherits a copy
// until that child execs, and exec'ing the file meanwhile fails with ETXTBSY ("Text file
// busy"). Spawn holds the lock shared while it starts a child; writers hold it exclusively from
// open to close.
#ifndef GANTRY_AGENT_LAUNCHER_H_
#define GANTRY_AGENT_LAUNCHER_H_

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

struct Identity {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups
};

struct SpawnSpec {
  std::string path;  // the program or script to execve
  // When set and `path` has no '/': the ':'-separated directories searched for `path` in order
  // (execvp's search; an empty entry is ".", relative ones are taken from work_dir), by the
  // child as the job's user, so that only what that user may see is found.
  std::string search_path;
  std::vector<std::string> argv;     // argv[0] included; empty = {path}
  std::vector<std::string> env;      // "K=V" each
  bool task_pid_env = false;         // add SLURM_TASK_PID=<child pid>
  std::optional<Identity> identity;  // nullopt = keep the agent's uid/gid
  std::optional<mode_t> umask;
  std::string work_dir = "/";
  std::string stdin_path = "/dev/null";
  std::string stdout_path = "/dev/null";
  std::string stderr_path;       // empty = the stdout file
  bool stderr_to_agent = false;  // stderr = the agent's stderr (scripts run as root)
  bool append = false;           // --open-mode=append
  // Keep the agent's OOM-killer shield (root only; what the agent starts loses it otherwise).
  bool keep_oom_score = false;
  std::string cgroup;                      // a cgroup v2 directory to join; empty = none
  std::vector<std::string> extra_cgroups;  // more cgroups to join (v1 devices: gpu_devices.h)
  // Descriptors to use as stdin/stdout/stderr instead of the paths (srun's task pipes); -1 =
  // the path. The caller keeps them open across Spawn and closes them after.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

struct Spawned {
  pid_t pid = 0;             // also the child's session and process group id
  uint64_t start_ticks = 0;  // /proc start time, to recognise the pid later
};

// See the header comment. Errors: FailedPrecondition naming the failed step.
// Held by a writer of an executable file from its open to its close (see above).
std::unique_lock<std::shared_mutex> LockForWritingExecutable();

Result<Spawned> Spawn(const SpawnSpec& spec);

// "exit status 3", "killed by signal 9 (Killed)", "killed by signal 11 (Segmentation fault),
// core dumped", for messages.
std::string DescribeWaitStatus(int wait_status);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_LAUNCHER_H_
