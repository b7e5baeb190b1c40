#include "sched/node_tables.h"

#include <algorithm>
#include <utility>

#include "model/job_state.h"
#include "model/node_state.h"
#include "state/records.h"

namespace gantry::sched {
namespace {

using model::NodeBaseState;
using model::NodeFlag;
using state::ClusterState;

// Flags that keep a node from taking new work.
constexpr uint32_t kUnusableFlags =
    static_cast<uint32_t>(NodeFlag::kDrain) | static_cast<uint32_t>(NodeFlag::kFail) |
    static_cast<uint32_t>(NodeFlag::kNoRespond) | static_cast<uint32_t>(NodeFlag::kMaint) |
    static_cast<uint32_t>(NodeFlag::kRebootRequested) |
    static_cast<uint32_t>(NodeFlag::kRebootIssued) | static_cast<uint32_t>(NodeFlag::kPoweredDown) |
    static_cast<uint32_t>(NodeFlag::kPoweringDown) | static_cast<uint32_t>(NodeFlag::kPowerDown) |
    static_cast<uint32_t>(NodeFlag::kPoweringUp) | static_cast<uint32_t>(NodeFlag::kInvalidReg);

// A node is free while it can take a job: idle, or (consumable resources) holding jobs that
// leave CPUs unallocated. Completing nodes wait for their epilogs.
Slot InitialSlot(const v1::Node& node, const state::NodeCapacity& capacity, bool whole_nodes) {
  if (!NodeIsUsable(node)) return Slot::kDown;
  const model::NodeState s = state::NodeStateOf(node);
  if (s.Has(NodeFlag::kCompleting)) return Slot::kBusy;
  if (node.job_ids().empty()) return s.base == NodeBaseState::kIdle ? Slot::kFree : Slot::kBusy;
  return !whole_nodes && node.alloc_cpus() < capacity.cpus ? Slot::kFree : Slot::kBusy;
}

Used UsedOn(const v1::Node& node) {
  Used u;
  u.cpus = node.alloc_cpus();
  u.mem_mb = node.alloc_mem_mb();
  if (!node.alloc_gres().empty()) {
    auto gres = text::ParseGres(node.alloc_gres(), text::GresSyntax::kJobRequest);
    if (gres.ok()) u.gres = std::move(gres).value();
  }
  return u;
}

// When a node is wholly free for new work: at the latest end of its jobs (NodePlans::kOpenNow
// without jobs), or never (down; a job without a time limit, or not running).
int64_t FreeAt(const ClusterState& s, const v1::Node& node, Slot slot) {
  if (slot == Slot::kDown) return NodePlans::kNever;
  int64_t at = NodePlans::kOpenNow;
  for (uint32_t id : node.job_ids()) {
    const v1::Job* job = s.FindJob(id);
    if (job == nullptr) continue;
    const uint32_t limit = job->time_limit_min();
    if (state::JobStateOf(*job).base != model::JobBaseState::kRunning || job->start_time() <= 0 ||
        limit == state::kUnlimited || limit == 0) {
      return NodePlans::kNever;
    }
    at = std::max(at, job->start_time() + int64_t{limit} * 60);
  }
  return at;
}

}  // namespace

bool NodeIsUsable(const v1::Node& node) {
  const model::NodeState s = state::NodeStateOf(node);
  if (s.base == NodeBaseState::kDown || s.base == NodeBaseState::kUnknown ||
      s.base == NodeBaseState::kFuture || s.base == NodeBaseState::kError) {
    return false;
  }
  return (s.flags & kUnusableFlags) == 0;
}

int64_t Used::GresHeld(const text::GresSpec& want) const {
  int64_t n = 0;
  for (const text::GresSpec& g : gres) {
    if (g.name == want.name && (want.type.empty() || g.type.empty() || g.type == want.type)) {
      n += g.count;
    }
  }
  return n;
}

void Used::Add(uint64_t more_cpus, uint64_t more_mem,
               const std::vector<text::GresSpec>& more_gres) {
  cpus += more_cpus;
  mem_mb += more_mem;
  gres.insert(gres.end(), more_gres.begin(), more_gres.end());
}

void Used::Remove(uint64_t less_cpus, uint64_t less_mem,
                  const std::vector<text::GresSpec>& less_gres) {
  cpus -= std::min(cpus, less_cpus);
  mem_mb -= std::min(mem_mb, less_mem);
  for (const text::GresSpec& g : less_gres) {
    int64_t left = g.count;
    for (text::GresSpec& held : gres) {
      if (held.name != g.name || held.type != g.type || left == 0) continue;
      const int64_t take = std::min(held.count, left);
      held.count -= take;
      left -= take;
    }
    std::erase_if(gres, [](const text::GresSpec& held) { return held.count == 0; });
  }
}

void NodeTables::Refresh(const ClusterState& s, int64_t now, bool whole_nodes) {
  const bool stamped = s.node_stamps.size() == s.nodes.size();
  if (!built_ || !stamped || lineage_ != s.lineage.id() || whole_nodes != whole_nodes_ ||
      s.node_clock < clock_ || slots.size() != s.nodes.size()) {
    whole_nodes_ = whole_nodes;
    Build(s);
    // Without stamps (a state whose indexes were never built) nothing says what changed.
    built_ = stamped;
    lineage_ = s.lineage.id();
    last_refreshed_ = s.nodes.size();
  } else {
    last_refreshed_ = 0;
    if (s.node_clock != clock_) {
      for (uint32_t i = 0; i < s.nodes.size(); ++i) {
        if (s.node_stamps[i] <= clock_) continue;
        Restore(s, i);
        ++last_refreshed_;
      }
    }
  }
  clock_ = s.node_clock;
  if (shapes.size() > kShapes) shapes.clear();
  plans.SetNow(now);
}

void NodeTables::Restore(const ClusterState& s, uint32_t i) {
  const v1::Node& node = s.nodes[i];
  used[i] = UsedOn(node);
  const bool was_down = slots[i] == Slot::kDown;
  slots[i] = InitialSlot(node, capacity[i], whole_nodes_);
  if (was_down != (slots[i] == Slot::kDown)) ++down_changes_;
  if (slots[i] == Slot::kFree) {
    free_now.insert(i);
  } else {
    free_now.erase(i);
  }
  plans.Restore(i, FreeAt(s, node, slots[i]));
}

void NodeTables::Build(const ClusterState& s) {
  const size_t n = s.nodes.size();
  state::NodeConfigs scratch;
  const state::NodeConfigs& configs = state::ConfigsOf(s, &scratch);
  capacity.configs_ = &configs == s.node_configs.get()
                          ? s.node_configs
                          : std::make_shared<const state::NodeConfigs>(std::move(scratch));
  used.assign(n, {});
  slots.assign(n, Slot::kDown);
  shapes.clear();
  ++down_changes_;
  free_now.clear();
  plans = NodePlans(std::vector<int64_t>(n, NodePlans::kNever));
  for (uint32_t i = 0; i < n; ++i) Restore(s, i);
  in_index_order.assign(s.partitions.size(), true);
  position.assign(s.partitions.size(), std::vector<uint32_t>(n, UINT32_MAX));
  order.assign(s.partitions.size(), {});
  for (size_t p = 0; p < s.partitions.size(); ++p) {
    std::vector<uint32_t> o = s.partition_nodes[p];
    std::ranges::stable_sort(o, [&s](uint32_t a, uint32_t b) {
      return std::max<uint32_t>(s.nodes[a].weight(), 1) <
             std::max<uint32_t>(s.nodes[b].weight(), 1);
    });
    in_index_order[p] = std::ranges::is_sorted(o);
    for (size_t k = 0; k < o.size(); ++k) position[p][o[k]] = static_cast<uint32_t>(k);
    order[p] = std::move(o);
  }
}

}  // namespace gantry::sched
