// Fencing a job off from the node's other GPUs (Slurm's ConstrainDevices), where the kernel
// lets the agent: NVIDIA GPU i is the character device /dev/nvidia<i> (major 195, minor i); a
// job's processes join a cgroup of the v1 "devices" controller that denies every such device
// except the job's (Job.node_gpus on this node), so opening another GPU fails with EPERM
// whatever CUDA_VISIBLE_DEVICES says. The shared devices (/dev/nvidiactl, /dev/nvidia-uvm)
// stay open to it.
//
// Where there is no v1 devices hierarchy (a cgroup v2-only host), AttachGpuFilter fences the
// job's v2 cgroup with an eBPF device program instead, as Slurm does there. Without either, or
// without /dev/nvidia<i>, jobs are not fenced: the indices in CUDA_VISIBLE_DEVICES are then the
// only separation (README, compatibility notes).
//
// Layout: <devices mount>/gantry.slice/<name>/job_<id>, <name> as CgroupTree's.
// Thread-safe: all state is in the file system.
#ifndef GANTRY_AGENT_GPU_DEVICES_H_
#define GANTRY_AGENT_GPU_DEVICES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

// The same fence on a cgroup v2 directory (Slurm's way there): an eBPF device program attached
// to `cgroup_dir` that refuses the NVIDIA devices with the minors `denied` and lets every other
// device through. It stays attached until the cgroup is removed. Needs root and a kernel with
// BPF_PROG_TYPE_CGROUP_DEVICE; errors name the step (load, attach) and errno.
Status AttachGpuFilter(const std::string& cgroup_dir, const std::vector<uint32_t>& denied);

class GpuFence {
 public:
  // Uses <devices mount>/gantry.slice/<name> (created), fencing the GPUs `gpus` (minors).
  // Errors name the path and the reason; `mount` "" = find it in /proc/self/mountinfo.
  static Result<GpuFence> Open(const std::string& name, std::vector<uint32_t> gpus,
                               const std::string& mount = "");

  // A cgroup for the job that may use only `allowed` of the node's GPUs; its directory, to
  // join (SpawnSpec.extra_cgroups). Idempotent.
  Result<std::string> CreateJob(uint32_t job_id, const std::vector<uint32_t>& allowed) const;
  // Removes the job's cgroup once its processes are gone (best effort).
  void RemoveJob(uint32_t job_id) const;

  const std::vector<uint32_t>& gpus() const { return gpus_; }
  const std::string& base() const { return base_; }

 private:
  GpuFence(std::string base, std::vector<uint32_t> gpus)
      : base_(std::move(base)), gpus_(std::move(gpus)) {}
  std::string JobPath(uint32_t job_id) const;

  std::string base_;
  std::vector<uint32_t> gpus_;
};

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_GPU_DEVICES_H_
