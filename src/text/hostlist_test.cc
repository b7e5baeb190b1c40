#include "text/hostlist.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::text {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Expand(std::string_view expr, size_t max_hosts = kDefaultMaxHosts) {
  Result<std::vector<std::string>> hosts = ExpandHostlist(expr, max_hosts);
  EXPECT_TRUE(hosts.ok()) << expr << ": " << hosts.status().ToString();
  return hosts.ok() ? *hosts : std::vector<std::string>{};
}

std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    out.emplace_back(
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// ---- Expansion (scontrol show hostnames) --------------------------------------------------------

struct ExpandCase {
  std::string_view expr;
  std::vector<std::string> hosts;
};

TEST(HostlistExpandTest, SlurmExamples) {
  const ExpandCase cases[] = {
      {"a4-[0-3,7]", {"a4-0", "a4-1", "a4-2", "a4-3", "a4-7"}},
      {"a4-[0-3,7],login-0", {"a4-0", "a4-1", "a4-2", "a4-3", "a4-7", "login-0"}},
      {"a,b[1-2]", {"a", "b1", "b2"}},
      {"demo-a4-[0-3]", {"demo-a4-0", "demo-a4-1", "demo-a4-2", "demo-a4-3"}},
      {"tux[0-5,12]", {"tux0", "tux1", "tux2", "tux3", "tux4", "tux5", "tux12"}},
      {"gpu[1-2]", {"gpu1", "gpu2"}},
      {"mynode[1-3,7]", {"mynode1", "mynode2", "mynode3", "mynode7"}},
      {"tux2,tux1,tux2", {"tux2", "tux1", "tux2"}},
      {"login", {"login"}},
      {"n007", {"n007"}},
      {"[1-3]", {"1", "2", "3"}},
      {"n[5]", {"n5"}},
      {"ml-16-node-[001-002,004],ml-17-node-[001-003]",
       {"ml-16-node-001", "ml-16-node-002", "ml-16-node-004", "ml-17-node-001", "ml-17-node-002",
        "ml-17-node-003"}},
  };
  for (const ExpandCase& c : cases) EXPECT_EQ(Expand(c.expr), c.hosts) << c.expr;
}

TEST(HostlistExpandTest, LeadingZerosOfTheStartFixTheWidth) {
  const std::vector<std::string> gpus = Expand("gpu[001-128]");
  ASSERT_EQ(gpus.size(), 128u);
  EXPECT_EQ(gpus.front(), "gpu001");
  EXPECT_EQ(gpus[98], "gpu099");
  EXPECT_EQ(gpus.back(), "gpu128");

  const std::vector<std::string> linux_nodes = Expand("linux[0000-1023]");
  ASSERT_EQ(linux_nodes.size(), 1024u);
  EXPECT_EQ(linux_nodes.front(), "linux0000");
  EXPECT_EQ(linux_nodes[999], "linux0999");
  EXPECT_EQ(linux_nodes.back(), "linux1023");

  EXPECT_THAT(Expand("n[08-11]"), ElementsAre("n08", "n09", "n10", "n11"));
  EXPECT_THAT(Expand("n[9-11]"), ElementsAre("n9", "n10", "n11"));
  // Only the start's digits count; the end's leading zeros do not.
  EXPECT_THAT(Expand("n[8-010]"), ElementsAre("n8", "n9", "n10"));
  EXPECT_THAT(Expand("n[98-0100]"), ElementsAre("n98", "n99", "n100"));
  // Each range of a bracket has its own width.
  EXPECT_THAT(Expand("n[1,01,001]"), ElementsAre("n1", "n01", "n001"));
  // A number before the bracket is just text.
  EXPECT_THAT(Expand("node1[00-02]"), ElementsAre("node100", "node101", "node102"));
  EXPECT_THAT(Expand("n[18446744073709551614-18446744073709551615]"),
              ElementsAre("n18446744073709551614", "n18446744073709551615"));
}

TEST(HostlistExpandTest, SeveralBracketsMultiplyOutLeftMostSlowest) {
  EXPECT_THAT(Expand("rack[1-2]-node[1-3]"),
              ElementsAre("rack1-node1", "rack1-node2", "rack1-node3", "rack2-node1", "rack2-node2",
                          "rack2-node3"));
  EXPECT_THAT(Expand("s[1,3][0-1]"), ElementsAre("s10", "s11", "s30", "s31"));
  EXPECT_THAT(Expand("a[1-2]b[01,3]c[7]"), ElementsAre("a1b01c7", "a1b3c7", "a2b01c7", "a2b3c7"));
}

TEST(HostlistExpandTest, TextAfterTheLastBracketIsKept) {
  // Slurm 22.05 refuses these ("Invalid hostlist"); see the header.
  EXPECT_THAT(Expand("n[1-2]-ib"), ElementsAre("n1-ib", "n2-ib"));
  EXPECT_THAT(Expand("r[1-2]n[5]-bmc"), ElementsAre("r1n5-bmc", "r2n5-bmc"));
  EXPECT_THAT(Expand("gpu[1-2].cluster"), ElementsAre("gpu1.cluster", "gpu2.cluster"));
}

TEST(HostlistExpandTest, CommasAndWhitespaceSeparateEmptyItemsAreSkipped) {
  EXPECT_THAT(Expand("a b\tc\nd"), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Expand(",a,,b,"), ElementsAre("a", "b"));
  EXPECT_THAT(Expand(" n[1-2] , m "), ElementsAre("n1", "n2", "m"));
  EXPECT_THAT(Expand(""), ElementsAre());
  EXPECT_THAT(Expand(" ,, \t"), ElementsAre());
}

TEST(HostlistExpandTest, KeepsWrittenOrderAndDuplicates) {
  EXPECT_THAT(Expand("n[3,1-2,1]"), ElementsAre("n3", "n1", "n2", "n1"));
  EXPECT_THAT(Expand("b,a,b"), ElementsAre("b", "a", "b"));
}

struct ErrorCase {
  std::string_view expr;
  std::string_view message;
};

TEST(HostlistExpandTest, MalformedExpressionsNameTheExpressionAndTheRule) {
  const ErrorCase cases[] = {
      {"n[", R"(invalid hostlist "n[": '[' at offset 1 is never closed)"},
      {"n[1-", R"(invalid hostlist "n[1-": '[' at offset 1 is never closed)"},
      {"n[1-2", R"(invalid hostlist "n[1-2": '[' at offset 1 is never closed)"},
      {"n]", R"(invalid hostlist "n]": ']' at offset 1 has no matching '[')"},
      {"n[1]]", R"(invalid hostlist "n[1]]": ']' at offset 4 has no matching '[')"},
      {"n[[1]]",
       R"(invalid hostlist "n[[1]]": '[' at offset 2 is nested inside the '[' at offset 1)"},
      {"[]", R"(invalid hostlist "[]": empty brackets "[]")"},
      {"n[1,,2]", R"(invalid hostlist "n[1,,2]": empty range in brackets "[1,,2]")"},
      {"n[1,]", R"(invalid hostlist "n[1,]": empty range in brackets "[1,]")"},
      {"n[a-b]",
       R"(invalid hostlist "n[a-b]": range "a-b" is not a number N or a range N-M of decimal numbers)"},
      {"n[5-3]", R"(invalid hostlist "n[5-3]": range start 5 is greater than end 3)"},
      {"n[010-9]", R"(invalid hostlist "n[010-9]": range start 10 is greater than end 9)"},
      {"n[18446744073709551616]",
       R"(invalid hostlist "n[18446744073709551616]": number "18446744073709551616" is too large (the largest is 18446744073709551615))"},
      {"n[1-99999999999999999999]",
       R"(invalid hostlist "n[1-99999999999999999999]": number "99999999999999999999" is too large (the largest is 18446744073709551615))"},
      {"n[1, 2]", R"(invalid hostlist "n[1, 2]": whitespace inside brackets at offset 4)"},
  };
  for (const ErrorCase& c : cases) {
    Result<std::vector<std::string>> hosts = ExpandHostlist(c.expr);
    ASSERT_FALSE(hosts.ok()) << c.expr;
    EXPECT_EQ(hosts.status().code(), StatusCode::kInvalidArgument) << c.expr;
    EXPECT_EQ(hosts.status().message(), c.message) << c.expr;
  }
}

TEST(HostlistExpandTest, RangesAreOnlyDecimalNumbersOrPairs) {
  for (std::string_view expr :
       {"n[1-]", "n[-1]", "n[1-2-3]", "n[+1]", "n[0x1]", "n[1x2]", "n[-]", "n[1--2]", "n[ 1]"}) {
    Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
    ASSERT_FALSE(hosts.ok()) << expr;
    EXPECT_EQ(hosts.status().code(), StatusCode::kInvalidArgument) << expr;
    EXPECT_THAT(hosts.status().message(), HasSubstr(std::string(expr))) << expr;
  }
}

TEST(HostlistExpandTest, NulBytesAndControlCharactersAreQuotedInErrors) {
  const std::string expr("n[1]\0x", 6);
  Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
  ASSERT_FALSE(hosts.ok());
  EXPECT_EQ(hosts.status().message(), R"(invalid hostlist "n[1]\x00x": NUL byte at offset 4)");
}

TEST(HostlistExpandTest, LongExpressionsAreShortenedInErrors) {
  const std::string expr = std::string(500, 'a') + "]";
  Result<std::vector<std::string>> hosts = ExpandHostlist(expr);
  ASSERT_FALSE(hosts.ok());
  EXPECT_EQ(hosts.status().message(), "invalid hostlist \"" + std::string(200, 'a') +
                                          "...\": ']' at offset 500 has no matching '['");
}

TEST(HostlistExpandTest, ExpansionsOverTheLimitFailFastWithoutAllocating) {
  Result<std::vector<std::string>> huge = ExpandHostlist("n[0-999999999]");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(huge.status().message(),
            "hostlist \"n[0-999999999]\" expands to at least 1000000000 hosts, more than the limit "
            "of 65536");

  // Cartesian products are counted without overflowing.
  Result<std::vector<std::string>> product =
      ExpandHostlist("a[0-4294967295][0-4294967295][0-4294967295]");
  ASSERT_FALSE(product.ok());
  EXPECT_EQ(product.status().code(), StatusCode::kResourceExhausted);
  Result<std::vector<std::string>> wide = ExpandHostlist("n[0-18446744073709551615]");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(wide.status().message(), HasSubstr("18446744073709551615 or more hosts"));
}

TEST(HostlistExpandTest, LimitIsInclusiveAndCountsEveryItem) {
  EXPECT_EQ(Expand("n[0-65535]").size(), 65536u);
  EXPECT_EQ(Expand("a[0-255]b[0-255]").size(), 65536u);
  EXPECT_EQ(ExpandHostlist("n[0-65536]").status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ExpandHostlist("n[0-65535],x").status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(ExpandHostlist("a[0-255]b[0-256]").status().code(), StatusCode::kResourceExhausted);

  EXPECT_EQ(Expand("n[1-3]", 3).size(), 3u);
  Result<std::vector<std::string>> over = ExpandHostlist("n[1-2],m[1-2]", 3);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().message(),
            "hostlist \"n[1-2],m[1-2]\" expands to at least 4 hosts, more than the limit of 3");
}

TEST(HostlistExpandTest, LongNamesCountAgainstTheLimit) {
  // 1 KiB of name per allowed host on average.
  const std::string prefix(2000, 'x');
  EXPECT_EQ(Expand(prefix + "[1-5]", 10).size(), 5u);  // 5 * 2001 bytes <= 10 KiB
  Result<std::vector<std::string>> over = ExpandHostlist(prefix + "[1-6]", 10);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(over.status().message(), HasSubstr("12006 bytes of host names"));
  EXPECT_EQ(ExpandHostlist(prefix + "[1-65536]").status().code(), StatusCode::kResourceExhausted);
}

// ---- Compression (scontrol show hostlist / hostlistsorted) -------------------------------------

struct CompressCase {
  std::string_view hosts;  // comma-separated names
  std::string_view hostlist;
  std::string_view sorted;
};

void ExpectCompresses(const CompressCase& c) {
  const std::vector<std::string> hosts = Split(c.hosts);
  EXPECT_EQ(CompressHostlist(hosts), c.hostlist) << c.hosts;
  EXPECT_EQ(CompressHostlistSorted(hosts), c.sorted) << c.hosts;
  // Both expand back: in order, and in the order SortHostlist gives.
  EXPECT_EQ(Expand(c.hostlist), hosts) << c.hosts;
  EXPECT_EQ(Expand(c.sorted), SortHostlist(hosts)) << c.hosts;
}

TEST(HostlistCompressTest, SlurmExamples) {
  const CompressCase cases[] = {
      {"tux2,tux1,tux2", "tux[2,1-2]", "tux[1-2,2]"},
      {"a4-0,a4-1,a4-2,a4-3,a4-7", "a4-[0-3,7]", "a4-[0-3,7]"},
      {"a4-0,a4-1,a4-2,a4-3,a4-7,login-0", "a4-[0-3,7],login-0", "a4-[0-3,7],login-0"},
      {"a,b1,b2", "a,b[1-2]", "a,b[1-2]"},
      {"gpu1,gpu2", "gpu[1-2]", "gpu[1-2]"},
      {"n12,n13,n14,n15,n16", "n[12-16]", "n[12-16]"},
      {"login", "login", "login"},
      {"n5", "n5", "n5"},
      {"5,6,7", "[5-7]", "[5-7]"},
  };
  for (const CompressCase& c : cases) ExpectCompresses(c);
  EXPECT_EQ(CompressHostlist(Expand("linux[0000-1023]")), "linux[0000-1023]");
  EXPECT_EQ(CompressHostlist(Expand("gpu[001-128]")), "gpu[001-128]");
  EXPECT_EQ(CompressHostlist({}), "");
  EXPECT_EQ(CompressHostlistSorted({}), "");
}

TEST(HostlistCompressTest, TheNumberIsTheTrailingDigits) {
  const CompressCase cases[] = {
      {"a4-0,a4-1", "a4-[0-1]", "a4-[0-1]"},
      {"rack1-node1,rack1-node2,rack2-node1", "rack1-node[1-2],rack2-node1",
       "rack1-node[1-2],rack2-node1"},
      {"n1-ib,n2-ib", "n1-ib,n2-ib", "n1-ib,n2-ib"},  // no trailing number
      {"node100,node101", "node[100-101]", "node[100-101]"},
      {"n,n1", "n,n1", "n,n1"},  // "n" has no number, so it is not in n's bracket
      {"n1,n,n2", "n1,n,n2", "n,n[1-2]"},
  };
  for (const CompressCase& c : cases) ExpectCompresses(c);
}

TEST(HostlistCompressTest, WidthsJoinOnlyWhenTheNamesStayTheSame) {
  const CompressCase cases[] = {
      {"n9,n10", "n[9-10]", "n[9-10]"},
      {"n09,n10", "n[09-10]", "n[09-10]"},
      {"n99,n100", "n[99-100]", "n[99-100]"},
      {"n099,n100", "n[099-100]", "n[099-100]"},
      {"n1,n01", "n[1,01]", "n[1,01]"},
      {"n01,n1", "n[01,1]", "n[1,01]"},
      {"n01,n2", "n[01,2]", "n[2,01]"},
      {"n8,n9,n010", "n[8-9,010]", "n[8-9,010]"},
      {"n1,n2,n003", "n[1-2,003]", "n[1-2,003]"},
      {"n10,n11,n012", "n[10-11,012]", "n[10-11,012]"},
      // A padded number sorts after plain numbers with fewer digits, before those with as many.
      {"n100,n001,n5", "n[100,001,5]", "n[5,001,100]"},
  };
  for (const CompressCase& c : cases) ExpectCompresses(c);
  EXPECT_EQ(CompressHostlist(Expand("n[01-99],n100")), "n[01-100]");
}

TEST(HostlistCompressTest, SortedOrdersPrefixesNaturally) {
  const CompressCase cases[] = {
      {"rack10-n1,rack2-n1,rack9-n1", "rack10-n1,rack2-n1,rack9-n1", "rack2-n1,rack9-n1,rack10-n1"},
      {"n1,m1,n2", "n1,m1,n2", "m1,n[1-2]"},
      {"login,n1,n2,login", "login,n[1-2],login", "login,login,n[1-2]"},
      {"b,a,c", "b,a,c", "a,b,c"},
      {"n3,n1,n2", "n[3,1-2]", "n[1-3]"},
      {"gpu2,cpu1,gpu1,cpu2", "gpu2,cpu1,gpu1,cpu2", "cpu[1-2],gpu[1-2]"},
  };
  for (const CompressCase& c : cases) ExpectCompresses(c);
}

TEST(HostlistCompressTest, SortedSplitsOverlappingDuplicatesLikeSlurm) {
  // hostlist_sort() + hostlist_coalesce(): overlaps become the part before, one range per
  // duplicated host and the part after, then neighbours are joined again.
  EXPECT_EQ(CompressHostlistSorted(Expand("n[1-5],n[3-7]")), "n[1-3,3-4,4-5,5-7]");
  EXPECT_EQ(CompressHostlistSorted(Expand("n[1-10],n[3-4]")), "n[1-3,3-4,4-10]");
  EXPECT_EQ(CompressHostlistSorted(Expand("n[1-3],n1")), "n[1,1-3]");
  EXPECT_EQ(CompressHostlistSorted(Expand("n[1-5],n[2-6],n[3-7]")),
            "n[1-2,2-3,3,3-4,4,4-5,5,5-6,6-7]");
  EXPECT_EQ(CompressHostlistSorted(Expand("n[1-4],n[1-4]")), "n[1,1-2,2-3,3-4,4]");
  // The ranges formed in the given order decide how widths group, as in Slurm.
  EXPECT_EQ(CompressHostlistSorted(Expand("n001,n[01-100]")), "n[01-100,001]");
  EXPECT_EQ(CompressHostlistSorted(Expand("n[01-99],n001,n100")), "n[01-99,001,100]");
}

TEST(HostlistCompressTest, HandlesAHundredThousandHostsQuickly) {
  std::vector<std::string> hosts;
  for (int i = 0; i < 100000; ++i) hosts.push_back("node" + std::to_string(i));
  std::vector<std::string> reversed(hosts.rbegin(), hosts.rend());
  // A deterministic shuffle.
  std::vector<std::string> shuffled = hosts;
  std::mt19937 rng(42);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);

  EXPECT_EQ(CompressHostlist(hosts), "node[0-99999]");
  EXPECT_EQ(CompressHostlistSorted(reversed), "node[0-99999]");
  EXPECT_EQ(CompressHostlistSorted(shuffled), "node[0-99999]");
  const std::string unsorted = CompressHostlist(shuffled);
  EXPECT_EQ(Expand(unsorted, 100000), shuffled);
  EXPECT_EQ(SortHostlist(shuffled), hosts);
}

// ---- Re-encoding expressions exactly as scontrol does -------------------------------------------

TEST(HostlistRecompressTest, KeepsRangesAsWritten) {
  struct Case {
    std::string_view expr;
    std::string_view hostlist;
    std::string_view sorted;
  };
  const Case cases[] = {
      {"tux2,tux1,tux2", "tux[2,1-2]", "tux[1-2,2]"},
      {"a4-[0-3,7]", "a4-[0-3,7]", "a4-[0-3,7]"},
      {"node1[00-15]", "node1[00-15]", "node1[00-15]"},
      {"rack[1-2]-node[1-3]", "rack1-node[1-3],rack2-node[1-3]", "rack1-node[1-3],rack2-node[1-3]"},
      {"n[3-4],n[1-2]", "n[3-4,1-2]", "n[1-4]"},
      {"n[1-2],n3", "n[1-3]", "n[1-3]"},
      {"n[1-2]-ib", "n1-ib,n2-ib", "n1-ib,n2-ib"},
      {"", "", ""},
  };
  for (const Case& c : cases) {
    Result<std::string> hostlist = RecompressHostlist(c.expr);
    ASSERT_TRUE(hostlist.ok()) << c.expr;
    EXPECT_EQ(*hostlist, c.hostlist) << c.expr;
    Result<std::string> sorted = RecompressHostlistSorted(c.expr);
    ASSERT_TRUE(sorted.ok()) << c.expr;
    EXPECT_EQ(*sorted, c.sorted) << c.expr;
    EXPECT_EQ(Expand(*hostlist), Expand(c.expr)) << c.expr;
  }
  // Compressing the names instead re-splits them.
  EXPECT_EQ(CompressHostlist(Expand("node1[00-15]")), "node[100-115]");
}

TEST(HostlistRecompressTest, RefusesWhatExpandRefuses) {
  EXPECT_EQ(RecompressHostlist("n[5-3]").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RecompressHostlistSorted("n[").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RecompressHostlist("n[0-999999999]").status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(RecompressHostlistSorted("n[1-3]", 2).status().code(), StatusCode::kResourceExhausted);
}

// ---- Slurm's algorithm, literally, as an oracle
// --------------------------------------------------
//
// A direct rendering of hostlist.c's push / sort / coalesce / collapse / ranged_string, using a
// vector and restarting the overlap scan from the end after every split as Slurm does. The
// library resumes the scan instead and uses a linked list; both must agree.

struct RefRange {
  std::string prefix;
  uint64_t lo = 0, hi = 0;
  int width = 0;
  bool single = false;
};

int RefPad(uint64_t num, int width) {
  int digits = static_cast<int>(std::to_string(num).size());
  return width > digits ? width - digits : 0;
}

bool RefWidthEquiv(uint64_t n, int& wn, uint64_t m, int& wm) {
  if (wn == wm) return true;
  const int npad = RefPad(n, wn), nmpad = RefPad(n, wm), mpad = RefPad(m, wm),
            mnpad = RefPad(m, wn);
  if (npad != nmpad && mpad != mnpad) return false;
  if (npad != nmpad) {
    wm = wn;
  } else {
    wn = wm;
  }
  return true;
}

int RefPrefixCmp(const RefRange& a, const RefRange& b) {
  // Test names avoid digits and spaces in prefixes where strnatcmp differs from strcmp.
  const int c = a.prefix.compare(b.prefix);
  if (c != 0) return c < 0 ? -1 : 1;
  return static_cast<int>(b.single) - static_cast<int>(a.single);
}

bool RefTouch(RefRange& a, RefRange& b) {
  return a.hi + 1 == b.lo && RefPrefixCmp(a, b) == 0 && !a.single &&
         RefWidthEquiv(a.lo, a.width, b.lo, b.width);
}

void RefPushHost(std::vector<RefRange>& list, const std::string& name) {
  size_t split = name.size();
  while (split > 0 && name[split - 1] >= '0' && name[split - 1] <= '9') --split;
  RefRange r;
  if (split == name.size()) {
    r.prefix = name;
    r.single = true;
  } else {
    r.prefix = name.substr(0, split);
    r.lo = r.hi = std::stoull(name.substr(split));
    r.width = static_cast<int>(name.size() - split);
  }
  if (!list.empty() && !r.single && RefTouch(list.back(), r)) {
    list.back().hi = r.hi;
  } else {
    list.push_back(r);
  }
}

void RefSort(std::vector<RefRange>& list) {
  std::stable_sort(list.begin(), list.end(), [](RefRange a, RefRange b) {
    int c = RefPrefixCmp(a, b);
    if (c == 0) {
      c = RefWidthEquiv(a.lo, a.width, b.lo, b.width) ? (a.lo < b.lo ? -1 : (a.lo > b.lo ? 1 : 0))
                                                      : a.width - b.width;
    }
    return c < 0;
  });
  // hostlist_coalesce()
  for (size_t i = list.size() - 1; list.size() > 1 && i > 0; --i) {
    RefRange& prev = list[i - 1];
    RefRange& next = list[i];
    if (prev.single || next.single || !(prev.hi > next.lo) || RefPrefixCmp(prev, next) != 0 ||
        !RefWidthEquiv(prev.lo, prev.width, next.lo, next.width)) {
      continue;
    }
    // An earlier split can raise a range's start past its right neighbour's ("n9,n10,n07,n9,n10":
    // [10] written 1 wide, then [07]). Slurm then deletes the neighbour and reads it after
    // freeing it; the library leaves such a pair alone, and so does the oracle.
    if (next.lo < prev.lo) continue;
    RefRange overlap = prev;
    overlap.lo = next.lo;
    overlap.hi = std::min(next.hi, prev.hi);
    if (overlap.hi < prev.hi) next.hi = prev.hi;
    prev.hi = overlap.lo;
    next.lo = overlap.hi;
    std::vector<RefRange> singles;
    for (uint64_t x = overlap.lo; x <= overlap.hi; ++x) {
      RefRange one = overlap;
      one.lo = one.hi = x;
      if (x > prev.hi) singles.push_back(one);
      if (x < next.lo) singles.push_back(one);
    }
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(i), singles.begin(), singles.end());
    i = list.size();  // start again from the end
  }
  // hostlist_collapse()
  for (size_t i = list.size() - 1; list.size() > 1 && i > 0; --i) {
    if (RefTouch(list[i - 1], list[i])) {
      list[i - 1].hi = list[i].hi;
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

std::string RefRender(const std::vector<RefRange>& list) {
  auto same_bracket = [](const RefRange& a, const RefRange& b) {
    return RefPrefixCmp(a, b) == 0 && !a.single && !b.single;
  };
  auto number = [](uint64_t n, int width) {
    std::string digits = std::to_string(n);
    return std::string(static_cast<size_t>(RefPad(n, width)), '0') + digits;
  };
  std::string out;
  for (size_t i = 0; i < list.size();) {
    if (i > 0) out += ',';
    const bool bracket = (!list[i].single && list[i].hi > list[i].lo) ||
                         (i + 1 < list.size() && same_bracket(list[i], list[i + 1]));
    out += list[i].prefix;
    if (bracket) out += '[';
    const size_t first = i;
    do {
      if (i > first) out += ',';
      if (!list[i].single) {
        out += number(list[i].lo, list[i].width);
        if (list[i].hi > list[i].lo) out += "-" + number(list[i].hi, list[i].width);
      }
      ++i;
    } while (i < list.size() && same_bracket(list[i], list[i - 1]));
    if (bracket) out += ']';
  }
  return out;
}

// Random lists with runs, duplicates, mixed widths, names without numbers.
std::vector<std::string> RandomHosts(std::mt19937& rng) {
  static const char* const kPrefixes[] = {"n", "m", "rack-a-", ""};
  static const char* const kSingles[] = {"login", "n", "m-ib"};
  std::uniform_int_distribution<int> count(0, 12);
  std::uniform_int_distribution<int> percent(0, 99);
  std::uniform_int_distribution<int> number(0, 25);
  std::uniform_int_distribution<int> run(1, 8);
  std::vector<std::string> hosts;
  for (int n = count(rng); n > 0; --n) {
    if (percent(rng) < 10) {
      hosts.emplace_back(kSingles[percent(rng) % 3]);
      continue;
    }
    const std::string prefix = kPrefixes[percent(rng) % 4];
    const int width = percent(rng) < 60 ? 1 : 2 + percent(rng) % 2;
    const int start = number(rng);
    for (int x = start, end = start + run(rng); x < end; ++x) {
      const std::string digits = std::to_string(x);
      hosts.push_back(
          prefix +
          std::string(width > static_cast<int>(digits.size()) ? width - digits.size() : 0, '0') +
          digits);
    }
  }
  return hosts;
}

TEST(HostlistPropertyTest, MatchesSlurmsAlgorithmOnRandomLists) {
  std::mt19937 rng(20221205);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const std::vector<std::string> hosts = RandomHosts(rng);
    std::vector<RefRange> ranges;
    for (const std::string& host : hosts) RefPushHost(ranges, host);
    ASSERT_EQ(CompressHostlist(hosts), RefRender(ranges));
    RefSort(ranges);
    const std::string sorted = CompressHostlistSorted(hosts);
    ASSERT_EQ(sorted, RefRender(ranges)) << ::testing::PrintToString(hosts);
  }
}

TEST(HostlistPropertyTest, RandomListsRoundTrip) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    const std::vector<std::string> hosts = RandomHosts(rng);
    const std::string hostlist = CompressHostlist(hosts);
    ASSERT_EQ(Expand(hostlist), hosts) << hostlist;
    const std::string sorted = CompressHostlistSorted(hosts);
    const std::vector<std::string> in_order = SortHostlist(hosts);
    ASSERT_EQ(Expand(sorted), in_order) << sorted;
    std::vector<std::string> a = hosts, b = in_order;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b) << sorted;
    // Sorting what is already sorted changes nothing, unless duplicates were split (a split can
    // raise a range's start, "n[9-10],n07,n[9-10]" leaves [10] before [07]).
    std::vector<std::string> distinct = a;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() == a.size()) {
      ASSERT_EQ(CompressHostlistSorted(in_order), sorted);
    }
    // Re-encoding the expression keeps the hosts.
    Result<std::string> again = RecompressHostlist(hostlist);
    ASSERT_TRUE(again.ok());
    ASSERT_EQ(*again, hostlist);
  }
}

}  // namespace
}  // namespace gantry::text
