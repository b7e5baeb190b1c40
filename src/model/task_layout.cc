#include "model/task_layout.h"

#include <algorithm>

namespace gantry::model {

std::string FormatCountsPerNode(const std::vector<uint32_t>& counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(counts[i]);
    if (j - i > 1) out += "(x" + std::to_string(j - i) + ")";
    i = j;
  }
  return out;
}

std::vector<uint32_t> BlockTaskLayout(uint32_t num_tasks, const std::vector<uint32_t>& cpus,
                                      uint32_t cpus_per_task) {
  std::vector<uint32_t> tasks(cpus.size(), 0);
  if (cpus.empty()) return tasks;
  if (cpus_per_task == 0) cpus_per_task = 1;
  std::vector<uint32_t> capacity;
  capacity.reserve(cpus.size());
  for (uint32_t c : cpus) capacity.push_back(c / cpus_per_task);
  uint32_t placed = 0;
  bool over_subscribe = false;
  for (uint32_t round = 0; placed < num_tasks; ++round) {
    bool space_remaining = false;
    for (size_t i = 0; i < cpus.size() && placed < num_tasks; ++i) {
      if (round < capacity[i] || over_subscribe) {
        ++tasks[i];
        ++placed;
        if (round + 1 < capacity[i]) space_remaining = true;
      }
    }
    if (!space_remaining) over_subscribe = true;
  }
  return tasks;
}

std::vector<std::vector<uint32_t>> TaskRanks(const std::vector<uint32_t>& counts,
                                             TaskDistribution distribution) {
  std::vector<std::vector<uint32_t>> ranks(counts.size());
  uint32_t next = 0;
  if (distribution == TaskDistribution::kBlock) {
    for (size_t i = 0; i < counts.size(); ++i) {
      for (uint32_t k = 0; k < counts[i]; ++k) ranks[i].push_back(next++);
    }
    return ranks;
  }
  uint32_t total = 0;
  for (uint32_t c : counts) total += c;
  while (next < total) {
    for (size_t i = 0; i < counts.size() && next < total; ++i) {
      if (ranks[i].size() < counts[i]) ranks[i].push_back(next++);
    }
  }
  return ranks;
}

}  // namespace gantry::model
