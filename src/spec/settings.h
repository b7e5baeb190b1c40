// The cluster-wide slurm.conf settings of a spec, from whichever source it uses: the `config`
// map, or the legacy `scheduling` and `accounting` blocks (a spec may not use both). Each setting
// keeps the JSON path it came from, for diagnostics.
#ifndef GANTRY_SPEC_SETTINGS_H_
#define GANTRY_SPEC_SETTINGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/cluster_spec.h"

namespace gantry::spec {

struct Setting {
  std::string key;    // as written (config maps) or the slurm.conf name (legacy blocks)
  std::string value;  // slurm.conf text
  std::string path;   // JSON path of the value
};

// Cluster-level settings in document order.
std::vector<Setting> ClusterSettings(const ClusterSpec& spec);

// Settings of partition `index` / node set `index`.
std::vector<Setting> PartitionSettings(const ClusterSpec& spec, size_t index);
std::vector<Setting> NodeSetSettings(const ClusterSpec& spec, size_t index);

// The value of `key` (any spelling: case and '_' ignored) among settings, if set.
std::optional<std::string> FindSetting(const std::vector<Setting>& settings, std::string_view key);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_SETTINGS_H_
