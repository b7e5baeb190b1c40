// A scheduling pass's picture of the nodes before it decides anything: what each node can hold,
// what its jobs hold, whether it may take work now, when it is wholly free, and each
// partition's nodes in the order jobs get them.
//
// The caller keeps one from pass to pass (core::Memory), so a pass on a large cluster does not
// read every node again: Refresh reads only the nodes an event stamped since the last pass
// (ClusterState::node_stamps) and builds everything anew when the state's lineage changed
// (another state, a copy, new node definitions or partitions). A pass changes the tables as it
// allocates and plans, notes each node it changed, and gives it back (Restore) when it ends, so
// the tables between passes always match the state. Schedule without tables builds its own.
// Not thread-safe: one pass at a time.
#ifndef GANTRY_SCHED_NODE_TABLES_H_
#define GANTRY_SCHED_NODE_TABLES_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gantry/v1/node.pb.h"
#include "sched/node_plans.h"
#include "state/cluster_state.h"
#include "state/resources.h"
#include "text/gres.h"

namespace gantry::sched {

// Where a node stands during a pass.
enum class Slot : uint8_t {
  kFree,      // may be allocated
  kBusy,      // up, but has jobs or is completing
  kDown,      // down, drained, failed, not responding...
  kTaken,     // allocated by this pass
  kReserved,  // kept free for a job blocked earlier in this pass
};

// What the jobs on a node hold (consumable resources).
struct Used {
  uint64_t cpus = 0;
  uint64_t mem_mb = 0;
  std::vector<text::GresSpec> gres;  // job-request specs, summed

  bool empty() const { return cpus == 0 && mem_mb == 0 && gres.empty(); }
  // How many of `want` (name, and type when given) these hold; an untyped allocation counts
  // against every type.
  int64_t GresHeld(const text::GresSpec& want) const;
  void Add(uint64_t more_cpus, uint64_t more_mem, const std::vector<text::GresSpec>& more_gres);
  // Takes back what a job held (a preemption victim's share).
  void Remove(uint64_t less_cpus, uint64_t less_mem, const std::vector<text::GresSpec>& less_gres);
};

// The nodes of a partition that could ever hold one node's share of a job.
struct Eligibility {
  bool valid = true;  // the request parsed
  state::NodeRequest need;
  std::vector<uint32_t> nodes;  // node indexes, partition order
  std::vector<bool> member;     // by node index: in `nodes`
  uint32_t up = 0;              // how many of them are up
  uint64_t up_as_of = 0;        // NodeTables::down_changes() when `up` was counted
};

// A request shape: the partition and the per-node request of a job without -w/-x.
struct ShapeKey {
  uint32_t partition = 0;
  uint32_t cpus = 0;
  uint64_t mem = 0;
  std::string gres;
  std::string features;

  friend bool operator<(const ShapeKey& a, const ShapeKey& b) {
    return std::tie(a.partition, a.cpus, a.mem, a.gres, a.features) <
           std::tie(b.partition, b.cpus, b.mem, b.gres, b.features);
  }
};

class NodeTables {
 public:
  // Brings the tables to `state` for a pass at `now` (see the file comment). `whole_nodes`:
  // SelectType=select/linear (a node with jobs is never free).
  void Refresh(const state::ClusterState& state, int64_t now, bool whole_nodes);
  // Reads node i as the state has it (after an event or a pass changed it).
  void Restore(const state::ClusterState& state, uint32_t i);

  // Per node (as ClusterState::nodes): what its definition offers.
  class Capacities {
   public:
    const state::NodeCapacity& operator[](uint32_t i) const { return configs_->Of(i); }

   private:
    friend class NodeTables;
    std::shared_ptr<const state::NodeConfigs> configs_ =
        std::make_shared<const state::NodeConfigs>();
  };
  Capacities capacity;
  const state::NodeConfigs& configs() const { return *capacity.configs_; }
  // Per node.
  std::vector<Slot> slots;
  std::vector<Used> used;
  std::set<uint32_t> free_now;  // the nodes in Slot::kFree
  // When each node is wholly free (its jobs' latest end; never with a job without a time limit,
  // a suspended job or when down) and, during a pass, what its plans keep.
  NodePlans plans;
  // Per partition (as ClusterState::partitions): its nodes in the order jobs get them (lowest
  // Weight first, then the partition's order); by node, its place there (UINT32_MAX: not a
  // member); whether that order is configuration order.
  std::vector<std::vector<uint32_t>> order;
  std::vector<std::vector<uint32_t>> position;
  std::vector<bool> in_index_order;
  // Eligibility by request shape: it depends on the definitions and partitions only (the
  // tables are built anew when they change), but for `up`, counted again once a node went down
  // or came up since (down_changes). At most kShapes are kept (all dropped beyond).
  static constexpr size_t kShapes = 256;
  std::map<ShapeKey, Eligibility> shapes;
  uint64_t down_changes() const { return down_changes_; }

  // How many nodes the last Refresh read (all of them when it built the tables anew).
  size_t last_refreshed() const { return last_refreshed_; }

 private:
  void Build(const state::ClusterState& state);

  bool built_ = false;
  uint64_t lineage_ = 0;
  uint64_t clock_ = 0;  // the state's node_clock at the last Refresh
  bool whole_nodes_ = false;
  size_t last_refreshed_ = 0;
  uint64_t down_changes_ = 0;
};

// Whether the node may take jobs at all: up (not DOWN, UNKNOWN, FUTURE, ERROR) and not drained,
// failed, not responding, in maintenance, rebooting or powered down.
bool NodeIsUsable(const v1::Node& node);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_NODE_TABLES_H_
