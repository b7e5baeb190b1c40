// Which GPU devices of a node a job holds (Job.node_gpus), chosen when it starts.
//
// A node's GPUs are the gpu entries of its Gres=, numbered in their written order:
// "gpu:a100:2,gpu:h100:2" has devices 0-1 (a100) and 2-3 (h100), as gres.conf's File= lines
// number /dev/nvidia0..3. A job's per-node request ("gpu:4", "gpu:h100:1") takes the lowest
// free devices (of the type, when it names one) that no other job on the node holds. The
// scheduler has already checked the counts; when fewer are free (an operator resumed a job
// whose GPUs were given away meanwhile) the job gets those there are.
// Pure; thread-safe.
#ifndef GANTRY_STATE_GPUS_H_
#define GANTRY_STATE_GPUS_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "text/gres.h"

namespace gantry::state {

struct GpuDevice {
  uint32_t index = 0;
  std::string type;  // empty when the node's entry names none
};

// The GPU devices of a node's (node-config syntax) GRES list.
std::vector<GpuDevice> GpuDevicesOf(const std::vector<text::GresSpec>& node_gres);

// The devices a request (job-request syntax, per node) takes among `devices`, skipping `taken`,
// with `gres` naming them by the node's types.
v1::NodeGpus PickGpus(const std::vector<GpuDevice>& devices,
                      const std::vector<text::GresSpec>& request, const std::set<uint32_t>& taken);

// The number of GPUs (any type) in a per-node job request ("gpu:2,gpu:b200:1" has 3).
uint32_t GpuCountOf(const std::vector<text::GresSpec>& request);

}  // namespace gantry::state

#endif  // GANTRY_STATE_GPUS_H_
