// What a job may use on a node, enforced with cgroups as Slurm's task/cgroup does with
// ConstrainRAMSpace=yes and ConstrainCores=yes: memory (the kernel's OOM killer acts inside the
// job, which then ends OUT_OF_MEMORY: model::kWaitStatusOom), CPUs (a cpuset of `cpus` CPUs of
// its own where the node has that many free, the lowest-numbered first, and as bandwidth:
// `cpus` CPUs' worth of time per period) and a pids limit against fork bombs.
//
// The CPUs in use are those of the jobs' cpusets: the file system is the state, so an agent
// that restarts sees what its predecessor gave out. A job that finds too few free CPUs (a
// suspended job keeps its cpuset while a preemptor runs) gets every CPU of the node, still held
// to its share by bandwidth.
//
// Where the limits go depends on the host: on a cgroup v2 hierarchy with the controllers, the
// job's own cgroup (CgroupTree), after enabling memory, pids and cpu for its parents; on a
// hybrid host whose controllers are cgroup v1 hierarchies, a job_<id> directory in each
// (<mount>/gantry.slice/<name>/job_<id>) that the job's processes join beside the v2 one.
// Controllers found nowhere are skipped (Describe says which apply).
//
// Thread-safe: all state is in the file system.
#ifndef GANTRY_AGENT_JOB_LIMITS_H_
#define GANTRY_AGENT_JOB_LIMITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"

namespace gantry::agent {

// Tasks (processes and threads) a job may have on one node.
inline constexpr uint32_t kJobPidsMax = 16384;

struct JobLimits {
  uint64_t memory_bytes = 0;  // 0 = none
  uint32_t cpus = 0;          // 0 = none
  uint32_t pids = 0;          // 0 = none
};

// A kernel CPU list ("0-3,8,10-11") as CPU numbers, sorted; nullopt when malformed. And back.
std::optional<std::vector<uint32_t>> ParseCpuList(std::string_view text);
std::string FormatCpuList(const std::vector<uint32_t>& cpus);
// The lowest `count` CPUs of `node_cpus` not in `used`; every CPU of the node when fewer are
// free or `count` is 0 or not below the node's.
std::vector<uint32_t> PickCpus(const std::vector<uint32_t>& node_cpus,
                               const std::vector<uint32_t>& used, uint32_t count);
// The limits of `job` on each of its nodes: its memory and CPUs divided evenly among them
// (the controller allocates alike on each), kJobPidsMax.
JobLimits LimitsOf(const v1::Job& job);

class JobLimiter {
 public:
  // `v2_base`: the agent's cgroup v2 directory (CgroupTree::base(), empty without one);
  // `name`: its directory name under gantry.slice; `mountinfo`: /proc/self/mountinfo's text.
  static JobLimiter Open(const std::string& v2_base, const std::string& name,
                         std::string_view mountinfo);
  // "memory, cpu, pids (cgroup v1)", or "none".
  std::string Describe() const;
  bool enforces() const { return !controllers_.empty(); }

  // Sets `limits` for job `job_id` (`v2_job_dir`: its v2 cgroup, may be empty) and returns the
  // cgroup directories its processes must join besides the v2 one (the v1 ones). Errors name
  // the file.
  Result<std::vector<std::string>> Apply(uint32_t job_id, const std::string& v2_job_dir,
                                         const JobLimits& limits) const;
  // The CPUs job `job_id`'s cpuset holds; empty without one.
  std::vector<uint32_t> JobCpus(uint32_t job_id, const std::string& v2_job_dir) const;
  // Whether the OOM killer killed a process of the job (memory.events / memory.oom_control).
  bool OomKilled(uint32_t job_id, const std::string& v2_job_dir) const;
  // Removes the job's v1 directories (empty by now; missing ones are fine).
  void Remove(uint32_t job_id) const;

 private:
  struct Controller {
    std::string name;  // "memory", "cpu", "pids", "cpuset"
    std::string base;  // v1: <mount>/gantry.slice/<name>; v2: empty (the job's own cgroup)
  };
  static std::string JobDir(const Controller& c, uint32_t job_id, const std::string& v2_job_dir);
  // Chooses and writes the job's cpuset (`dir`: its cpuset directory; `node_dir`: the agent's).
  Status PinCpus(const Controller& c, const std::string& dir, const std::string& node_dir,
                 uint32_t count) const;

  std::vector<Controller> controllers_;
  bool v2_ = false;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_JOB_LIMITS_H_
