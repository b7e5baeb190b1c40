// Slurm generic resource (GRES) lists.
//
// Job requests (sbatch/srun/salloc --gres, sbatch(1)): a comma-separated list of
// "name[[:type]:count]", e.g. "gpu", "gpu:2", "gpu:b200:8", "gpu:2,nic:1". The count defaults to
// 1. Each entry may carry the prefix Slurm itself adds or that TRES strings use: "gres:gpu:2"
// (scontrol's TresPerNode=) or "gres/gpu:2". "none" (any case) means no GRES. An entry with an
// explicit count of zero ("gpu:0", "gpu:b200:0") is dropped, as Slurm's _get_next_job_gres
// ignores it: `srun --gres=gpu:0` asks for no GPUs.
//
// Node configuration (slurm.conf NodeName ... Gres=, slurm.conf(5)): a comma-separated list of
// "name[:type][:no_consume][:count]", e.g. "gpu:b200:8", "gpu:8", "bandwidth:lustre:no_consume:4G".
// Zero counts are kept.
//
// Counts are whole numbers with an optional suffix k, m, g, t or p (any case) multiplying by
// 1024, 1024^2 ... 1024^5, as in Slurm. A field after the name that starts with a digit is the
// count, so a type may not start with a digit ("gpu:2" is two GPUs of any type).
// Names and types are letters, digits, '_', '-' and '.', and start with a letter or '_'; the name
// "gres" is refused, as "gres:x:1" would be ambiguous.
//
// Differences from Slurm 22.05, on purpose (Slurm accepts these and guesses):
//  * "gpu::2" (Slurm: an empty type, i.e. gpu:2) and "gpu:-1" (Slurm: a type named "-1" with
//    count 1) are errors, as are trailing text after the count and a missing count after a type
//    ("gpu:b200:").
//  * The same name and type twice ("gpu:2,gpu:3", Slurm: the last wins) is an error. Mixing a
//    typed and an untyped entry of one name ("gpu:2,gpu:b200:1") is an error in both syntaxes,
//    as Slurm refuses it for node configuration and for per-node job requests.
// The caller handles "--gres=help"/"list" before parsing; here they would be GRES names.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_GRES_H_
#define GANTRY_TEXT_GRES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::text {

struct GresSpec {
  std::string name;         // "gpu"
  std::string type;         // "b200"; empty for any type
  int64_t count = 1;        // >= 0
  bool no_consume = false;  // node configuration only

  friend bool operator==(const GresSpec&, const GresSpec&) = default;
};

enum class GresSyntax {
  kJobRequest,  // --gres=...
  kNodeConfig,  // NodeName=... Gres=...
};

// Parses a GRES list, keeping the written order. "" is an empty list. Errors name the list, the
// entry and the rule.
Result<std::vector<GresSpec>> ParseGres(std::string_view text, GresSyntax syntax);

// "gpu:b200:8,nic:1", as scontrol prints a node's Gres= and as the list parses back: the count is
// always written (plain decimal), ":no_consume" before it when set. An empty list is "".
// Slurm echoes the text as the user or admin wrote it, so "gpu" (count 1) prints as "gpu:1" here.
std::string FormatGres(const std::vector<GresSpec>& gres);

// The job's TresPerNode= form: "gres:gpu:4", "gres:gpu:b200:8,gres:nic:1" (Slurm's
// gres_prepend_tres_type).
std::string FormatGresTresPerNode(const std::vector<GresSpec>& gres);

// The TRES name a GRES is accounted under (the part after "gres/"): "gpu" or "gpu:b200".
std::string GresTresName(const GresSpec& gres);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_GRES_H_
