#include "state/cluster_state.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "state/records.h"
#include "text/hostlist.h"

namespace gantry::state {

PendingKey PendingKeyOf(const v1::Job& job) {
  return PendingKey{job.priority(), job.submit_time(), job.job_id()};
}

std::optional<std::vector<uint32_t>> ClusterState::NodeIndexesOf(std::string_view hostlist) const {
  std::vector<uint32_t> out;
  if (hostlist.empty()) return out;
  Result<std::vector<std::string>> names = text::ExpandHostlist(hostlist);
  if (!names.ok()) return std::nullopt;
  for (const std::string& name : *names) {
    const int i = NodeIndex(name);
    if (i < 0) return std::nullopt;
    if (std::find(out.begin(), out.end(), static_cast<uint32_t>(i)) == out.end()) {
      out.push_back(static_cast<uint32_t>(i));
    }
  }
  return out;
}

int ClusterState::NodeIndex(std::string_view name) const {
  const auto it = node_index.find(name);
  if (it != node_index.end() && it->second < nodes.size() && nodes[it->second].name() == name) {
    return static_cast<int>(it->second);
  }
  // The index is derived data; if a caller edited `nodes` without RebuildIndexes, stay correct.
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

int ClusterState::PartitionIndex(std::string_view name) const {
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (partitions[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

const v1::Node* ClusterState::FindNode(std::string_view name) const {
  const int i = NodeIndex(name);
  return i < 0 ? nullptr : &nodes[i];
}

const v1::Partition* ClusterState::FindPartition(std::string_view name) const {
  const int i = PartitionIndex(name);
  return i < 0 ? nullptr : &partitions[i];
}

const v1::Partition* ClusterState::DefaultPartition() const {
  for (const v1::Partition& p : partitions) {
    if (p.is_default()) return &p;
  }
  return partitions.empty() ? nullptr : &partitions.front();
}

const v1::Job* ClusterState::FindJob(uint32_t id) const {
  const auto it = jobs.find(id);
  return it == jobs.end() ? nullptr : &it->second;
}

uint64_t Lineage::Next() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

namespace {

NodeConfigs BuildNodeConfigs(const std::vector<v1::Node>& nodes,
                             const std::vector<std::vector<uint32_t>>& partition_nodes) {
  NodeConfigs out;
  out.of_node.reserve(nodes.size());
  using Definition = std::tuple<uint32_t, uint64_t, std::string_view, std::string_view>;
  std::map<Definition, uint32_t> seen;
  for (const v1::Node& node : nodes) {
    const Definition key{node.cpus(), node.real_memory_mb(), node.gres(), node.features()};
    auto [it, added] = seen.try_emplace(key, static_cast<uint32_t>(out.capacities.size()));
    if (added) out.capacities.push_back(CapacityOf(node));
    out.of_node.push_back(it->second);
  }
  out.of_partition.reserve(partition_nodes.size());
  for (const std::vector<uint32_t>& members : partition_nodes) {
    std::set<uint32_t> configs;
    for (uint32_t i : members) configs.insert(out.of_node[i]);
    out.of_partition.emplace_back(configs.begin(), configs.end());
  }
  return out;
}

}  // namespace

const NodeConfigs& ConfigsOf(const ClusterState& state, NodeConfigs* scratch) {
  const NodeConfigs& kept = *state.node_configs;
  if (kept.of_node.size() == state.nodes.size() &&
      kept.of_partition.size() == state.partition_nodes.size()) {
    return kept;
  }
  *scratch = BuildNodeConfigs(state.nodes, state.partition_nodes);
  return *scratch;
}

void RebuildIndexes(ClusterState* state) {
  state->lineage.Renew();
  state->node_stamps.assign(state->nodes.size(), 0);
  state->node_index.clear();
  for (size_t i = 0; i < state->nodes.size(); ++i) {
    state->node_index.emplace(state->nodes[i].name(), static_cast<uint32_t>(i));
  }
  state->partition_nodes.assign(state->partitions.size(), {});
  for (size_t p = 0; p < state->partitions.size(); ++p) {
    for (const std::string& name : state->partitions[p].nodes()) {
      const auto it = state->node_index.find(name);
      if (it != state->node_index.end()) state->partition_nodes[p].push_back(it->second);
    }
  }
  state->node_configs =
      std::make_shared<const NodeConfigs>(BuildNodeConfigs(state->nodes, state->partition_nodes));
  state->pending.clear();
  state->active.clear();
  state->preempted.clear();
  state->arrays.clear();
  for (const auto& [id, job] : state->jobs) {
    if (IsPendingJob(job)) {
      state->pending.insert(PendingKeyOf(job));
    }
    if (model::IsActive(JobStateOf(job).base)) state->active.insert(id);
    if (job.preempted_by() != 0 && JobStateOf(job).base == model::JobBaseState::kSuspended) {
      state->preempted.insert(id);
    }
    if (job.array_job_id() != 0) state->arrays[job.array_job_id()].insert(id);
  }
}

size_t PurgeFinishedJobs(ClusterState* state, int64_t ended_before) {
  size_t purged = 0;
  for (auto it = state->jobs.begin(); it != state->jobs.end();) {
    const v1::Job& job = it->second;
    if (model::IsCompleted(JobStateOf(job)) && job.end_time() < ended_before &&
        !state->completing.contains(job.job_id())) {
      if (job.array_job_id() != 0) {
        const auto array = state->arrays.find(job.array_job_id());
        if (array != state->arrays.end()) {
          array->second.erase(job.job_id());
          if (array->second.empty()) state->arrays.erase(array);
        }
      }
      state->changed_jobs.push_back(job.job_id());
      it = state->jobs.erase(it);
      ++purged;
    } else {
      ++it;
    }
  }
  return purged;
}

}  // namespace gantry::state
