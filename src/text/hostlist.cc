#include "text/hostlist.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/ascii.h"

namespace gantry::text {
namespace {

constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();

// Average bytes per host name allowed in an expansion (see the header's "Limits").
constexpr uint64_t kMaxBytesPerHost = 1024;

// How much of an expression error messages quote (text::Quote's max_shown).
constexpr size_t kMaxQuoted = 200;

// ---- Characters and numbers -------------------------------------------------------------------

// isspace() in the C locale.

bool IsSeparator(char c) { return c == ',' || IsAsciiSpace(c); }

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > kMaxU64 - b ? kMaxU64 : a + b; }

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kMaxU64 / b ? kMaxU64 : a * b;
}

size_t DigitCount(uint64_t n) {
  size_t digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

// Appends n in decimal, zero-padded to `width` characters (printf "%0*lu").
void AppendPadded(std::string& out, uint64_t n, size_t width) {
  char digits[20];
  size_t len = 0;
  do {
    digits[len++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  if (width > len) out.append(width - len, '0');
  while (len > 0) out.push_back(digits[--len]);
}

// Parses a non-empty run of decimal digits; nullopt when it does not fit in 64 bits.
std::optional<uint64_t> ParseDigits(std::string_view digits) {
  uint64_t value = 0;
  for (char c : digits) {
    const auto d = static_cast<uint64_t>(c - '0');
    if (value > (kMaxU64 - d) / 10) return std::nullopt;
    value = value * 10 + d;
  }
  return value;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsAsciiDigit(c)) return false;
  }
  return true;
}

// Total characters of the numbers lo..hi written with "%0*lu" and `width`.
uint64_t RenderedDigits(uint64_t lo, uint64_t hi, size_t width) {
  uint64_t total = 0;
  uint64_t x = lo;
  while (true) {
    const size_t digits = DigitCount(x);
    // Last number with the same digit count as x.
    uint64_t last = kMaxU64;
    if (digits < 20) {
      uint64_t limit = 1;
      for (size_t i = 0; i < digits; ++i) limit *= 10;
      last = limit - 1;
    }
    if (last > hi) last = hi;
    const uint64_t count = last - x + 1;  // no overflow: a digit class never spans 0..max
    total = SaturatingAdd(total, SaturatingMul(count, std::max<uint64_t>(digits, width)));
    if (last == hi) return total;
    x = last + 1;
  }
}

// ---- Error messages ---------------------------------------------------------------------------

Status Invalid(std::string_view expr, const std::string& rule) {
  return InvalidArgument("invalid hostlist " + Quote(expr, kMaxQuoted) + ": " + rule);
}

// ---- Parsed expressions -----------------------------------------------------------------------

struct NumberRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;  // characters written for lo, leading zeros included
};

struct Bracket {
  std::vector<NumberRange> ranges;
  uint64_t count = 0;   // names it stands for (saturating)
  uint64_t digits = 0;  // characters of all those numbers together (saturating)
};

// text[0] bracket[0] text[1] ... bracket[k-1] text[k]; without brackets a plain name.
struct Item {
  std::vector<std::string_view> texts;
  std::vector<Bracket> brackets;
  uint64_t count = 1;
};

struct Parsed {
  std::vector<Item> items;
  uint64_t hosts = 0;
};

Result<Bracket> ParseBracket(std::string_view expr, std::string_view body) {
  Bracket bracket;
  if (body.empty()) return Invalid(expr, "empty brackets \"[]\"");
  size_t start = 0;
  while (true) {
    const size_t comma = body.find(',', start);
    const std::string_view piece = body.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (piece.empty()) {
      return Invalid(expr,
                     "empty range in brackets " + Quote("[" + std::string(body) + "]", kMaxQuoted));
    }
    const size_t dash = piece.find('-');
    const std::string_view lo_text = piece.substr(0, dash);
    const std::string_view hi_text =
        dash == std::string_view::npos ? lo_text : piece.substr(dash + 1);
    if (!AllDigits(lo_text) || !AllDigits(hi_text)) {
      return Invalid(expr, "range " + Quote(piece, kMaxQuoted) +
                               " is not a number N or a range N-M of decimal numbers");
    }
    const std::optional<uint64_t> lo = ParseDigits(lo_text);
    const std::optional<uint64_t> hi = ParseDigits(hi_text);
    if (!lo || !hi) {
      return Invalid(expr, "number " + Quote(!lo ? lo_text : hi_text, kMaxQuoted) +
                               " is too large (the largest is 18446744073709551615)");
    }
    if (*lo > *hi) {
      return Invalid(expr, "range start " + std::to_string(*lo) + " is greater than end " +
                               std::to_string(*hi));
    }
    const NumberRange range{*lo, *hi, lo_text.size()};
    const uint64_t span = *hi - *lo;
    bracket.count = SaturatingAdd(bracket.count, span == kMaxU64 ? kMaxU64 : span + 1);
    bracket.digits = SaturatingAdd(bracket.digits, RenderedDigits(*lo, *hi, range.width));
    bracket.ranges.push_back(range);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return bracket;
}

// Splits the expression into items and checks every bracket, then the size of the expansion,
// all before any name is built.
Result<Parsed> Parse(std::string_view expr, size_t max_hosts) {
  Parsed parsed;
  uint64_t bytes = 0;
  size_t i = 0;
  const size_t n = expr.size();
  while (i < n) {
    if (expr[i] == '\0') return Invalid(expr, "NUL byte at offset " + std::to_string(i));
    if (IsSeparator(expr[i])) {
      ++i;
      continue;
    }
    Item item;
    size_t text_start = i;
    while (i < n && !IsSeparator(expr[i])) {
      const char c = expr[i];
      if (c == '\0') return Invalid(expr, "NUL byte at offset " + std::to_string(i));
      if (c == ']') {
        return Invalid(expr, "']' at offset " + std::to_string(i) + " has no matching '['");
      }
      if (c != '[') {
        ++i;
        continue;
      }
      item.texts.push_back(expr.substr(text_start, i - text_start));
      const size_t open = i;
      size_t close = open + 1;
      for (; close < n && expr[close] != ']'; ++close) {
        const char b = expr[close];
        if (b == '[') {
          return Invalid(expr, "'[' at offset " + std::to_string(close) +
                                   " is nested inside the '[' at offset " + std::to_string(open));
        }
        if (IsAsciiSpace(b)) {
          return Invalid(expr, "whitespace inside brackets at offset " + std::to_string(close));
        }
        if (b == '\0') return Invalid(expr, "NUL byte at offset " + std::to_string(close));
      }
      if (close == n) {
        return Invalid(expr, "'[' at offset " + std::to_string(open) + " is never closed");
      }
      GANTRY_ASSIGN_OR_RETURN(Bracket bracket,
                              ParseBracket(expr, expr.substr(open + 1, close - open - 1)));
      item.brackets.push_back(std::move(bracket));
      i = close + 1;
      text_start = i;
    }
    item.texts.push_back(expr.substr(text_start, i - text_start));

    // Names and bytes: count = product of the bracket counts; every name carries all the texts,
    // and bracket g's numbers appear count / count_g times each.
    const size_t k = item.brackets.size();
    std::vector<uint64_t> after(k + 1, 1);  // after[g] = product of counts of brackets g..k-1
    for (size_t g = k; g > 0; --g) {
      after[g - 1] = SaturatingMul(after[g], item.brackets[g - 1].count);
    }
    item.count = after[0];
    uint64_t text_bytes = 0;
    for (std::string_view text : item.texts) text_bytes = SaturatingAdd(text_bytes, text.size());
    uint64_t item_bytes = SaturatingMul(item.count, text_bytes);
    uint64_t before = 1;  // product of counts of brackets 0..g-1
    for (size_t g = 0; g < k; ++g) {
      const uint64_t others = SaturatingMul(before, after[g + 1]);
      item_bytes = SaturatingAdd(item_bytes, SaturatingMul(item.brackets[g].digits, others));
      before = SaturatingMul(before, item.brackets[g].count);
    }
    parsed.hosts = SaturatingAdd(parsed.hosts, item.count);
    bytes = SaturatingAdd(bytes, item_bytes);
    if (parsed.hosts > max_hosts) {
      return ResourceExhausted("hostlist " + Quote(expr, kMaxQuoted) + " expands to " +
                               (parsed.hosts == kMaxU64
                                    ? std::string("18446744073709551615 or more")
                                    : "at least " + std::to_string(parsed.hosts)) +
                               " hosts, more than the limit of " + std::to_string(max_hosts));
    }
    const uint64_t max_bytes = SaturatingMul(max_hosts, kMaxBytesPerHost);
    if (bytes > max_bytes) {
      return ResourceExhausted("hostlist " + Quote(expr, kMaxQuoted) + " expands to at least " +
                               std::to_string(bytes) + " bytes of host names, more than the " +
                               "limit of " + std::to_string(max_bytes));
    }
    parsed.items.push_back(std::move(item));
  }
  return parsed;
}

// Calls fn(name) for every combination of the numbers of the first `groups` brackets of item,
// left-most varying slowest; name is text[0] n0 text[1] ... n(groups-1) text[groups].
template <typename Fn>
void ForEachCombination(const Item& item, size_t groups, Fn&& fn) {
  std::vector<size_t> range_index(groups, 0);
  std::vector<uint64_t> value(groups);
  for (size_t g = 0; g < groups; ++g) value[g] = item.brackets[g].ranges[0].lo;
  std::string name;
  while (true) {
    name.assign(item.texts[0]);
    for (size_t g = 0; g < groups; ++g) {
      AppendPadded(name, value[g], item.brackets[g].ranges[range_index[g]].width);
      name.append(item.texts[g + 1]);
    }
    fn(name);
    // Advance the odometer from the right-most bracket.
    size_t g = groups;
    while (true) {
      if (g == 0) return;
      --g;
      const std::vector<NumberRange>& ranges = item.brackets[g].ranges;
      if (value[g] < ranges[range_index[g]].hi) {
        ++value[g];
        break;
      }
      if (range_index[g] + 1 < ranges.size()) {
        value[g] = ranges[++range_index[g]].lo;
        break;
      }
      range_index[g] = 0;
      value[g] = ranges[0].lo;
    }
  }
}

// ---- Host ranges (Slurm's hostrange_t) ----------------------------------------------------------

struct HostRange {
  std::string prefix;
  uint64_t lo = 0;
  uint64_t hi = 0;
  size_t width = 0;
  bool single = false;  // a name without number; prefix is the whole name
};

using HostRanges = std::vector<HostRange>;

// Zeros "%0*lu" puts in front of num for width.
size_t ZeroPadding(uint64_t num, size_t width) {
  const size_t digits = DigitCount(num);
  return width > digits ? width - digits : 0;
}

// Slurm's _width_equiv(): whether n written `wn` wide and m written `wm` wide can share one
// width without changing how either is written. When they can, the width of the one whose
// rendering does not depend on it is set to the other's (this never changes any rendering).
bool WidthsEquivalent(uint64_t n, size_t& wn, uint64_t m, size_t& wm) {
  if (wn == wm) return true;
  const size_t npad = ZeroPadding(n, wn);
  const size_t nmpad = ZeroPadding(n, wm);
  const size_t mpad = ZeroPadding(m, wm);
  const size_t mnpad = ZeroPadding(m, wn);
  if (npad != nmpad && mpad != mnpad) return false;
  if (npad != nmpad) {
    wm = wn;
  } else {
    wn = wm;
  }
  return true;
}

bool WidthsCombine(HostRange& a, HostRange& b) {
  return WidthsEquivalent(a.lo, a.width, b.lo, b.width);
}

// Whether a and b go into one bracket: same prefix, both numbered.
bool SameBracket(const HostRange& a, const HostRange& b) {
  return !a.single && !b.single && a.prefix == b.prefix;
}

// Whether b continues a: same prefix, b starts right after a ends, compatible widths.
bool Continues(HostRange& a, HostRange& b) {
  return SameBracket(a, b) && b.lo != 0 && a.hi == b.lo - 1 && WidthsCombine(a, b);
}

// hostlist_push_range(): appends, merging into the last range when it continues it.
void PushRange(HostRanges& list, HostRange range) {
  if (!list.empty() && Continues(list.back(), range)) {
    list.back().hi = range.hi;
    return;
  }
  list.push_back(std::move(range));
}

// hostlist_push_host(): the trailing digits of the name are its number.
void PushHost(HostRanges& list, std::string_view name) {
  size_t split = name.size();
  while (split > 0 && IsAsciiDigit(name[split - 1])) --split;
  HostRange range;
  std::optional<uint64_t> number;
  if (split < name.size()) number = ParseDigits(name.substr(split));
  if (number) {
    range.prefix.assign(name.substr(0, split));
    range.lo = range.hi = *number;
    range.width = name.size() - split;
  } else {
    range.prefix.assign(name);
    range.single = true;
  }
  PushRange(list, std::move(range));
}

// ---- Sorting (hostlist_sort) --------------------------------------------------------------------

// strnatcmp() helpers: a run of digits compared as a number ("9" < "10")...
int CompareDigitsAsNumbers(const char* a, const char* b) {
  int bias = 0;
  for (;; ++a, ++b) {
    const bool da = IsAsciiDigit(*a);
    const bool db = IsAsciiDigit(*b);
    if (!da && !db) return bias;
    if (!da) return -1;
    if (!db) return +1;
    if (bias == 0 && *a != *b) bias = *a < *b ? -1 : +1;
  }
}

// ... or, when either starts with '0', digit by digit as a fraction ("01" < "1").
int CompareDigitsAsFraction(const char* a, const char* b) {
  for (;; ++a, ++b) {
    const bool da = IsAsciiDigit(*a);
    const bool db = IsAsciiDigit(*b);
    if (!da && !db) return 0;
    if (!da) return -1;
    if (!db) return +1;
    if (*a != *b) return *a < *b ? -1 : +1;
  }
}

// Slurm's strnatcmp(): natural order ("rack2" < "rack10"), whitespace skipped, case-sensitive,
// other characters compared as (signed) chars.
int NaturalCompare(const std::string& left, const std::string& right) {
  const char* a = left.c_str();
  const char* b = right.c_str();
  size_t ai = 0;
  size_t bi = 0;
  while (true) {
    char ca = a[ai];
    char cb = b[bi];
    while (IsAsciiSpace(ca)) ca = a[++ai];
    while (IsAsciiSpace(cb)) cb = b[++bi];
    if (IsAsciiDigit(ca) && IsAsciiDigit(cb)) {
      const int result = (ca == '0' || cb == '0') ? CompareDigitsAsFraction(a + ai, b + bi)
                                                  : CompareDigitsAsNumbers(a + ai, b + bi);
      if (result != 0) return result;
    }
    if (ca == '\0' && cb == '\0') return 0;
    const auto sa = static_cast<signed char>(ca);
    const auto sb = static_cast<signed char>(cb);
    if (sa != sb) return sa < sb ? -1 : +1;
    ++ai;
    ++bi;
  }
}

// hostrange_cmp(): prefix in natural order, a name without number first, then by number when
// the widths are compatible, else by width.
int CompareRanges(HostRange& a, HostRange& b) {
  int result = NaturalCompare(a.prefix, b.prefix);
  if (result == 0) result = static_cast<int>(b.single) - static_cast<int>(a.single);
  if (result != 0) return result;
  if (WidthsCombine(a, b)) return a.lo < b.lo ? -1 : (a.lo > b.lo ? 1 : 0);
  return a.width < b.width ? -1 : (a.width > b.width ? 1 : 0);
}

// glibc's qsort() for Slurm's arrays: a top-down merge sort that takes from the left half on
// ties. Reproducing it keeps the order of equal ranges, and the result for any comparator,
// identical to Slurm's.
void MergeSort(std::vector<HostRange*>& v, size_t begin, size_t n, std::vector<HostRange*>& tmp) {
  if (n <= 1) return;
  const size_t n1 = n / 2;
  MergeSort(v, begin, n1, tmp);
  MergeSort(v, begin + n1, n - n1, tmp);
  size_t i = begin;
  size_t j = begin + n1;
  const size_t i_end = begin + n1;
  const size_t j_end = begin + n;
  size_t out = 0;
  while (i < i_end && j < j_end) {
    tmp[out++] = CompareRanges(*v[i], *v[j]) <= 0 ? v[i++] : v[j++];
  }
  while (i < i_end) tmp[out++] = v[i++];
  while (j < j_end) tmp[out++] = v[j++];
  for (size_t k = 0; k < n; ++k) v[begin + k] = tmp[k];
}

// hostrange_intersect() for neighbours a <= b: the numbers of b that a also covers. None when
// a ends before b starts (touching is not overlapping). May equalise the widths, as Slurm does.
struct Span {
  uint64_t lo;
  uint64_t hi;
};
std::optional<Span> Overlap(HostRange& a, HostRange& b) {
  if (a.single || b.single) return std::nullopt;
  if (!(a.hi > b.lo && a.prefix == b.prefix && WidthsCombine(a, b))) return std::nullopt;
  return Span{b.lo, b.hi < a.hi ? b.hi : a.hi};
}

using RangeList = std::list<HostRange>;

// hostlist_coalesce(): Slurm scans neighbour pairs from the end; at the first overlap it splits
// the pair into the part before, one range per duplicated host and the part after, then starts
// again from the end. Pairs right of the split are unchanged and were already clean, so
// resuming at the split's right edge finds the same next overlap without rescanning.
void SplitOverlaps(RangeList& list) {
  if (list.size() < 2) return;
  auto cur = std::prev(list.end());  // right member of the pair being looked at
  while (cur != list.begin()) {
    const auto prev = std::prev(cur);
    HostRange& left = *prev;
    HostRange& right = *cur;
    const std::optional<Span> overlap = Overlap(left, right);
    // Sorted input keeps right.lo >= left.lo; Slurm would lose hosts otherwise, so leave such
    // a pair alone.
    if (!overlap || right.lo < left.lo) {
      cur = prev;
      continue;
    }
    if (overlap->hi < left.hi) right.hi = left.hi;
    left.hi = overlap->lo;
    right.lo = overlap->hi;
    // One range per duplicated host, copies of the left range (whose width both now share).
    for (uint64_t x = overlap->lo;; ++x) {
      for (int copies = (x > left.hi) + (x < right.lo); copies > 0; --copies) {
        HostRange one;
        one.prefix = left.prefix;
        one.lo = one.hi = x;
        one.width = left.width;
        list.insert(cur, std::move(one));
      }
      if (x == overlap->hi) break;
    }
    const auto next = std::next(cur);
    if (next != list.end()) cur = next;
  }
}

// hostlist_collapse(): from the end, joins each range to the one before when it continues it.
void JoinNeighbours(RangeList& list) {
  if (list.size() < 2) return;
  auto cur = std::prev(list.end());
  while (cur != list.begin()) {
    const auto prev = std::prev(cur);
    if (Continues(*prev, *cur)) {
      prev->hi = cur->hi;
      list.erase(cur);
    }
    cur = prev;
  }
}

// hostlist_sort(): sort, split overlapping duplicates, join neighbours.
RangeList SortRanges(HostRanges ranges) {
  std::vector<HostRange*> order;
  order.reserve(ranges.size());
  for (HostRange& range : ranges) order.push_back(&range);
  std::vector<HostRange*> tmp(order.size());
  MergeSort(order, 0, order.size(), tmp);
  RangeList list;
  for (HostRange* range : order) list.push_back(std::move(*range));
  SplitOverlaps(list);
  JoinNeighbours(list);
  return list;
}

// ---- Rendering (hostlist_ranged_string) ---------------------------------------------------------

template <typename Ranges>
std::string Render(const Ranges& ranges) {
  std::string out;
  auto it = ranges.begin();
  const auto end = ranges.end();
  while (it != end) {
    if (it != ranges.begin()) out += ',';
    const auto next = std::next(it);
    const bool bracket =
        (!it->single && it->hi > it->lo) || (next != end && SameBracket(*it, *next));
    out += it->prefix;
    if (bracket) out += '[';
    auto prev = it;
    do {
      if (it != prev) out += ',';
      if (!it->single) {
        AppendPadded(out, it->lo, it->width);
        if (it->lo < it->hi) {
          out += '-';
          AppendPadded(out, it->hi, it->width);
        }
      }
      prev = it;
      ++it;
    } while (it != end && SameBracket(*prev, *it));
    if (bracket) out += ']';
  }
  return out;
}

// Slurm's hostlist_create(): ranges as written, names without brackets split into prefix and
// number. Items with text after the last bracket (our extension) are pushed name by name.
HostRanges BuildRanges(const Parsed& parsed) {
  HostRanges list;
  for (const Item& item : parsed.items) {
    const size_t k = item.brackets.size();
    if (k == 0) {
      PushHost(list, item.texts[0]);
    } else if (!item.texts[k].empty()) {
      ForEachCombination(item, k, [&](const std::string& name) { PushHost(list, name); });
    } else {
      ForEachCombination(item, k - 1, [&](const std::string& prefix) {
        for (const NumberRange& number : item.brackets[k - 1].ranges) {
          HostRange range;
          range.prefix = prefix;
          range.lo = number.lo;
          range.hi = number.hi;
          range.width = number.width;
          PushRange(list, std::move(range));
        }
      });
    }
  }
  return list;
}

HostRanges RangesOfNames(const std::vector<std::string>& hosts) {
  HostRanges list;
  list.reserve(hosts.size());
  for (const std::string& host : hosts) PushHost(list, host);
  return list;
}

}  // namespace

Result<std::vector<std::string>> ExpandHostlist(std::string_view expr, size_t max_hosts) {
  GANTRY_ASSIGN_OR_RETURN(const Parsed parsed, Parse(expr, max_hosts));
  std::vector<std::string> hosts;
  hosts.reserve(std::min<uint64_t>(parsed.hosts, kDefaultMaxHosts));
  for (const Item& item : parsed.items) {
    ForEachCombination(item, item.brackets.size(),
                       [&](const std::string& name) { hosts.push_back(name); });
  }
  return hosts;
}

std::string CompressHostlist(const std::vector<std::string>& hosts) {
  return Render(RangesOfNames(hosts));
}

std::string CompressHostlistSorted(const std::vector<std::string>& hosts) {
  return Render(SortRanges(RangesOfNames(hosts)));
}

std::vector<std::string> SortHostlist(const std::vector<std::string>& hosts) {
  const RangeList sorted = SortRanges(RangesOfNames(hosts));
  std::vector<std::string> names;
  names.reserve(hosts.size());
  for (const HostRange& range : sorted) {
    if (range.single) {
      names.push_back(range.prefix);
      continue;
    }
    for (uint64_t x = range.lo;; ++x) {
      std::string name = range.prefix;
      AppendPadded(name, x, range.width);
      names.push_back(std::move(name));
      if (x == range.hi) break;
    }
  }
  return names;
}

Result<std::string> RecompressHostlist(std::string_view expr, size_t max_hosts) {
  GANTRY_ASSIGN_OR_RETURN(const Parsed parsed, Parse(expr, max_hosts));
  return Render(BuildRanges(parsed));
}

Result<std::string> RecompressHostlistSorted(std::string_view expr, size_t max_hosts) {
  GANTRY_ASSIGN_OR_RETURN(const Parsed parsed, Parse(expr, max_hosts));
  return Render(SortRanges(BuildRanges(parsed)));
}

}  // namespace gantry::text
