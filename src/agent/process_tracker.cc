#include "agent/process_tracker.h"

#include <algorithm>
#include <csignal>
#include <optional>
#include <thread>

#include "agent/cgroup.h"
#include "proc/proc.h"

namespace gantry::agent {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

bool LeaderReused(const JobProcesses& job) {
  if (job.leader <= 0 || job.leader_start == 0) return false;
  std::optional<proc::ProcStat> stat = proc::ReadProcStat(job.leader);
  return stat && stat->start_ticks != job.leader_start;
}

std::vector<pid_t> LiveJobProcesses(const JobProcesses& job) {
  std::vector<pid_t> pids;
  if (!job.cgroup.empty()) {
    // Nothing leaves a cgroup without write access to another one: the cgroup is the whole job,
    // and reading it spares a scan of every process on the node.
    for (pid_t pid : CgroupProcs(job.cgroup)) {
      if (!proc::IsDeadOrZombie(pid)) pids.push_back(pid);
    }
  } else if (job.leader > 0 && !LeaderReused(job)) {
    std::vector<pid_t> members = proc::GroupOrSessionMembers(job.leader, job.leader);
    pids.insert(pids.end(), members.begin(), members.end());
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

int SignalJobProcesses(const JobProcesses& job, int sig) {
  int signalled = 0;
  for (pid_t pid : LiveJobProcesses(job)) {
    if (kill(pid, sig) == 0) ++signalled;
  }
  return signalled;
}

void KillJobProcesses(const JobProcesses& job) {
  if (!job.cgroup.empty()) {
    CgroupFreeze(job.cgroup, false);
    CgroupKill(job.cgroup);
  }
  SignalJobProcesses(job, SIGKILL);
}

int StopJobProcesses(const JobProcesses& job) {
  if (!job.cgroup.empty() && CgroupFreeze(job.cgroup, true)) {
    return static_cast<int>(LiveJobProcesses(job).size());
  }
  // By signal: a process forked while the others are being stopped is caught by a second pass.
  int stopped = SignalJobProcesses(job, SIGSTOP);
  stopped = std::max(stopped, SignalJobProcesses(job, SIGSTOP));
  return stopped;
}

int ContinueJobProcesses(const JobProcesses& job) {
  if (!job.cgroup.empty()) CgroupFreeze(job.cgroup, false);
  return SignalJobProcesses(job, SIGCONT);
}

bool WaitJobProcessesGone(const JobProcesses& job, std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  std::chrono::milliseconds pause(5);
  while (true) {
    if (LiveJobProcesses(job).empty()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - Clock::now()));
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
}

bool EndJobProcesses(const JobProcesses& job, std::chrono::milliseconds kill_wait,
                     std::chrono::milliseconds give_up) {
  if (!job.cgroup.empty()) CgroupFreeze(job.cgroup, false);
  SignalJobProcesses(job, SIGCONT);
  SignalJobProcesses(job, SIGTERM);
  if (WaitJobProcessesGone(job, kill_wait)) return true;
  const Clock::time_point deadline = Clock::now() + give_up;
  while (true) {
    KillJobProcesses(job);
    if (WaitJobProcessesGone(job, std::chrono::milliseconds(200))) return true;
    if (Clock::now() >= deadline) return false;
  }
}

}  // namespace gantry::agent
