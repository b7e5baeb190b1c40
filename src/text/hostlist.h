// Slurm hostlist expressions: "a4-[0-3,7]", "gpu[001-128]", "a,b[1-2]", "n[1-2]-ib".
//
// Semantics follow Slurm's src/common/hostlist.c as observed through `scontrol show hostnames`,
// `scontrol show hostlist` and `scontrol show hostlistsorted`:
//  - items are separated by commas (and whitespace) outside brackets; an item is
//    prefix[ranges]suffix where ranges is a comma list of N or N-M; leading zeros fix the width;
//  - expansion keeps the written order and duplicates;
//  - compression (show hostlist) keeps order and duplicates: "tux2,tux1,tux2" -> "tux[2,1-2]";
//  - sorted compression (show hostlistsorted) sorts by prefix then number: "tux[1-2,2]".
// Pure functions; thread-safe.
#ifndef GANTRY_TEXT_HOSTLIST_H_
#define GANTRY_TEXT_HOSTLIST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::text {

// Slurm's MAX_SLURM_NODES; expansions larger than the cap are refused, never attempted.
inline constexpr size_t kDefaultMaxHosts = 65536;

// Expands an expression into host names. Errors (InvalidArgument) name the expression and the
// rule: unbalanced brackets, empty range, reversed range "n[5-3]", non-numeric range, a result
// larger than max_hosts (ResourceExhausted).
Result<std::vector<std::string>> ExpandHostlist(std::string_view expr,
                                                size_t max_hosts = kDefaultMaxHosts);

// Compresses names into one expression, keeping order and duplicates (scontrol show hostlist).
std::string CompressHostlist(const std::vector<std::string>& hosts);

// Sorts (by prefix, then numeric suffix) and compresses (scontrol show hostlistsorted).
std::string CompressHostlistSorted(std::vector<std::string> hosts);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_HOSTLIST_H_
