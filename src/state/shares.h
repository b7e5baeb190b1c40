// Where a job's allocation sits: its CPUs and memory per node, as gantryd books them on its
// nodes (Node.alloc_cpus, alloc_mem_mb). Pure; thread-safe.
#ifndef GANTRY_STATE_SHARES_H_
#define GANTRY_STATE_SHARES_H_

#include <cstdint>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "state/cluster_state.h"

namespace gantry::state {

struct NodeShares {
  std::vector<uint32_t> nodes;  // indexes in state.nodes
  std::vector<uint64_t> cpus;
  std::vector<uint64_t> mem;
};

// The per-node shares of a job on its nodes (nodes no longer configured are left out): each
// node's whole capacity when the total is exactly their sum (whole-node allocation), else an
// even split (a per-node request).
NodeShares SharesOf(const ClusterState& s, const v1::Job& job);

}  // namespace gantry::state

#endif  // GANTRY_STATE_SHARES_H_
