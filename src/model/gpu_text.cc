#include "model/gpu_text.h"

#include <algorithm>
#include <vector>

#include "text/array_spec.h"
#include "text/gres.h"

namespace gantry::model {

std::string FormatGresWithIndexes(const v1::NodeGpus& gpus) {
  if (gpus.idx().empty()) return "";
  const std::vector<uint32_t> idx(gpus.idx().begin(), gpus.idx().end());
  return gpus.gres() + "(IDX:" + text::FormatTaskIds(idx) + ")";
}

std::string JobGresTotal(const v1::Job& job) {
  std::vector<text::GresSpec> total;
  for (const v1::NodeGpus& node : job.node_gpus()) {
    auto parsed = text::ParseGres(node.gres(), text::GresSyntax::kJobRequest);
    if (!parsed.ok()) continue;
    for (const text::GresSpec& g : *parsed) {
      auto same = std::find_if(total.begin(), total.end(), [&](const text::GresSpec& t) {
        return t.name == g.name && t.type == g.type;
      });
      if (same == total.end()) {
        total.push_back(g);
      } else {
        same->count += g.count;
      }
    }
  }
  return text::FormatGres(total);
}

}  // namespace gantry::model
