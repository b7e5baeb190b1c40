#include "state/shares.h"

#include <string>

namespace gantry::state {
namespace {

// How a job's CPUs or memory spread over its nodes: each node's whole capacity when the total is
// exactly the sum (whole-node allocation), else an even split (a per-node request).
std::vector<uint64_t> Shares(uint64_t total, const std::vector<uint64_t>& capacity) {
  std::vector<uint64_t> out(capacity.size(), 0);
  if (capacity.empty()) return out;
  uint64_t sum = 0;
  for (uint64_t c : capacity) sum += c;
  if (sum == total) return capacity;
  const uint64_t n = capacity.size();
  for (size_t i = 0; i < out.size(); ++i) out[i] = total / n + (i < total % n ? 1 : 0);
  return out;
}

}  // namespace

NodeShares SharesOf(const ClusterState& s, const v1::Job& job) {
  NodeShares out;
  std::vector<uint64_t> cpu_cap;
  std::vector<uint64_t> mem_cap;
  for (const std::string& name : job.nodes()) {
    const int i = s.NodeIndex(name);
    if (i < 0) continue;
    out.nodes.push_back(static_cast<uint32_t>(i));
    cpu_cap.push_back(s.nodes[i].cpus());
    mem_cap.push_back(s.nodes[i].real_memory_mb());
  }
  out.cpus = Shares(job.num_cpus(), cpu_cap);
  out.mem = Shares(job.alloc_mem_mb(), mem_cap);
  return out;
}

}  // namespace gantry::state
