#include "text/tres.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "text/ascii.h"
#include "text/suggest.h"

namespace gantry::text {
namespace {

__extension__ typedef unsigned __int128 Uint128;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Every TRES type Slurm knows (tres.html), sorted.
constexpr std::array<std::string_view, 12> kTresTypes = {"bb",  "billing", "cpu",   "energy",
                                                         "fs",  "gres",    "ic",    "license",
                                                         "mem", "node",    "pages", "vmem"};

// Slurm's unit letters; the index is the power of 1024 above "no unit" (UNIT_NONE).
constexpr std::string_view kUnitLetters = "KMGTP";

// The power of 1024 a unit letter stands for (K=1 ... P=5), or -1.
int UnitPower(char c) {
  const size_t pos = kUnitLetters.find(AsciiUpper(c));
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos) + 1;
}

// Slurm's base unit of a type as a power of 1024: mem and bb count MiB (UNIT_MEGA), the rest
// plain units (UNIT_NONE).
int BasePower(std::string_view type) { return TresTypeIsMemory(type) ? 2 : 0; }

std::string KnownTypes() {
  std::string out;
  for (std::string_view type : kTresTypes) {
    if (!out.empty()) out += ", ";
    out += type;
  }
  return out;
}

// Static TRES ids (cpu=1 ... pages=8); 0 for the dynamic ones (gres, license, bb, ...).
int StaticTresId(const TresKey& key) {
  if (key.name.empty()) {
    static constexpr std::array<std::pair<std::string_view, int>, 7> kIds = {{
        {"cpu", 1},
        {"mem", 2},
        {"energy", 3},
        {"node", 4},
        {"billing", 5},
        {"vmem", 7},
        {"pages", 8},
    }};
    for (const auto& [type, id] : kIds) {
      if (key.type == type) return id;
    }
    return 0;
  }
  return (key.type == "fs" && EqualsIgnoreCase(key.name, "disk")) ? 6 : 0;
}

bool SameKey(const TresKey& a, const TresKey& b) {
  return a.type == b.type && EqualsIgnoreCase(a.name, b.name);
}

// Splits on commas; an empty text has no entries.
std::vector<std::string_view> SplitEntries(std::string_view text) {
  std::vector<std::string_view> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// Reads leading decimal digits into *value; false on overflow of uint64.
bool ReadDigits(std::string_view text, size_t* pos, uint64_t* value, size_t* digits) {
  *value = 0;
  *digits = 0;
  while (*pos < text.size() && IsAsciiDigit(text[*pos])) {
    const uint64_t d = static_cast<uint64_t>(text[*pos] - '0');
    if (*value > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    *value = *value * 10 + d;
    ++*pos;
    ++*digits;
  }
  return true;
}

// "count \"x\" for mem is not ..." style detail for a count value.
Result<int64_t> ParseCountValue(const TresKey& key, std::string_view value) {
  const std::string what = "count \"" + std::string(value) + "\" for " + key.ToString();
  const bool memory = TresTypeIsMemory(key.type);
  const std::string expected =
      memory ? " (expected a size like 2000, 2000M, 125G or 62.50G)"
             : " (expected a whole number with an optional K, M, G, T or P suffix)";
  if (value.empty()) return InvalidArgument("missing count for " + key.ToString() + expected);
  if (value[0] == '-') return InvalidArgument(what + " is negative" + expected);

  size_t pos = 0;
  uint64_t whole = 0;
  size_t whole_digits = 0;
  if (!ReadDigits(value, &pos, &whole, &whole_digits)) {
    return InvalidArgument(what + " is too large");
  }
  uint64_t fraction = 0;
  size_t fraction_digits = 0;
  bool has_point = false;
  if (memory && pos < value.size() && value[pos] == '.') {
    has_point = true;
    ++pos;
    if (!ReadDigits(value, &pos, &fraction, &fraction_digits) || fraction_digits > 9) {
      return InvalidArgument(what + " has more than 9 decimals");
    }
  }
  if (whole_digits == 0 && fraction_digits == 0) {
    return InvalidArgument(what + " is not a number" + expected);
  }
  if (has_point && fraction_digits == 0) {
    return InvalidArgument(what + " has no digits after '.'" + expected);
  }
  if (!memory && pos < value.size() && value[pos] == '.') {
    return InvalidArgument(what + " is not a whole number" + expected);
  }
  int power = BasePower(key.type);
  if (pos < value.size()) {
    power = UnitPower(value[pos]);
    if (power < 0 || pos + 1 != value.size()) {
      return InvalidArgument(what + " has an unknown unit \"" + std::string(value.substr(pos)) +
                             "\"" + expected);
    }
  }

  if (!memory) {
    uint64_t count = whole;
    for (int i = 0; i < power; ++i) {
      if (count > static_cast<uint64_t>(kInt64Max) / 1024) {
        return InvalidArgument(what + " is too large");
      }
      count *= 1024;
    }
    if (count > static_cast<uint64_t>(kInt64Max)) return InvalidArgument(what + " is too large");
    return static_cast<int64_t>(count);
  }

  // Memory: value * 1024^(power-1) KiB, rounded up to whole MiB.
  Uint128 kib_per_unit = 1;
  for (int i = 1; i < power; ++i) kib_per_unit *= 1024;
  Uint128 scale = 1;
  for (size_t i = 0; i < fraction_digits; ++i) scale *= 10;
  const Uint128 max_kib = static_cast<Uint128>(kInt64Max) * 1024;
  if (static_cast<Uint128>(whole) * kib_per_unit > max_kib) {
    return InvalidArgument(what + " is too large");
  }
  const Uint128 scaled_kib = (static_cast<Uint128>(whole) * scale + fraction) * kib_per_unit;
  const Uint128 divisor = scale * 1024;
  const Uint128 mib = (scaled_kib + divisor - 1) / divisor;
  if (mib > static_cast<Uint128>(kInt64Max)) return InvalidArgument(what + " is too large");
  return static_cast<int64_t>(mib);
}

// A decimal weight, optionally signed, with an optional exponent; the unit letter is handled by
// the caller. Refuses what std::from_chars would also take (inf, nan, hex).
bool IsDecimalNumber(std::string_view text) {
  size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  size_t digits = 0;
  while (pos < text.size() && IsAsciiDigit(text[pos])) ++pos, ++digits;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && IsAsciiDigit(text[pos])) ++pos, ++digits;
  }
  if (digits == 0) return false;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
    size_t exponent_digits = 0;
    while (pos < text.size() && IsAsciiDigit(text[pos])) ++pos, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return pos == text.size();
}

Result<double> ParseWeightValue(const TresKey& key, std::string_view value) {
  const std::string what = "weight \"" + std::string(value) + "\" for " + key.ToString();
  const std::string expected = " (expected a decimal number with an optional K, M, G, T or P unit)";
  if (value.empty()) return InvalidArgument("missing weight for " + key.ToString() + expected);
  std::string_view number = value;
  int power = BasePower(key.type);
  const int unit = UnitPower(value.back());
  if (unit > 0) {
    number = value.substr(0, value.size() - 1);
    power = unit;
  }
  if (!IsDecimalNumber(number)) return InvalidArgument(what + " is not a number" + expected);
  if (number[0] == '+') number.remove_prefix(1);
  double weight = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), weight);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(weight)) {
    return InvalidArgument(what + " is out of range");
  }
  // The weight is per `power` unit; bring it to per base unit.
  for (int p = BasePower(key.type); p < power; ++p) weight /= 1024;
  for (int p = power; p < BasePower(key.type); ++p) weight *= 1024;
  return weight;
}

// Shared entry loop of both list parsers: `parse_value` turns the value into the item's number.
template <typename Item, typename ParseValue>
Result<std::vector<Item>> ParseList(std::string_view text, std::string_view what,
                                    std::string_view value_word, ParseValue parse_value) {
  const std::string prefix = "invalid " + std::string(what) + " " + Quote(text) + ": ";
  std::vector<Item> items;
  const std::vector<std::string_view> entries = SplitEntries(text);
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string_view entry = entries[i];
    if (entry.empty()) {
      return InvalidArgument(prefix + "entry " + std::to_string(i + 1) +
                             " is empty (entries are separated by single commas)");
    }
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument(prefix + "entry " + Quote(entry) +
                             " has no '=' (expected type=" + std::string(value_word) +
                             " or type/name=" + std::string(value_word) + ")");
    }
    Result<TresKey> key = ParseTresKey(entry.substr(0, eq));
    if (!key.ok()) {
      return InvalidArgument(prefix + key.status().message() + " in entry " + Quote(entry));
    }
    for (const Item& seen : items) {
      if (SameKey(seen.key, *key)) {
        return InvalidArgument(prefix + key->ToString() + " is given twice (entry " + Quote(entry) +
                               ")");
      }
    }
    auto value = parse_value(*key, entry.substr(eq + 1));
    if (!value.ok()) return InvalidArgument(prefix + value.status().message());
    Item item;
    item.key = std::move(key).value();
    if constexpr (std::is_same_v<Item, TresCount>) {
      item.count = *value;
    } else {
      item.weight = *value;
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace

std::string TresKey::ToString() const { return name.empty() ? type : type + "/" + name; }

bool TresTypeTakesName(std::string_view type) {
  return type == "bb" || type == "fs" || type == "gres" || type == "ic" || type == "license";
}

bool TresTypeIsMemory(std::string_view type) { return type == "mem" || type == "bb"; }

Result<TresKey> ParseTresKey(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string_view type_text = text.substr(0, slash);
  TresKey key;
  key.type = AsciiToLower(type_text);
  if (type_text.empty()) return InvalidArgument("missing TRES type before " + Quote(text));
  if (std::find(kTresTypes.begin(), kTresTypes.end(), key.type) == kTresTypes.end()) {
    std::vector<std::string> candidates(kTresTypes.begin(), kTresTypes.end());
    return InvalidArgument("unknown TRES type " + Quote(type_text) +
                           DidYouMean(Suggest(key.type, candidates, 2)) +
                           " (known types: " + KnownTypes() + ")");
  }
  if (!TresTypeTakesName(key.type)) {
    if (slash != std::string_view::npos) {
      return InvalidArgument("TRES type " + key.type + " takes no name, but " + Quote(text) +
                             " has one");
    }
    return key;
  }
  if (slash == std::string_view::npos || slash + 1 == text.size()) {
    return InvalidArgument("TRES type " + key.type + " needs a name, as in " + key.type +
                           (key.type == "gres" ? "/gpu" : "/name") + " (got " + Quote(text) + ")");
  }
  const std::string_view name = text.substr(slash + 1);
  for (char c : name) {
    if (c <= ' ' || c > '~' || c == ',' || c == '=' || c == '/') {
      return InvalidArgument("TRES name " + Quote(name) +
                             " may not contain spaces, control characters, ',', '=' or '/'");
    }
  }
  key.name = std::string(name);
  return key;
}

Result<std::vector<TresCount>> ParseTresCounts(std::string_view text) {
  return ParseList<TresCount>(text, "TRES", "count", ParseCountValue);
}

Result<std::vector<TresWeight>> ParseTresWeights(std::string_view text) {
  return ParseList<TresWeight>(text, "TRES weights", "weight", ParseWeightValue);
}

bool TresKeyLess(const TresKey& a, const TresKey& b) {
  const int id_a = StaticTresId(a);
  const int id_b = StaticTresId(b);
  if (id_a != 0 || id_b != 0) {
    if (id_a == 0) return false;  // dynamic TRES sort after the static ones
    if (id_b == 0) return true;
    return id_a < id_b;
  }
  if (a.type != b.type) return a.type < b.type;
  return a.name < b.name;
}

std::string FormatTres(std::vector<TresCount> counts, TresZeros zeros) {
  std::stable_sort(counts.begin(), counts.end(), [](const TresCount& a, const TresCount& b) {
    return TresKeyLess(a.key, b.key);
  });
  std::string out;
  for (const TresCount& tres : counts) {
    if (zeros == TresZeros::kOmit && tres.count == 0) continue;
    if (!out.empty()) out += ',';
    out += tres.key.ToString();
    out += '=';
    out += TresTypeIsMemory(tres.key.type) ? FormatTresMemoryMiB(tres.count)
                                           : std::to_string(tres.count);
  }
  return out;
}

std::string FormatTresMemoryMiB(int64_t mib) {
  if (mib < 0) return std::to_string(mib) + "M";  // not a TRES value; printed plainly
  // convert_num_unit2(num, ..., UNIT_MEGA, NO_VAL, 1024, CONVERT_NUM_UNIT_EXACT), step by step,
  // in double arithmetic as Slurm does.
  static constexpr char kUnits[] = "\0KMGTP?";
  if (mib == 0) return "0";  // Slurm: (int64_t)num == 0
  double num = static_cast<double>(mib);
  int unit = 2;  // UNIT_MEGA
  while (num >= 1024 && static_cast<uint64_t>(num) % 512 == 0) {
    num /= 1024;
    ++unit;
  }
  if (unit > 5) unit = 6;  // UNIT_UNKNOWN prints '?'
  const uint64_t whole = static_cast<uint64_t>(num);
  char buf[64];
  if (static_cast<double>(whole) == num) {
    std::snprintf(buf, sizeof(buf), "%llu%c", static_cast<unsigned long long>(whole),
                  kUnits[static_cast<size_t>(unit)]);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f%c", num, kUnits[static_cast<size_t>(unit)]);
  }
  return buf;
}

}  // namespace gantry::text
