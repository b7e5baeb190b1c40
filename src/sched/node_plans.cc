#include "sched/node_plans.h"

#include <algorithm>

namespace gantry::sched {

NodePlans::NodePlans(std::vector<int64_t> free_at)
    : free_at_(std::move(free_at)), open_at_(free_at_), kept_(free_at_.size()) {
  std::vector<std::pair<int64_t, uint32_t>> open;
  open.reserve(free_at_.size());
  for (uint32_t i = 0; i < free_at_.size(); ++i) {
    if (free_at_[i] != kNever) open.emplace_back(free_at_[i], i);
  }
  std::ranges::sort(open);
  by_open_.insert(open.begin(), open.end());  // sorted: linear
}

void NodePlans::SetNow(int64_t now) {
  if (now < now_) {  // the clock went back: every node keyed again
    now_ = now;
    by_open_.clear();
    for (uint32_t i = 0; i < free_at_.size(); ++i) {
      open_at_[i] = EarliestFree(i, std::max(free_at_[i], now_), 1);
      if (open_at_[i] != kNever) by_open_.emplace(KeyOf(open_at_[i]), i);
    }
    return;
  }
  now_ = now;
  // The nodes that opened since the last pass join those open now.
  auto it = by_open_.upper_bound({kOpenNow, UINT32_MAX});
  while (it != by_open_.end() && it->first <= now_) {
    auto node = by_open_.extract(it++);
    node.value().first = kOpenNow;
    by_open_.insert(std::move(node));
  }
}

void NodePlans::Restore(uint32_t i, int64_t t) {
  keeps_ -= kept_[i].size();
  kept_[i].clear();
  free_at_[i] = t;
  Rekey(i);
}

void NodePlans::FreeNoEarlierThan(uint32_t i, int64_t t) {
  free_at_[i] = std::max(free_at_[i], t);
  Rekey(i);
}

void NodePlans::Keep(uint32_t i, int64_t start, int64_t end) {
  kept_[i].emplace_back(start, end);
  ++keeps_;
  Rekey(i);
}

bool NodePlans::Kept(uint32_t i, int64_t from, int64_t to) const {
  return std::ranges::any_of(kept_[i], [&](const std::pair<int64_t, int64_t>& keep) {
    return keep.first < to && from < keep.second;
  });
}

int64_t NodePlans::EarliestFree(uint32_t i, int64_t from, int64_t duration) const {
  int64_t at = std::max(from, free_at_[i]);
  for (bool moved = true; moved && at != kNever;) {
    moved = false;
    const int64_t until = duration == kNever ? kNever : at + duration;
    for (const auto& [start, end] : kept_[i]) {
      if (start < until && at < end) {
        at = end;
        moved = true;
      }
    }
  }
  return at;
}

void NodePlans::Rekey(uint32_t i) {
  const int64_t open = EarliestFree(i, std::max(free_at_[i], now_), 1);
  if (open == open_at_[i]) return;
  if (open_at_[i] != kNever) by_open_.erase({KeyOf(open_at_[i]), i});
  open_at_[i] = open;
  if (open != kNever) by_open_.emplace(KeyOf(open), i);
}

}  // namespace gantry::sched
