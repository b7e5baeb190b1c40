#include "state/resources.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/ascii.h"

namespace gantry::state {
namespace {

constexpr char kInvalidGres[] = "Invalid generic resource (gres) specification";
constexpr char kInvalidFeature[] = "Invalid feature specification";

bool IsFeatureChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || text::IsAsciiDigit(c) || c == '_' ||
         c == '-' || c == '.' || c == ':' || c == '=' || c == '+' || c == '/';
}

bool HasGres(const NodeCapacity& node, const text::GresSpec& want) {
  return std::ranges::any_of(node.gres, [&](const text::GresSpec& have) {
    return have.name == want.name && (want.type.empty() || have.type == want.type);
  });
}

}  // namespace

bool FeatureExpr::Matches(const std::vector<std::string>& node_features) const {
  if (alternatives.empty()) return true;
  for (const std::vector<std::string>& all : alternatives) {
    const bool ok = std::ranges::all_of(all, [&](const std::string& f) {
      return std::ranges::find(node_features, f) != node_features.end();
    });
    if (ok) return true;
  }
  return false;
}

Result<FeatureExpr> ParseFeatures(std::string_view text) {
  FeatureExpr expr;
  if (text.empty()) return expr;
  for (std::string_view alternative : text::Split(text, '|')) {
    std::vector<std::string> all;
    size_t start = 0;
    while (start <= alternative.size()) {
      size_t end = alternative.find_first_of("&,", start);
      if (end == std::string_view::npos) end = alternative.size();
      const std::string_view word = alternative.substr(start, end - start);
      if (word.empty() || !std::ranges::all_of(word, IsFeatureChar)) {
        return InvalidArgument(kInvalidFeature);
      }
      all.emplace_back(word);
      start = end + 1;
    }
    expr.alternatives.push_back(std::move(all));
  }
  return expr;
}

std::vector<std::string> SplitFeatures(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view piece : text::Split(text, ',')) {
    if (!piece.empty()) out.emplace_back(piece);
  }
  return out;
}

NodeCapacity CapacityOf(const v1::Node& node) {
  NodeCapacity c;
  c.cpus = node.cpus();
  c.mem_mb = node.real_memory_mb();
  if (auto gres = text::ParseGres(node.gres(), text::GresSyntax::kNodeConfig); gres.ok()) {
    c.gres = std::move(gres).value();
  }
  c.features = SplitFeatures(node.features());
  return c;
}

uint32_t MinNodesOf(const v1::JobRequest& r) { return std::max<uint32_t>(1, r.min_nodes()); }

uint32_t MaxNodesOf(const v1::JobRequest& r) { return std::max(MinNodesOf(r), r.max_nodes()); }

uint32_t CpusPerTaskOf(const v1::JobRequest& r) { return std::max<uint32_t>(1, r.cpus_per_task()); }

uint64_t TotalCpusOf(const v1::JobRequest& r) {
  const uint64_t per_task = CpusPerTaskOf(r);
  if (r.num_tasks() > 0) return uint64_t{r.num_tasks()} * per_task;
  const uint64_t tasks_per_node = std::max<uint32_t>(1, r.ntasks_per_node());
  return uint64_t{MinNodesOf(r)} * tasks_per_node * per_task;
}

uint32_t CpusPerNodeOf(const v1::JobRequest& r) {
  uint64_t per_node = 0;
  if (r.ntasks_per_node() > 0) {
    per_node = uint64_t{r.ntasks_per_node()} * CpusPerTaskOf(r);
  } else {
    const uint64_t nodes = MinNodesOf(r);
    per_node = (TotalCpusOf(r) + nodes - 1) / nodes;
  }
  per_node = std::max<uint64_t>(per_node, CpusPerTaskOf(r));
  return static_cast<uint32_t>(std::min<uint64_t>(per_node, UINT32_MAX));
}

uint64_t MemPerNodeOf(const v1::JobRequest& r) {
  if (r.mem_per_node_mb() > 0) return r.mem_per_node_mb();
  return r.mem_per_cpu_mb() * CpusPerNodeOf(r);
}

uint64_t RequestedMemOf(const v1::JobRequest& r) { return MemPerNodeOf(r) * MinNodesOf(r); }

Result<NodeRequest> NodeRequestOf(const v1::JobRequest& r) {
  NodeRequest out;
  out.cpus = CpusPerNodeOf(r);
  out.mem_mb = MemPerNodeOf(r);
  if (!r.gres().empty()) {
    auto gres = text::ParseGres(r.gres(), text::GresSyntax::kJobRequest);
    if (!gres.ok()) return InvalidArgument(kInvalidGres);
    out.gres = std::move(gres).value();
  }
  GANTRY_ASSIGN_OR_RETURN(out.features, ParseFeatures(r.features()));
  return out;
}

bool Fits(const NodeCapacity& node, const NodeRequest& request) {
  if (node.cpus < request.cpus) return false;
  if (request.mem_mb > node.mem_mb) return false;
  for (const text::GresSpec& want : request.gres) {
    if (GresCount(node, want) < want.count) return false;
  }
  return request.features.Matches(node.features);
}

int64_t GresCount(const NodeCapacity& node, const text::GresSpec& want) {
  int64_t count = 0;
  for (const text::GresSpec& have : node.gres) {
    if (have.name != want.name) continue;
    if (!want.type.empty() && have.type != want.type) continue;
    count += have.count;
  }
  return count;
}

bool HasGresNames(const NodeCapacity& node, const std::vector<text::GresSpec>& gres) {
  return std::ranges::all_of(gres, [&](const text::GresSpec& want) { return HasGres(node, want); });
}

}  // namespace gantry::state
