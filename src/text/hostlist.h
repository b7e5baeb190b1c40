// Slurm hostlist expressions: "a4-[0-3,7]", "gpu[001-128]", "a,b[1-2]", "n[1-2]-ib".
//
// Semantics follow Slurm's src/common/hostlist.c as observed through `scontrol show hostnames`,
// `scontrol show hostlist` and `scontrol show hostlistsorted`:
//  - items are separated by commas and whitespace outside brackets; empty items are skipped. An
//    item is text[ranges]text[ranges]...text where ranges is a comma list of N or N-M (decimal);
//    the digits written for N fix the width: "n[01-10]" is n01..n10, "n[1-010]" is n1..n10,
//    "n[9-11]" is n9, n10, n11. Several brackets multiply out, left-most varying slowest:
//    "rack[1-2]-node[1-2]" is rack1-node1, rack1-node2, rack2-node1, rack2-node2;
//  - expansion keeps the written order and duplicates;
//  - compression splits each name into a prefix and its trailing digits ("a4-7" is "a4-" and 7,
//    "n007" is "n" and 7 written 3 wide, "login" has no number) and joins a host to the previous
//    range when it has the same prefix, the next number and a compatible width ("n9,n10" ->
//    "n[9-10]", "n09,n10" -> "n[09-10]", "n1,n01" -> "n[1,01]"). Consecutive ranges with the same
//    prefix share one bracket; a lone host is written bare ("login", "n5").
//  - CompressHostlist (show hostlist) keeps order and duplicates: "tux2,tux1,tux2" ->
//    "tux[2,1-2]";
//  - CompressHostlistSorted (show hostlistsorted) sorts the ranges as hostlist_sort() does
//    (prefixes in natural order, "rack2" < "rack10"; a name without number before numbered ones
//    with the same prefix; then by number, padded numbers of one width grouped together:
//    "n1,n01" stays "n[1,01]") and then splits overlapping duplicates the way Slurm does:
//    "tux[1-2,2]", and "n[1-5],n[3-7]" -> "n[1-3,3-4,4-5,5-7]".
//
// Limits: an expansion of more than max_hosts names (Slurm's MAX_SLURM_NODES by default), or
// whose names would take more than 1 KiB each on average, is refused with ResourceExhausted
// before anything is allocated, so "n[0-999999999]" fails fast.
//
// Differences from Slurm 22.05, on purpose:
//  * Text after the last bracket is accepted: "n[1-2]-ib" is n1-ib, n2-ib. Slurm 22.05 refuses
//    any item whose last ']' is not at its end ("Invalid hostlist").
//  * Malformed brackets are errors (InvalidArgument naming the expression and the rule) where
//    Slurm guesses: "n[" (Slurm: a host name with a ']' added), "n]" (host "n]"), "n[1-]" (n1),
//    "n[1, 2]" (n1, n02), "n[+1]" (n01). Numbers must fit in 64 bits (Slurm's strtoul silently
//    saturates).
//  * Slurm's parser separates items by comma, space and tab only; here any ASCII whitespace
//    separates, so "a\nb" is two hosts. NUL bytes are refused.
//  * max_hosts caps the whole expansion. Slurm caps each range at 65536 names (refusing more
//    even when a caller would allow them) but not the total.
//  * Names whose trailing number does not fit in 64 bits are kept verbatim as names without a
//    number; ranges are compared by their real numbers (Slurm truncates the difference to int,
//    which misorders numbers more than 2^31 apart).
//  * Sorting duplicates of mixed widths can make Slurm's hostlist_coalesce() meet a range that
//    starts after its right neighbour ("n9,n10,n07,n9,n10"); Slurm then deletes the neighbour
//    and reads it after freeing it. Such a pair is left as it is here, so no host is lost.
//
// Names passed to the Compress and Sort functions should be what ExpandHostlist produces:
// non-empty, without commas, whitespace or brackets; otherwise the expression cannot round-trip.
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

// Expands an expression into host names (scontrol show hostnames). Errors (InvalidArgument)
// name the expression and the rule: unbalanced or nested brackets, empty range, reversed range
// "n[5-3]", non-numeric range, number too large; a result larger than max_hosts is
// ResourceExhausted. The empty expression expands to no hosts.
Result<std::vector<std::string>> ExpandHostlist(std::string_view expr,
                                                size_t max_hosts = kDefaultMaxHosts);

// Compresses names into one expression, keeping order and duplicates (scontrol show hostlist
// of the names). Linear time.
std::string CompressHostlist(const std::vector<std::string>& hosts);

// Sorts (by prefix, then numeric suffix) and compresses (scontrol show hostlistsorted of the
// names). This is also how Slurm prints the node lists it builds itself (bitmap2node_name():
// node names pushed in node-table order, then hostlist_sort()), e.g. SLURM_JOB_NODELIST and
// squeue's %N. O(n log n) for distinct names; many copies of overlapping ranges can take
// quadratic time, as in Slurm.
std::string CompressHostlistSorted(const std::vector<std::string>& hosts);

// The names in the order CompressHostlistSorted lists them, i.e.
// ExpandHostlist(CompressHostlistSorted(hosts)) without the text round trip.
std::vector<std::string> SortHostlist(const std::vector<std::string>& hosts);

// `scontrol show hostlist <expr>` exactly: re-encodes an expression the way Slurm does, which
// keeps the ranges as written instead of re-splitting every name: "node1[00-15]" stays
// "node1[00-15]" (CompressHostlist of its names gives "node[100-115]"), "rack[1-2]-n[1-3]"
// becomes "rack1-n[1-3],rack2-n[1-3]". Same errors as ExpandHostlist.
Result<std::string> RecompressHostlist(std::string_view expr, size_t max_hosts = kDefaultMaxHosts);

// `scontrol show hostlistsorted <expr>` exactly (see RecompressHostlist).
Result<std::string> RecompressHostlistSorted(std::string_view expr,
                                             size_t max_hosts = kDefaultMaxHosts);

}  // namespace gantry::text

#endif  // GANTRY_TEXT_HOSTLIST_H_
