// One cgroup v2 directory per job, so that every process a job starts can be found and killed,
// including those that leave the job's session (setsid) or process group.
//
// Layout: <cgroup2 mount>/gantry.slice/<name>/job_<id>, <name> = node + hash of the spool dir. No
// controllers are enabled: the cgroups only track processes. A process joins by writing to
// cgroup.procs (the launcher does it in the child before exec, so everything the script starts is
// inside).
//
// When no cgroup v2 hierarchy is mounted, or it is not writable (not root, read-only
// container), CgroupTree::Open fails and the agent falls back to process groups and sessions.
//
// Thread-safe: all state is in the file system.
#ifndef GANTRY_AGENT_CGROUP_H_
#define GANTRY_AGENT_CGROUP_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

// The mount point of the cgroup v2 hierarchy in a /proc/self/mountinfo text: "/sys/fs/cgroup"
// when cgroup2 is mounted there, otherwise the first cgroup2 mount (e.g. the hybrid layout's
// "/sys/fs/cgroup/unified"); nullopt when there is none.
std::optional<std::string> ParseCgroup2Mount(std::string_view mountinfo);

// ParseCgroup2Mount of this process's mountinfo.
std::optional<std::string> FindCgroup2Mount();

// The mount point of the cgroup v1 hierarchy that holds `controller` ("memory", "devices"...)
// in a /proc/self/mountinfo text; nullopt when none does.
std::optional<std::string> ParseCgroup1Mount(std::string_view mountinfo,
                                             std::string_view controller);

class CgroupTree {
 public:
  // Uses <root>/gantry.slice/<node>, creating it, and checks that a job cgroup can be created
  // and removed there. Errors name the path and the reason.
  static Result<CgroupTree> Open(const std::string& root, const std::string& node);

  const std::string& base() const { return base_; }
  std::string JobPath(uint32_t job_id) const;
  // Creates the job's cgroup (an existing one is reused) and returns its path.
  Result<std::string> CreateJob(uint32_t job_id) const;
  // The job cgroups that exist now: (job id, path).
  std::vector<std::pair<uint32_t, std::string>> ListJobs() const;

 private:
  explicit CgroupTree(std::string base) : base_(std::move(base)) {}
  std::string base_;
};

// The processes in a cgroup (cgroup.procs; zombies are not listed); empty when it is gone.
std::vector<pid_t> CgroupProcs(const std::string& dir);
// SIGKILLs every process in the cgroup and its descendants at once (cgroup.kill, Linux 5.14);
// false when the kernel lacks it or the cgroup is gone.
bool CgroupKill(const std::string& dir);
// Freezes (true) or thaws (false) every process in the cgroup (cgroup.freeze, Linux 5.2): frozen
// processes stop running until thawed, without noticing, and cannot fork meanwhile; a fatal
// signal still kills them. False when the kernel lacks it or the cgroup is gone.
bool CgroupFreeze(const std::string& dir, bool frozen);
// Removes an empty cgroup directory (a missing one is fine).
Status RemoveCgroup(const std::string& dir);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_CGROUP_H_
