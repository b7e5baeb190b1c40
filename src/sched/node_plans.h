// Backfill's picture of the future, node by node: when each node is wholly free for new work
// (its running jobs' ends; kNever: not in the planning horizon at all) and the intervals planned
// jobs keep it. A pass asks "from when is node i free for d seconds", keeps the nodes of each
// plan it makes, and walks the nodes in the order they open up: by the first time each is free
// and not kept, so a walk for the earliest nodes skips those whole plans already hold and a
// plan costs about as many node checks as it needs nodes.
//
// One lasts from pass to pass (sched::NodeTables): a node's free time is its jobs' latest end
// even when that is past, SetNow gives each pass its `now` (no node opens before it) and
// Restore gives a node back its free time and drops the pass's keeps, so a pass changes only
// the nodes it looks at.
#ifndef GANTRY_SCHED_NODE_PLANS_H_
#define GANTRY_SCHED_NODE_PLANS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

namespace gantry::sched {

class NodePlans {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  // Nodes that open at or before `now` are keyed so in by_open() (they sort by index there).
  static constexpr int64_t kOpenNow = std::numeric_limits<int64_t>::min();

  // One entry per node: when it is free (kNever: never).
  explicit NodePlans(std::vector<int64_t> free_at = {});

  // The time of the pass: no node opens before it (a free time in the past reads as `now`).
  void SetNow(int64_t now);
  // Node i is free at `t` and keeps nothing (its state, after a pass changed it).
  void Restore(uint32_t i, int64_t t);

  int64_t free_at(uint32_t i) const { return free_at_[i]; }
  // A job that started on node i in this pass: the node is free from `t` at the earliest.
  void FreeNoEarlierThan(uint32_t i, int64_t t);
  // Keeps node i for a planned job over [start, end) (end kNever: for ever).
  void Keep(uint32_t i, int64_t start, int64_t end);
  // Whether node i is kept for a planned job at some time in [from, to).
  bool Kept(uint32_t i, int64_t from, int64_t to) const;
  // Whether node i is free at `t` and not kept over [t, until).
  bool FreeOver(uint32_t i, int64_t t, int64_t until) const {
    return free_at_[i] <= t && !Kept(i, t, until);
  }
  // The earliest time from `from` on when node i is free and not kept for `duration` seconds
  // (kNever: no end), or kNever.
  int64_t EarliestFree(uint32_t i, int64_t from, int64_t duration) const;

  // (first open time, node) of every node that is ever free, in that order (kOpenNow for those
  // open at `now`): EarliestFree(i, from, d) is never before max(from, first open time).
  const std::set<std::pair<int64_t, uint32_t>>& by_open() const { return by_open_; }
  // How many (node, interval) keeps the plans hold.
  size_t keeps() const { return keeps_; }

 private:
  void Rekey(uint32_t i);
  int64_t KeyOf(int64_t open) const { return open <= now_ ? kOpenNow : open; }

  std::vector<int64_t> free_at_;
  std::vector<int64_t> open_at_;  // per node: the key it has in by_open_ (kNever: none)
  int64_t now_ = kOpenNow;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> kept_;
  std::set<std::pair<int64_t, uint32_t>> by_open_;
  size_t keeps_ = 0;
};

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_NODE_PLANS_H_
