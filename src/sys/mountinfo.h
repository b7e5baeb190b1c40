// The mount table as /proc/self/mountinfo gives it: each mount's point, type, source and
// superblock options. One reader for the agent's cgroup lookups and the node health checks.
// The parsers are pure; ReadMountInfo reads this process's table.
#ifndef GANTRY_SYS_MOUNTINFO_H_
#define GANTRY_SYS_MOUNTINFO_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::sys {

struct Mount {
  std::string mount_point;    // octal escapes (\040 for a space) decoded
  std::string fs_type;        // "ext4", "nfs4", "cgroup2"
  std::string source;         // "/dev/sda1", "filer:/export/home"
  std::string super_options;  // "rw,memory" (a cgroup v1 mount names its controllers here)
};

// The mounts of a mountinfo text, in its order ("id parent major:minor root mount-point
// options [optional...] - fstype source super-options"); lines of another shape are skipped.
std::vector<Mount> ParseMountInfo(std::string_view text);

// The mount that holds `path` (absolute, without symbolic links): the longest mount point that
// is `path` or one of its parents; of equal ones the last (mounted over the others).
std::optional<Mount> MountOf(const std::vector<Mount>& mounts, const std::string& path);

// This process's /proc/self/mountinfo ("" when it cannot be read); `path` for tests.
std::string ReadMountInfo(const std::string& path = "/proc/self/mountinfo");

}  // namespace gantry::sys

#endif  // GANTRY_SYS_MOUNTINFO_H_
