// sacctmgr's names for the TRES-list limits (GrpTRES=, MaxTRESPerNode=, MinTRES=...) and how a
// `set` merges into a limit: per TRES, as Slurm does ("MaxTRES=gres/gpu=2" keeps cpu=4, and
// "cpu=-1" takes cpu away).
#ifndef GANTRY_SLURM_SACCTMGR_LIMITS_H_
#define GANTRY_SLURM_SACCTMGR_LIMITS_H_

#include <optional>
#include <string>
#include <string_view>

#include "model/tres_limit.h"

namespace gantry::slurm {

struct TresLimitName {
  model::TresLimitKind kind;
  std::string_view label;  // as `add qos` lists its settings ("MaxTRESPerUser")
};

// The limit a `set`/`add` key names (case-insensitive; every spelling sacctmgr takes), if any.
std::optional<TresLimitName> TresLimitNamed(std::string_view key);

// Merges `value` ("cpu=4,gres/gpu=-1") into *limit (sacctmgr's spelling, "" = none). False
// with *bad set (" Bad ... value: ...\n") when the value does not read.
bool MergeTresLimit(std::string_view value, std::string* limit, std::string* bad);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SACCTMGR_LIMITS_H_
