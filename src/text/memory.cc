#include "text/memory.h"

#include <array>
#include <charconv>
#include <limits>

#include "text/ascii.h"

namespace gantry::text {

namespace {

constexpr std::string_view kRule =
    "expected a whole number of MiB with an optional K, M, G or T suffix, e.g. 4096 or 4G";

Status Invalid(std::string_view text, std::string_view rule) {
  return InvalidArgument("invalid memory size " + Quote(text) + ": " + std::string(rule));
}

}  // namespace

Result<int64_t> ParseMemoryMiB(std::string_view text) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (text.empty()) return Invalid(text, "empty (" + std::string(kRule) + ")");

  size_t i = 0;
  while (i < text.size() && IsAsciiSpace(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  const size_t digits_start = i;
  int64_t value = 0;
  bool too_large = false;
  for (; i < text.size() && IsAsciiDigit(text[i]); ++i) {
    const int digit = text[i] - '0';
    if (value > (kMax - digit) / 10) too_large = true;
    if (!too_large) value = value * 10 + digit;
  }
  if (i == digits_start) return Invalid(text, kRule);
  if (negative && (value != 0 || too_large)) return Invalid(text, "must not be negative");
  if (too_large) return Invalid(text, "too large");

  int64_t multiplier = 1;  // MiB per unit; 0 means KiB
  if (i < text.size()) {
    switch (text[i]) {
      case 'k':
      case 'K':
        multiplier = 0;
        break;
      case 'm':
      case 'M':
        multiplier = 1;
        break;
      case 'g':
      case 'G':
        multiplier = 1024;
        break;
      case 't':
      case 'T':
        multiplier = int64_t{1024} * 1024;
        break;
      default:
        return Invalid(text, kRule);
    }
    ++i;
    if (i < text.size() && (text[i] == 'b' || text[i] == 'B')) ++i;
    if (i != text.size()) return Invalid(text, kRule);
  }

  if (multiplier == 0) return value / 1024 + (value % 1024 != 0 ? 1 : 0);  // KiB, rounded up
  if (value > kMax / multiplier) return Invalid(text, "too large");
  return value * multiplier;
}

std::string FormatMemoryMiB(int64_t mib) {
  if (mib == 0) return "0";
  if (mib < 0) return std::to_string(mib) + "M";
  // Slurm works on a double; do the same so rounding matches for huge values.
  static constexpr std::string_view kUnits = "MGTP";
  double num = static_cast<double>(mib);
  size_t unit = 0;
  while (num >= 1024 && static_cast<uint64_t>(num) % 512 == 0) {
    num /= 1024;
    ++unit;
  }
  const char suffix = unit < kUnits.size() ? kUnits[unit] : '?';
  const auto whole = static_cast<uint64_t>(num);
  std::array<char, 64> buf{};
  std::to_chars_result r;
  if (static_cast<double>(whole) == num) {
    r = std::to_chars(buf.data(), buf.data() + buf.size(), whole);
  } else {
    r = std::to_chars(buf.data(), buf.data() + buf.size(), num, std::chars_format::fixed, 2);
  }
  return std::string(buf.data(), r.ptr) + suffix;
}

}  // namespace gantry::text
