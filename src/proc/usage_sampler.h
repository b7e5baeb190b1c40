// Usage of a set of processes (a job's batch script and what it started, an srun step's task)
// while they run, sampled as Slurm's jobacct_gather/linux does at JobAcctGatherFrequency: each
// sample sums the resident and virtual memory and the I/O counters over the processes the
// caller's `processes` function names at that moment. sacct's MaxRSS, MaxVMSize, AveRSS,
// AveVMSize, MaxDiskRead and MaxDiskWrite come from here (CPU times come from rusage).
//
// Disk I/O: /proc/<pid>/io counts bytes a process made the storage layer move; processes that
// ended between samples are missed, so with a cgroup the sampler also reads the cgroup's io.stat
// (which keeps what every process in it moved) when sampling stops.
//
// Thread-safe: the sampler runs one thread; Stop() may be called from any thread.
#ifndef GANTRY_PROC_USAGE_SAMPLER_H_
#define GANTRY_PROC_USAGE_SAMPLER_H_

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace gantry::proc {

struct UsageSamples {
  uint64_t samples = 0;
  uint64_t max_rss_kib = 0;
  uint64_t max_vmsize_kib = 0;
  double total_rss_kib = 0;  // summed over samples (for the averages)
  double total_vmsize_kib = 0;
  uint64_t read_bytes = 0;  // the most seen: counters only grow
  uint64_t write_bytes = 0;

  uint64_t ave_rss_kib() const { return samples == 0 ? 0 : total_rss_kib / samples; }
  uint64_t ave_vmsize_kib() const { return samples == 0 ? 0 : total_vmsize_kib / samples; }
};

// One sample of these totals folded in.
void AddSample(UsageSamples* into, uint64_t rss_kib, uint64_t vmsize_kib, uint64_t read_bytes,
               uint64_t write_bytes);

// The bytes read and written in a cgroup v2 io.stat text (every device's rbytes and wbytes).
void ParseIoStat(std::string_view text, uint64_t* read_bytes, uint64_t* write_bytes);

class UsageSampler {
 public:
  // Samples the processes `processes` names (it is called from the sampler's thread) at once
  // and then every `period`; a zero period samples only at once. `cgroup`: the processes'
  // cgroup directory, "" = none.
  UsageSampler(std::function<std::vector<pid_t>()> processes, std::string cgroup,
               std::chrono::milliseconds period);
  ~UsageSampler();
  UsageSampler(const UsageSampler&) = delete;
  UsageSampler& operator=(const UsageSampler&) = delete;

  // Ends sampling and returns what it saw. Idempotent (later calls return the same).
  UsageSamples Stop();

 private:
  void SampleOnce();
  void Loop();

  const std::function<std::vector<pid_t>()> processes_;
  const std::string cgroup_;
  const std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  UsageSamples samples_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace gantry::proc

#endif  // GANTRY_PROC_USAGE_SAMPLER_H_
