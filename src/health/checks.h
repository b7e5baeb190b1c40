// A node's built-in health checks (GPUs, disk, memory, the shared home) and the site's
// HealthCheckProgram, run by its agent (agent/health_monitor.h) with what the controller says
// the node declares (v1::HealthSettings). Each check answers a v1::HealthCheck: its name, whether
// it passed and what it found, in words an operator can act on ("7 of 8 GPUs present (nvidia3
// missing)", "/tmp: 0 B free of 16.0 MiB").
//
// The host is reached through HealthHost's paths only, so that the tests point them at fake
// device files, a fake /proc/meminfo and mount table, a small tmpfs.
// Thread-compatible: a HealthHost (with its GPU baseline) belongs to one caller.
#ifndef GANTRY_HEALTH_CHECKS_H_
#define GANTRY_HEALTH_CHECKS_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gantry/v1/node.pb.h"

namespace gantry::health {

struct HealthHost {
  std::string node;              // SLURMD_NODENAME for the program
  std::string spool;             // the agent's spool (its free space is checked)
  std::string home = "/home";    // where the shared home is mounted on this host
  std::string dev_dir = "/dev";  // where /dev/nvidia<N> are
  std::string meminfo = "/proc/meminfo";
  std::string mountinfo = "/proc/self/mountinfo";
  // Directories searched for nvidia-smi and dcgmi (":"-separated; "" = do not run them).
  std::string tool_path = "/usr/bin:/usr/sbin:/bin:/sbin";
  // The node shares its host with the other nodes of a local cluster (gantry up): the GPUs and
  // memory it declares are not the host's, and its home is a folder. The GPU check then watches
  // the devices found at its first run (none: nothing to watch), memory is not compared with
  // RealMemory, and the home folder stands in for the declared storage (it must be writable).
  bool emulated = false;
  std::chrono::milliseconds program_timeout{60000};  // Slurm kills the program after 60 s
  // Emulated nodes: the GPU minors found at the first run (set by CheckGpus).
  std::optional<std::set<uint32_t>> gpu_baseline;
};

// Every check for `settings`, in a fixed order: gpu (when the node declares GPUs), disk,
// memory, home (when a home storage is declared), program (when one is configured). `node` and
// `time` of the report are the caller's to set.
v1::HealthReport RunHealthChecks(HealthHost& host, const v1::HealthSettings& settings);

// The checks one by one (RunHealthChecks' parts).
v1::HealthCheck CheckGpus(HealthHost& host, uint32_t declared);
v1::HealthCheck CheckDisk(const HealthHost& host, const std::string& tmp_fs);
v1::HealthCheck CheckMemory(const HealthHost& host, uint64_t real_memory_mb);
v1::HealthCheck CheckHome(const HealthHost& host, const std::string& storage);
v1::HealthCheck CheckProgram(const HealthHost& host, const std::string& program);

// --- parts, for the tests ------------------------------------------------------------------

// Whether a filesystem with `avail` of `total` bytes free (and `free_inodes` of `inodes`) is
// full: less than 1 % of it or 100 MiB free (the smaller), or no inode left.
bool IsFull(uint64_t avail, uint64_t total, uint64_t free_inodes, uint64_t inodes);

// "512 B", "16.0 MiB", "12.3 GiB".
std::string Bytes(uint64_t bytes);

// MemTotal and MemAvailable of a /proc/meminfo text, in KiB; nullopt when either is missing.
struct MemInfo {
  uint64_t total_kib = 0;
  uint64_t available_kib = 0;
};
std::optional<MemInfo> ParseMeminfo(std::string_view text);

// The first line of a program's output that is not blank, trimmed; "" when none.
std::string FirstLine(std::string_view output);

}  // namespace gantry::health

#endif  // GANTRY_HEALTH_CHECKS_H_
