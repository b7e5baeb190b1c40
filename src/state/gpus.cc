#include "state/gpus.h"

#include <algorithm>

namespace gantry::state {

std::vector<GpuDevice> GpuDevicesOf(const std::vector<text::GresSpec>& node_gres) {
  std::vector<GpuDevice> devices;
  for (const text::GresSpec& g : node_gres) {
    if (g.name != "gpu" || g.no_consume) continue;
    const int64_t count = std::clamp<int64_t>(g.count, 0, 1024);
    for (int64_t i = 0; i < count; ++i) {
      devices.push_back(GpuDevice{static_cast<uint32_t>(devices.size()), g.type});
    }
  }
  return devices;
}

v1::NodeGpus PickGpus(const std::vector<GpuDevice>& devices,
                      const std::vector<text::GresSpec>& request, const std::set<uint32_t>& taken) {
  std::set<uint32_t> chosen;
  for (const text::GresSpec& want : request) {
    if (want.name != "gpu") continue;
    int64_t needed = want.count;
    for (const GpuDevice& d : devices) {
      if (needed <= 0) break;
      if (taken.contains(d.index) || chosen.contains(d.index)) continue;
      if (!want.type.empty() && d.type != want.type) continue;
      chosen.insert(d.index);
      --needed;
    }
  }
  v1::NodeGpus gpus;
  std::vector<text::GresSpec> named;  // per type, in the node's order
  for (const GpuDevice& d : devices) {
    if (!chosen.contains(d.index)) continue;
    gpus.add_idx(d.index);
    auto same = std::find_if(named.begin(), named.end(),
                             [&](const text::GresSpec& g) { return g.type == d.type; });
    if (same == named.end()) {
      named.push_back(text::GresSpec{"gpu", d.type, 1, false});
    } else {
      ++same->count;
    }
  }
  gpus.set_gres(text::FormatGres(named));
  return gpus;
}

uint32_t GpuCountOf(const std::vector<text::GresSpec>& request) {
  int64_t n = 0;
  for (const text::GresSpec& g : request) {
    if (g.name == "gpu") n += g.count;
  }
  return static_cast<uint32_t>(std::clamp<int64_t>(n, 0, 1024));
}

}  // namespace gantry::state
