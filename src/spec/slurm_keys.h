// The catalog of slurm.conf parameters (Slurm 22.05 names, slurm.conf(5)) that a cluster spec's
// `config` maps may carry: where each may appear (the cluster-wide part, a PartitionName= line,
// a NodeName= line), what its value must look like, and whether the managed service refuses it.
//
// Keys are matched the way the Vertex API matches them: case-insensitively and ignoring '_'
// (`DefMemPerCPU` = `defmempercpu` = `def_mem_per_cpu`). Values are literal slurm.conf strings
// and are checked one key at a time; rules that span keys (PreemptType vs PreemptMode, ...)
// belong to the caller. Messages name the value and the rule but not the JSON path, which the
// caller prefixes, e.g. `"maybe" is not one of YES, NO`.
// Pure functions over a static table; thread-safe.
#ifndef GANTRY_SPEC_SLURM_KEYS_H_
#define GANTRY_SPEC_SLURM_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::spec {

// Where a parameter may appear; a key's `scopes` is a bit mask of these.
enum Scope : uint8_t {
  kClusterScope = 1,    // the cluster-wide part of slurm.conf (spec: orchestrator config)
  kPartitionScope = 2,  // a PartitionName= line (spec: partitions[].config)
  kNodeScope = 4,       // a NodeName= line (spec: node_sets[].config)
};

// "cluster", "partition", "node set", joined with ", " for a mask ("cluster, partition").
std::string ScopeNames(uint8_t scopes);

enum class ValueKind {
  kString,         // free text (paths, host names, plugin parameters); anything goes
  kInteger,        // decimal integer in [min, max]; `words` lists extra literals (UNLIMITED...)
  kSeconds,        // a whole number of seconds in [min, max], shown by Slurm as "N sec"
  kDuration,       // Slurm time string (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S); at least `min` s;
                   // `words` lists the accepted no-limit spellings (UNLIMITED, INFINITE)
  kBoolean,        // YES/NO (Slurm also takes TRUE/FALSE, UP/DOWN, 1/0)
  kWord,           // exactly one of `words`
  kWordList,       // comma list of `words`; with `options`, words ending in "=#" take an
                   // integer ("bf_window=#") and words ending in "=" take any value
  kMemory,         // MiB as a decimal integer (slurm.conf takes no unit suffix), or `words`
  kTresList,       // comma list of TRES names (cpu, mem, gres/gpu, license/x, ...)
  kTresWeights,    // comma list of TRES=weight (cpu=100,mem=0.25G,gres/gpu=2)
  kOverSubscribe,  // NO, EXCLUSIVE, YES[:N] or FORCE[:N]
  kPortRange,      // PORT or LOW-HIGH
  kAbsolutePath,   // a path starting with '/'
};

struct SlurmKey {
  std::string_view name;  // canonical slurm.conf(5) spelling
  uint8_t scopes = kClusterScope;
  ValueKind kind = ValueKind::kString;
  int64_t min = 0;  // kInteger, kSeconds, kMemory: bounds; kDuration: minimum seconds
  int64_t max = std::numeric_limits<int64_t>::max();
  std::span<const std::string_view> words = {};
  bool case_sensitive = false;  // words are plugin names, matched exactly (Slurm loads by name)
  bool options = false;         // kWordList items may be option=value
  // Non-empty when the managed service refuses the key; says why and what to use instead.
  std::string_view refused = {};
};

// Lower-case with every '_' removed: the form keys are compared in.
std::string NormalizeKey(std::string_view key);

// Every catalog entry. A name appears once per distinct meaning: `State` has a partition entry
// (UP, DOWN, DRAIN, INACTIVE) and a node entry (CLOUD, DOWN, ...).
std::span<const SlurmKey> AllSlurmKeys();

// The first entry whose name matches `any_spelling`, whatever its scope; nullptr if none.
const SlurmKey* FindSlurmKey(std::string_view any_spelling);

// The entry for `any_spelling` that may appear at `scope`; nullptr if none does.
const SlurmKey* FindSlurmKey(std::string_view any_spelling, Scope scope);

// Union of the scopes of every entry named `any_spelling` (0 when unknown).
uint8_t ScopesOf(std::string_view any_spelling);

// Resolves a `config` map key written at `scope`. Errors (InvalidArgument):
//   unknown slurm.conf parameter "DefMemPerCpus" (did you mean "DefMemPerCPU"?)
//   "MaxTime" cannot be set in the cluster config (it belongs to: partition)
//   "Prolog" is managed by the service: <reason>
Result<const SlurmKey*> ResolveConfigKey(std::string_view key, Scope scope);

// Checks `value` against the key's kind. OK or InvalidArgument naming the value and the rule.
Status ValidateSlurmValue(const SlurmKey& key, std::string_view value);

// "Did you mean" candidates for an unknown key: catalog names (canonical spelling, each once,
// refused keys left out) that may appear in `scopes`, within an edit distance of a quarter of
// the normalized length (at least 2), keeping only the closest ones, at most `max`.
std::vector<std::string> SuggestKeys(std::string_view unknown, size_t max = 3,
                                     uint8_t scopes = kClusterScope | kPartitionScope | kNodeScope);

}  // namespace gantry::spec

#endif  // GANTRY_SPEC_SLURM_KEYS_H_
