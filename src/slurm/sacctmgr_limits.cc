#include "slurm/sacctmgr_limits.h"

#include <algorithm>
#include <vector>

#include "text/ascii.h"
#include "text/tres.h"

namespace gantry::slurm {
namespace {

using model::TresLimitKind;

constexpr struct {
  std::string_view spelling;
  TresLimitKind kind;
  std::string_view label;
} kNames[] = {
    {"GrpTRES", TresLimitKind::kGrp, "GrpTRES"},
    {"GrpTRESMins", TresLimitKind::kGrpMins, "GrpTRESMins"},
    {"GrpTRESRunMins", TresLimitKind::kGrpRunMins, "GrpTRESRunMins"},
    {"GrpTRESRunMin", TresLimitKind::kGrpRunMins, "GrpTRESRunMins"},
    {"MaxTRES", TresLimitKind::kMaxPerJob, "MaxTRESPerJob"},
    {"MaxTRESPerJob", TresLimitKind::kMaxPerJob, "MaxTRESPerJob"},
    {"MaxTRESPJ", TresLimitKind::kMaxPerJob, "MaxTRESPerJob"},
    {"MaxTRESPerNode", TresLimitKind::kMaxPerNode, "MaxTRESPerNode"},
    {"MaxTRESPN", TresLimitKind::kMaxPerNode, "MaxTRESPerNode"},
    {"MaxTRESMins", TresLimitKind::kMaxMinsPerJob, "MaxTRESMinsPerJob"},
    {"MaxTRESMinsPerJob", TresLimitKind::kMaxMinsPerJob, "MaxTRESMinsPerJob"},
    {"MaxTRESMinsPJ", TresLimitKind::kMaxMinsPerJob, "MaxTRESMinsPerJob"},
    {"MaxTRESPerUser", TresLimitKind::kMaxPerUser, "MaxTRESPerUser"},
    {"MaxTRESPU", TresLimitKind::kMaxPerUser, "MaxTRESPerUser"},
    {"MinTRES", TresLimitKind::kMinPerJob, "MinTRESPerJob"},
    {"MinTRESPerJob", TresLimitKind::kMinPerJob, "MinTRESPerJob"},
};

}  // namespace

std::optional<TresLimitName> TresLimitNamed(std::string_view key) {
  for (const auto& n : kNames) {
    if (text::EqualsIgnoreCase(key, n.spelling)) return TresLimitName{n.kind, n.label};
  }
  return std::nullopt;
}

bool MergeTresLimit(std::string_view value, std::string* limit, std::string* bad) {
  std::vector<text::TresCount> merged;
  if (!limit->empty()) {
    Result<std::vector<text::TresCount>> have = text::ParseTresCounts(*limit);
    if (have.ok()) merged = *std::move(have);
  }
  for (std::string_view item : text::Split(value, ',')) {
    const size_t eq = item.find('=');
    const bool clear = eq != std::string_view::npos && item.substr(eq + 1) == "-1";
    Result<std::vector<text::TresCount>> one =
        text::ParseTresCounts(clear ? std::string(item.substr(0, eq)) + "=0" : std::string(item));
    if (!one.ok() || one->size() != 1) {
      *bad = " Bad TRES value: " + std::string(item) +
             (one.ok() ? "" : " (" + one.status().message() + ")") + "\n";
      return false;
    }
    const text::TresCount& c = one->front();
    std::erase_if(merged, [&](const text::TresCount& m) { return m.key == c.key; });
    if (!clear) merged.push_back(c);
  }
  *limit = text::FormatTres(merged);
  return true;
}

}  // namespace gantry::slurm
