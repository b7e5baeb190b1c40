// Fuzzes hostlist expressions: any input either fails cleanly (InvalidArgument or
// ResourceExhausted with a message) or expands, and then
//  - CompressHostlist expands back to exactly the same names, in order, duplicates included;
//  - CompressHostlistSorted expands back to SortHostlist's list, a permutation of the names;
//    without duplicates, sorting the sorted names changes nothing;
//  - RecompressHostlist / RecompressHostlistSorted of the input expand to the same names and to
//    a permutation of them.
// Any broken invariant traps.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "text/hostlist.h"

namespace {

using gantry::Result;
using gantry::StatusCode;

// Small enough to keep every run fast; the code paths are the same as with the default.
constexpr size_t kMaxHosts = 1024;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

std::vector<std::string> ExpandOrTrap(std::string_view expr) {
  Result<std::vector<std::string>> hosts = gantry::text::ExpandHostlist(expr, kMaxHosts);
  Check(hosts.ok());
  return std::move(hosts).value();
}

bool SameMultiset(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view expr(reinterpret_cast<const char*>(data), size);
  Result<std::vector<std::string>> expanded = gantry::text::ExpandHostlist(expr, kMaxHosts);
  if (!expanded.ok()) {
    const StatusCode code = expanded.status().code();
    Check(code == StatusCode::kInvalidArgument || code == StatusCode::kResourceExhausted);
    Check(!expanded.status().message().empty());
    // The re-encoders refuse the same inputs.
    Check(gantry::text::RecompressHostlist(expr, kMaxHosts).status().code() == code);
    return 0;
  }
  const std::vector<std::string>& hosts = *expanded;
  Check(hosts.size() <= kMaxHosts);
  for (const std::string& host : hosts) Check(!host.empty());

  // show hostlist: order and duplicates survive the round trip.
  const std::string hostlist = gantry::text::CompressHostlist(hosts);
  Check(ExpandOrTrap(hostlist) == hosts);

  // show hostlistsorted: the text lists exactly SortHostlist's order, a permutation.
  const std::string sorted = gantry::text::CompressHostlistSorted(hosts);
  const std::vector<std::string> in_order = gantry::text::SortHostlist(hosts);
  Check(ExpandOrTrap(sorted) == in_order);
  Check(SameMultiset(hosts, in_order));
  std::vector<std::string> distinct = hosts;
  std::sort(distinct.begin(), distinct.end());
  if (std::adjacent_find(distinct.begin(), distinct.end()) == distinct.end()) {
    Check(gantry::text::CompressHostlistSorted(in_order) == sorted);
  }

  // scontrol show hostlist / hostlistsorted of the expression itself.
  Result<std::string> again = gantry::text::RecompressHostlist(expr, kMaxHosts);
  Check(again.ok());
  Check(ExpandOrTrap(*again) == hosts);
  Result<std::string> again_sorted = gantry::text::RecompressHostlistSorted(expr, kMaxHosts);
  Check(again_sorted.ok());
  Check(SameMultiset(ExpandOrTrap(*again_sorted), hosts));
  return 0;
}
