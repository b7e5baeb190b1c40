// Slurm TRES (trackable resource) strings.
//
// Counts, as in scontrol's TRES=/CfgTRES=/AllocTRES=, sacct's ReqTRES/AllocTRES and sacctmgr's
// GrpTRES=/MaxTRES=...:
//   "cpu=64,mem=250G,node=1,billing=64,gres/gpu=8,gres/gpu:b200=8,license/matlab=1"
// Weights, as in slurm.conf's PriorityWeightTRES= and TRESBillingWeights=:
//   "cpu=100,mem=150"   "CPU=1.0,Mem=0.25G,GRES/gpu=2.0"
//
// A TRES is a type and, for some types, a name (tres.html):
//   types without a name: billing, cpu, energy, mem, node, pages, vmem;
//   types with a name:    bb/<name>, fs/<name> (disk, lustre), gres/<name>[:<model>],
//                         ic/<name> (ofed), license/<name>.
// Types are case-insensitive and kept lower-case; names keep their spelling but compare
// case-insensitively, as Slurm's TRES lookups do.
//
// Units. mem and bb count MiB (Slurm's base unit for them is M); every other type counts units.
//  * Counts: a K, M, G, T or P suffix (case-insensitive) scales by powers of 1024 from the
//    type's base unit, as sacctmgr's slurmdb_format_tres_str does: "mem=2G" is 2048 MiB, "cpu=2K"
//    is 2048 CPUs. mem/bb also take a decimal fraction with a suffix ("mem=62.50G", which is what
//    scontrol prints) and are rounded up to whole MiB.
//  * Weights (Slurm's _tres_weight_item): a decimal number, optionally signed, then an optional
//    unit letter. The unit says what the weight is per: "mem=0.25G" is 0.25 per GiB, stored as
//    0.25/1024 per MiB. Weights are always returned per base unit (per MiB for mem and bb, per
//    unit otherwise), so billing = sum(weight * count).
//
// Formatting follows Slurm's display order and spelling: the built-in TRES first in id order
// (cpu, mem, energy, node, billing, fs/disk, vmem, pages), then the others sorted by type and then
// name (slurmdb_sort_tres_by_id_asc); mem and bb through convert_num_unit with
// CONVERT_NUM_UNIT_EXACT ("2000M", "125G", "62.50G", "0"); other counts as plain integers.
//
// Differences from Slurm 22.05, on purpose:
//  * Bad input is an error instead of being half-read: "cpu=1.5" (Slurm: 1), "cpu=" (Slurm: 0),
//    unknown unit letters, trailing text, negative counts, duplicate keys (Slurm: last wins),
//    empty entries, unknown types. Slurm checks names against the TRES configured in its
//    database; this layer only checks the type and the shape of the name.
//  * A K suffix on mem/bb counts is KiB ("mem=2048K" = 2 MiB); Slurm ignores units smaller than
//    the base unit and reads it as 2048 MiB. Likewise "mem=1K" as a weight is 1 per KiB (1024
//    per MiB), where Slurm keeps 1 per MiB.
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_TRES_H_
#define GANTRY_TEXT_TRES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::text {

// A TRES type (lower-case) and name ("" for types without one).
struct TresKey {
  std::string type;
  std::string name;

  // "cpu", "gres/gpu:b200".
  std::string ToString() const;

  friend bool operator==(const TresKey&, const TresKey&) = default;
};

struct TresCount {
  TresKey key;
  int64_t count = 0;  // MiB for mem and bb

  friend bool operator==(const TresCount&, const TresCount&) = default;
};

struct TresWeight {
  TresKey key;
  double weight = 0;  // per MiB for mem and bb, per unit otherwise

  friend bool operator==(const TresWeight&, const TresWeight&) = default;
};

// True for the types that take a name: bb, fs, gres, ic, license. `type` must be lower-case.
bool TresTypeTakesName(std::string_view type);

// True for the types counted in MiB: mem, bb. `type` must be lower-case.
bool TresTypeIsMemory(std::string_view type);

// Parses "cpu", "Mem", "gres/gpu:b200", "license/matlab". Errors name the text and the rule:
// unknown type, a name on a type without one, a missing or malformed name.
Result<TresKey> ParseTresKey(std::string_view text);

// Parses a comma-separated "key=count" list, keeping the written order. "" is an empty list.
Result<std::vector<TresCount>> ParseTresCounts(std::string_view text);

// Parses a comma-separated "key=weight[unit]" list, keeping the written order. "" is an empty
// list.
Result<std::vector<TresWeight>> ParseTresWeights(std::string_view text);

// Slurm's display order (see above); a strict weak ordering. Names compare byte-wise, as Slurm
// sorts them.
bool TresKeyLess(const TresKey& a, const TresKey& b);

enum class TresZeros {
  kKeep,  // sacctmgr limits: "gres/gpu=0" is a real limit
  kOmit,  // scontrol TRES=/CfgTRES=/AllocTRES=: zero counts are not printed
};

// "cpu=1,mem=2000M,node=1,billing=1,gres/gpu=1": sorted into display order, mem/bb in Slurm's
// exact unit form. Counts are expected to be non-negative.
std::string FormatTres(std::vector<TresCount> counts, TresZeros zeros = TresZeros::kKeep);

// A MiB count the way TRES strings print it (convert_num_unit, CONVERT_NUM_UNIT_EXACT): divides
// by 1024 while the value is at least 1024 and its integer part is a multiple of 512, so halves
// survive: 2000 -> "2000M", 128000 -> "125G", 64000 -> "62.50G", 1048576 -> "1T", 0 -> "0".
std::string FormatTresMemoryMiB(int64_t mib);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_TRES_H_
