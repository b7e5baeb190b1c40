// ToSnapshot / FromSnapshot: the whole ClusterState as one v1::ClusterSnapshot and back.
#include <set>
#include <string>
#include <string_view>

#include "state/cluster_state.h"

namespace gantry::state {

v1::ClusterSnapshot ToSnapshot(const ClusterState& state) {
  v1::ClusterSnapshot out;
  out.set_next_job_id(state.next_job_id);
  out.mutable_jobs()->Reserve(static_cast<int>(state.jobs.size()));
  for (const auto& [id, job] : state.jobs) *out.add_jobs() = job;
  out.mutable_nodes()->Reserve(static_cast<int>(state.nodes.size()));
  for (const v1::Node& node : state.nodes) *out.add_nodes() = node;
  for (const v1::Partition& p : state.partitions) *out.add_partitions() = p;
  for (const auto& [id, names] : state.completing) {
    v1::NodeNames& entry = (*out.mutable_completing())[id];
    for (const std::string& name : names) entry.add_names(name);
  }
  for (const auto& [name, o] : state.partition_overrides)
    (*out.mutable_partition_overrides())[name] = o;
  *out.mutable_accounting() = ToProto(state.accounting);
  return out;
}

Result<ClusterState> FromSnapshot(const v1::ClusterSnapshot& snapshot) {
  ClusterState state;
  state.next_job_id = snapshot.next_job_id() == 0 ? 1 : snapshot.next_job_id();
  for (const v1::Job& job : snapshot.jobs()) {
    if (job.job_id() == 0) return InvalidArgument("snapshot: a job has id 0");
    if (!state.jobs.emplace(job.job_id(), job).second) {
      return InvalidArgument("snapshot: job " + std::to_string(job.job_id()) + " appears twice");
    }
  }
  std::set<std::string_view> names;
  for (const v1::Node& node : snapshot.nodes()) {
    if (!names.insert(node.name()).second) {
      return InvalidArgument("snapshot: node \"" + node.name() + "\" appears twice");
    }
  }
  state.nodes.assign(snapshot.nodes().begin(), snapshot.nodes().end());
  state.partitions.assign(snapshot.partitions().begin(), snapshot.partitions().end());
  for (const auto& [id, entry] : snapshot.completing()) {
    if (!state.jobs.contains(id)) {
      return InvalidArgument("snapshot: completing entry for unknown job " + std::to_string(id));
    }
    if (entry.names().empty()) continue;
    state.completing[id] = std::set<std::string>(entry.names().begin(), entry.names().end());
  }
  for (const auto& [name, o] : snapshot.partition_overrides()) state.partition_overrides[name] = o;
  state.accounting = FromProto(snapshot.accounting());
  RebuildIndexes(&state);
  return state;
}

}  // namespace gantry::state
