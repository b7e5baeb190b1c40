// Reading the kernel's process table (/proc): who belongs to a process group or session, and
// whether a pid still names the process it named before (start time).
//
// Thread-safe; every call reads /proc afresh, so answers are snapshots.
#ifndef GANTRY_PROC_PROC_H_
#define GANTRY_PROC_PROC_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::proc {

// The fields of /proc/<pid>/stat the agent needs.
struct ProcStat {
  pid_t pid = 0;
  char state = '?';  // 'R', 'S', 'Z' (zombie), ...
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
  uint64_t start_ticks = 0;  // start time after boot, in clock ticks
  uint64_t vsize_bytes = 0;  // virtual memory size (field 23; 0 when the line is shorter)
  uint64_t rss_pages = 0;    // resident set (field 24)
};

// A process's I/O counters (/proc/<pid>/io): bytes it made the storage layer read and write.
struct ProcIo {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
};

// Parses the text of /proc/<pid>/io; nullopt when a counter is missing.
std::optional<ProcIo> ParseProcIo(std::string_view text);
std::optional<ProcIo> ReadProcIo(pid_t pid, const std::string& proc_root = "/proc");

// Parses the text of /proc/<pid>/stat; nullopt when malformed. The command name in parentheses
// may hold spaces and ')' (the fields after the last ')' are read).
std::optional<ProcStat> ParseProcStat(std::string_view text);

// The stat of a live process (zombies included); nullopt when there is none.
std::optional<ProcStat> ReadProcStat(pid_t pid, const std::string& proc_root = "/proc");

// Every process that is not a zombie and whose process group is `pgid` or whose session is
// `sid` (0 = no match on that field).
std::vector<pid_t> GroupOrSessionMembers(pid_t pgid, pid_t sid,
                                         const std::string& proc_root = "/proc");

// `root` and every process descended from it (the kernel's children lists, /proc/<pid>/task/
// <tid>/children): cheap for a small tree, where GroupOrSessionMembers reads every process's
// stat. Processes that left the tree (re-parented to init) are not found. Falls back to
// GroupOrSessionMembers(root, root) where the kernel has no children lists. Zombies are left
// out.
std::vector<pid_t> ProcessTree(pid_t root, const std::string& proc_root = "/proc");

// True when `pid` is a zombie or gone.
bool IsDeadOrZombie(pid_t pid);

// True when `pid` still runs (not a zombie) and is the process that started at `start_ticks`
// (0 = whichever process has the pid), not a later one that reuses its pid.
bool IsStillRunning(pid_t pid, uint64_t start_ticks);

}  // namespace gantry::proc

#endif  // GANTRY_PROC_PROC_H_
