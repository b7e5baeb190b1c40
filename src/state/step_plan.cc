#include "state/step_plan.h"

#include <algorithm>
#include <string>

#include "model/task_layout.h"
#include "text/hostlist.h"

namespace gantry::state {
namespace {

Status NotAvailable(const std::string& why) {
  return InvalidArgument("Requested node configuration is not available (" + why + ")");
}

}  // namespace

Result<StepPlacement> PlaceStep(const v1::Job& job, const v1::JobStepRequest& request) {
  const std::vector<std::string> job_nodes(job.nodes().begin(), job.nodes().end());
  if (job_nodes.empty()) return NotAvailable("the job has no nodes");
  std::vector<uint32_t> candidates;  // indexes into job_nodes
  if (!request.node_list().empty()) {
    Result<std::vector<std::string>> wanted = text::ExpandHostlist(request.node_list());
    if (!wanted.ok()) return InvalidArgument(wanted.status().message());
    for (const std::string& name : *wanted) {
      if (std::find(job_nodes.begin(), job_nodes.end(), name) == job_nodes.end()) {
        return NotAvailable("-w " + name + " is not one of the job's nodes");
      }
    }
    for (uint32_t i = 0; i < job_nodes.size(); ++i) {
      if (std::find(wanted->begin(), wanted->end(), job_nodes[i]) != wanted->end()) {
        candidates.push_back(i);
      }
    }
  } else {
    for (uint32_t i = 0; i < job_nodes.size(); ++i) candidates.push_back(i);
  }
  const auto available = static_cast<uint32_t>(candidates.size());
  const uint32_t per_node = request.ntasks_per_node();
  uint32_t tasks = request.num_tasks();
  uint32_t nodes = request.num_nodes();
  if (nodes == 0) {
    if (tasks > 0 && per_node > 0) {
      nodes = (tasks + per_node - 1) / per_node;
    } else if (tasks > 0) {
      nodes = std::min(tasks, available);
    } else {
      nodes = available;
    }
  }
  if (nodes > available) {
    return NotAvailable("-N " + std::to_string(nodes) + " but the job has " +
                        std::to_string(available) + " node(s) to offer");
  }
  if (tasks == 0) tasks = per_node > 0 ? per_node * nodes : nodes;
  if (uint64_t{tasks} > uint64_t{kMaxTasksPerNode} * nodes) {
    return NotAvailable(std::to_string(tasks) + " tasks on " + std::to_string(nodes) +
                        " node(s): more than MaxTasksPerNode=" + std::to_string(kMaxTasksPerNode) +
                        " each");
  }
  if (tasks < nodes) {
    return NotAvailable(std::to_string(tasks) + " task(s) cannot use " + std::to_string(nodes) +
                        " nodes");
  }
  const uint32_t cpus_per_task = std::max<uint32_t>(request.cpus_per_task(), 1);
  const uint32_t job_cpus_per_node =
      std::max<uint32_t>(job.num_cpus() / static_cast<uint32_t>(job_nodes.size()), 1);
  const std::optional<model::Distribution> distribution =
      model::ParseDistribution(request.distribution());
  if (!distribution) {
    return InvalidArgument("Invalid --distribution specification: " + request.distribution());
  }
  std::vector<uint32_t> counts;
  if (per_node > 0) {
    if (uint64_t{per_node} * nodes < tasks) {
      return NotAvailable(std::to_string(tasks) + " tasks do not fit " + std::to_string(nodes) +
                          " nodes x --ntasks-per-node=" + std::to_string(per_node));
    }
    uint32_t left = tasks;
    for (uint32_t i = 0; i < nodes; ++i) {
      counts.push_back(std::min(per_node, left - std::min(left, nodes - 1 - i)));
      left -= counts.back();
    }
  } else if (distribution->kind == model::TaskDistribution::kPlane) {
    counts = model::PlaneTaskLayout(tasks, nodes, distribution->plane_size);
  } else {
    counts = model::BlockTaskLayout(tasks, std::vector<uint32_t>(nodes, job_cpus_per_node),
                                    cpus_per_task);
  }
  StepPlacement placement;
  placement.ranks = model::TaskRanks(counts, distribution->kind, distribution->plane_size);
  v1::JobStep& step = placement.step;
  for (uint32_t i = 0; i < nodes; ++i) {
    step.add_nodes(job_nodes[candidates[i]]);
    step.add_tasks_per_node(counts[i]);
    placement.job_node_index.push_back(candidates[i]);
  }
  step.set_node(step.nodes(0));
  step.set_distribution(distribution->ToString());
  step.set_cpus_per_task(request.cpus_per_task());
  step.set_num_tasks(tasks);
  step.set_num_cpus(static_cast<uint32_t>(
      std::min<uint64_t>(uint64_t{tasks} * cpus_per_task, uint64_t{job_cpus_per_node} * nodes)));
  return placement;
}

}  // namespace gantry::state
