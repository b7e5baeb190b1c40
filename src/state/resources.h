// What a job asks of each node, what a node offers, and whether one satisfies the other. Shared
// by admission (a request no node could ever satisfy is refused) and the scheduler (which nodes
// a job may use), so both read a request the same way:
//   nodes      min_nodes (at least 1) .. max_nodes (0 = min_nodes);
//   CPUs       per task = cpus_per_task (at least 1); per node = ntasks_per_node x cpus per task
//              when ntasks_per_node is set, else ceil(total / min_nodes) where total =
//              num_tasks x cpus per task (num_tasks unset: one task per node);
//   memory     per node = mem_per_node_mb, else mem_per_cpu_mb x CPUs per node; 0 = the whole
//              node (Slurm's --mem=0);
//   GRES       the request's gres (job-request syntax: "gpu:4", "gres:gpu:b200:8", "gres/gpu:2"),
//              per node, matched by name and (when given) type against the node's Gres=;
//   features   -C: alternatives separated by '|', each a list of features joined by '&' or ','
//              ("a100&ib|h100"); a node must have every feature of one alternative. Brackets
//              and counts ("[a|b]", "a*2") are not supported.
// Pure; thread-safe.
#ifndef GANTRY_STATE_RESOURCES_H_
#define GANTRY_STATE_RESOURCES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"
#include "text/gres.h"

namespace gantry::state {

struct FeatureExpr {
  std::vector<std::vector<std::string>> alternatives;  // empty: no constraint

  bool empty() const { return alternatives.empty(); }
  // Whether a node with these features satisfies one alternative.
  bool Matches(const std::vector<std::string>& node_features) const;
};

// Parses -C. Errors (InvalidArgument) carry Slurm's text "Invalid feature specification".
Result<FeatureExpr> ParseFeatures(std::string_view text);

// A node's Features= list ("a,b"), split; empty pieces skipped.
std::vector<std::string> SplitFeatures(std::string_view text);

// What one node offers, parsed once from its record.
struct NodeCapacity {
  uint32_t cpus = 0;
  uint64_t mem_mb = 0;
  std::vector<text::GresSpec> gres;  // node-config syntax; unparsable Gres= counts as none
  std::vector<std::string> features;
};
NodeCapacity CapacityOf(const v1::Node& node);

// What a job needs on each of its nodes.
struct NodeRequest {
  uint32_t cpus = 1;
  uint64_t mem_mb = 0;  // 0 = the whole node
  std::vector<text::GresSpec> gres;
  FeatureExpr features;
};

uint32_t MinNodesOf(const v1::JobRequest& request);     // max(1, min_nodes)
uint32_t MaxNodesOf(const v1::JobRequest& request);     // max(min, max_nodes)
uint32_t CpusPerTaskOf(const v1::JobRequest& request);  // max(1, cpus_per_task)
uint64_t TotalCpusOf(const v1::JobRequest& request);    // CPUs the whole job asks for
uint32_t CpusPerNodeOf(const v1::JobRequest& request);
uint64_t MemPerNodeOf(const v1::JobRequest& request);  // 0 = whole node
// Memory a pending job asks for in all (per node x min nodes); 0 = whole nodes.
uint64_t RequestedMemOf(const v1::JobRequest& request);

// The per-node request. Errors use Slurm's texts: "Invalid generic resource (gres)
// specification", "Invalid feature specification".
Result<NodeRequest> NodeRequestOf(const v1::JobRequest& request);

// Whether the node's configuration can hold one node's share of the job (ignoring its state
// and current jobs).
bool Fits(const NodeCapacity& node, const NodeRequest& request);

// How many of GRES `want` (its name, and its type when given) the node has.
int64_t GresCount(const NodeCapacity& node, const text::GresSpec& want);

// Whether the node has every GRES name (and type, when given) in `gres`, whatever the count.
bool HasGresNames(const NodeCapacity& node, const std::vector<text::GresSpec>& gres);

}  // namespace gantry::state

#endif  // GANTRY_STATE_RESOURCES_H_
