#include "sched/will_run.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "model/node_state.h"
#include "sched/partition_check.h"
#include "sched/scheduler.h"
#include "state/resources.h"
#include "text/ascii.h"

namespace gantry::sched {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

// From when the node is free of its current jobs.
int64_t FreeFrom(const state::ClusterState& s, const v1::Node& node, int64_t now) {
  int64_t free = now;
  for (uint32_t id : node.job_ids()) {
    const v1::Job* job = s.FindJob(id);
    if (job == nullptr) continue;
    if (job->end_time() == 0) return kNever;
    free = std::max(free, job->end_time());
  }
  return free;
}

// The job in one partition (index p), or nullopt.
std::optional<WillRun> InPartition(const state::ClusterState& s, const v1::Job& job, size_t p,
                                   int64_t now) {
  const v1::Partition& part = s.partitions[p];
  if (!PartitionRefusal(PartitionLimits::Of(part), job).empty()) return std::nullopt;
  const v1::JobRequest& r = job.request();
  const uint32_t min_nodes = state::MinNodesOf(r);
  auto need = state::NodeRequestOf(r);
  const auto required = s.NodeIndexesOf(r.req_nodes());
  const auto excluded = s.NodeIndexesOf(r.exc_nodes());
  if (!need.ok() || !required || !excluded) return std::nullopt;

  std::vector<std::pair<int64_t, uint32_t>> free;  // (free from, node index), partition order
  std::vector<std::pair<int64_t, uint32_t>> named;
  for (uint32_t i : s.partition_nodes[p]) {
    const v1::Node& node = s.nodes[i];
    if (std::find(excluded->begin(), excluded->end(), i) != excluded->end()) continue;
    if (!NodeIsUsable(node) || !state::Fits(state::CapacityOf(node), *need)) continue;
    const int64_t from = FreeFrom(s, node, now);
    if (from == kNever) continue;
    const bool is_named = std::find(required->begin(), required->end(), i) != required->end();
    (is_named ? named : free).emplace_back(from, i);
  }
  if (named.size() != required->size()) return std::nullopt;  // a -w node cannot take it
  std::stable_sort(free.begin(), free.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int64_t, uint32_t>> chosen = named;
  for (const auto& f : free) {
    if (chosen.size() >= min_nodes) break;
    chosen.push_back(f);
  }
  if (chosen.size() < min_nodes) return std::nullopt;
  WillRun run;
  run.partition = part.name();
  std::vector<uint32_t> indexes;
  for (const auto& [from, i] : chosen) {
    run.start_time = std::max(run.start_time, from);
    indexes.push_back(i);
  }
  std::sort(indexes.begin(), indexes.end());
  for (uint32_t i : indexes) {
    run.nodes.push_back(s.nodes[i].name());
    run.num_cpus += state::CapacityOf(s.nodes[i]).cpus;
  }
  return run;
}

}  // namespace

std::optional<WillRun> WhenWouldItRun(const state::ClusterState& state, const v1::Job& job,
                                      int64_t now) {
  std::vector<std::string> names(job.request().partitions().begin(),
                                 job.request().partitions().end());
  if (names.empty()) names.push_back(job.partition());
  std::optional<WillRun> best;
  for (const std::string& name : names) {
    const int p = state.PartitionIndex(name);
    if (p < 0) continue;
    std::optional<WillRun> run = InPartition(state, job, static_cast<size_t>(p), now);
    if (run && (!best || run->start_time < best->start_time)) best = std::move(run);
  }
  return best;
}

}  // namespace gantry::sched
