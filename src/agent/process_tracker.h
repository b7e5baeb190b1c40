// Finding, signalling and ending every process of one job on this node.
//
// A job's processes are those in its cgroup when it has one (nothing escapes it), else those in
// the process group or session the launcher created (both ids are the batch script's pid), from
// which a process that starts its own session (setsid) and process group escapes. Zombies are not
// counted: they are gone as far as the job is concerned.
//
// Thread-safe: no state beyond the kernel's.
#ifndef GANTRY_AGENT_PROCESS_TRACKER_H_
#define GANTRY_AGENT_PROCESS_TRACKER_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gantry::agent {

struct JobProcesses {
  pid_t leader = 0;           // the batch script: session and process group id; 0 = none
  uint64_t leader_start = 0;  // its /proc start time; 0 = unknown (then trusted)
  std::string cgroup;         // the job's cgroup directory; empty = none
  // The cgroup v1 directories holding its limits (job_limits.h), which its processes join too.
  std::vector<std::string> limit_cgroups;
};

// The job's live processes (sorted, unique).
std::vector<pid_t> LiveJobProcesses(const JobProcesses& job);

// True when `job.leader` names another process than the one launched (the pid was reused after
// the script ended): then the process group and session are not the job's any more.
bool LeaderReused(const JobProcesses& job);

// Sends `sig` to every live process of the job; returns how many were signalled.
int SignalJobProcesses(const JobProcesses& job, int sig);

// SIGKILLs everything (cgroup.kill when available, then each process); a frozen cgroup is thawed
// first.
void KillJobProcesses(const JobProcesses& job);

// Suspends the job (scontrol suspend, scancel -s STOP): freezes its cgroup when it has one and
// the kernel can (nothing runs or forks until thawed), else SIGSTOP to every process, as
// Slurm's proctrack plugins do. Returns how many processes it stopped.
int StopJobProcesses(const JobProcesses& job);
// Resumes it: thaws the cgroup, then SIGCONT to every process (a stop by signal ends too).
// Returns how many processes it signalled.
int ContinueJobProcesses(const JobProcesses& job);

// Ends the job's processes as Slurm does: thaw, SIGCONT and SIGTERM to all, up to `kill_wait` for
// them to exit, then SIGKILL (repeated, for processes forked meanwhile) until none remain or
// `give_up` has passed since the SIGKILL. Returns true when none remain.
bool EndJobProcesses(const JobProcesses& job, std::chrono::milliseconds kill_wait,
                     std::chrono::milliseconds give_up);

// Waits until the job has no live process or `timeout` passes; true when none remain.
bool WaitJobProcessesGone(const JobProcesses& job, std::chrono::milliseconds timeout);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_PROCESS_TRACKER_H_
