// NVIDIA GPUs as the kernel shows them: GPU i is the character device /dev/nvidia<i> (major
// 195, minor i). One finder for the agent's device fence and the node health checks.
#ifndef GANTRY_SYS_NVIDIA_DEVICES_H_
#define GANTRY_SYS_NVIDIA_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gantry::sys {

inline constexpr unsigned kNvidiaMajor = 195;

// The GPUs in `dev_dir`: the minor numbers of the character devices "nvidia<digits>" of major
// kNvidiaMajor, ascending.
std::vector<uint32_t> FindNvidiaGpus(const std::string& dev_dir = "/dev");

}  // namespace gantry::sys

#endif  // GANTRY_SYS_NVIDIA_DEVICES_H_
