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

std::string Distribution::ToString() const {
  switch (kind) {
    case TaskDistribution::kCyclic:
      return "cyclic";
    case TaskDistribution::kPlane:
      return "plane=" + std::to_string(plane_size);
    default:
      return "block";
  }
}

std::optional<Distribution> ParseDistribution(std::string_view text) {
  const std::string_view first = text.substr(0, text.find_first_of(":,"));
  Distribution d;
  if (first.empty() || first == "block" || first == "*") return d;
  if (first == "cyclic") {
    d.kind = TaskDistribution::kCyclic;
    return d;
  }
  if (first.substr(0, 6) != "plane=" || first.size() == 6 || first.size() > 12) return std::nullopt;
  uint64_t size = 0;
  for (char c : first.substr(6)) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + static_cast<uint64_t>(c - '0');
  }
  if (size == 0 || size > 65535) return std::nullopt;
  d.kind = TaskDistribution::kPlane;
  d.plane_size = static_cast<uint32_t>(size);
  return d;
}

std::vector<uint32_t> PlaneTaskLayout(uint32_t num_tasks, uint32_t nodes, uint32_t plane_size) {
  std::vector<uint32_t> tasks(nodes, 0);
  if (nodes == 0 || plane_size == 0) return tasks;
  uint32_t left = num_tasks;
  while (left > 0) {
    for (uint32_t i = 0; i < nodes && left > 0; ++i) {
      const uint32_t take = std::min(plane_size, left);
      tasks[i] += take;
      left -= take;
    }
  }
  return tasks;
}

std::vector<std::vector<uint32_t>> TaskRanks(const std::vector<uint32_t>& counts,
                                             TaskDistribution distribution, uint32_t plane_size) {
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
  const uint32_t block = distribution == TaskDistribution::kPlane ? std::max(plane_size, 1u) : 1;
  while (next < total) {
    for (size_t i = 0; i < counts.size() && next < total; ++i) {
      for (uint32_t k = 0; k < block && ranks[i].size() < counts[i]; ++k) {
        ranks[i].push_back(next++);
      }
    }
  }
  return ranks;
}

}  // namespace gantry::model
