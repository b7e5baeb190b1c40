#include "text/gres.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/ascii.h"

namespace gantry::text {
namespace {

constexpr std::string_view kNoConsume = "no_consume";

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Names and types: a letter or '_' first, then letters, digits, '_', '-', '.'.
Status CheckIdentifier(std::string_view what, std::string_view text) {
  if (!IsLetter(text[0]) && text[0] != '_') {
    return InvalidArgument(std::string(what) + " " + Quote(text) +
                           " must start with a letter or '_'");
  }
  for (char c : text) {
    if (!IsLetter(c) && !IsAsciiDigit(c) && c != '_' && c != '-' && c != '.') {
      return InvalidArgument(std::string(what) + " " + Quote(text) +
                             " may only contain letters, digits, '_', '-' and '.'");
    }
  }
  return Status::Ok();
}

// "<digits>[kmgtp]" scaled by powers of 1024.
Result<int64_t> ParseCount(std::string_view text) {
  const std::string what = "count " + Quote(text);
  const std::string expected = " (expected a whole number with an optional k, m, g, t or p suffix)";
  if (text[0] == '-') return InvalidArgument(what + " is negative" + expected);
  size_t pos = 0;
  uint64_t value = 0;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  while (pos < text.size() && IsAsciiDigit(text[pos])) {
    const uint64_t digit = static_cast<uint64_t>(text[pos] - '0');
    if (value > (kMax - digit) / 10) return InvalidArgument(what + " is too large");
    value = value * 10 + digit;
    ++pos;
  }
  if (pos == 0) return InvalidArgument(what + " is not a number" + expected);
  if (pos < text.size()) {
    static constexpr std::string_view kSuffixes = "kmgtp";
    const size_t power = kSuffixes.find(AsciiLower(text[pos]));
    if (power == std::string_view::npos || pos + 1 != text.size()) {
      return InvalidArgument(what + " has unexpected text " + Quote(text.substr(pos)) + expected);
    }
    for (size_t i = 0; i <= power; ++i) {
      if (value > kMax / 1024) return InvalidArgument(what + " is too large");
      value *= 1024;
    }
  }
  return static_cast<int64_t>(value);
}

// Parses one entry (prefix already removed); `*drop` is set for a job entry with count zero.
Result<GresSpec> ParseEntry(std::string_view entry, GresSyntax syntax, bool* drop) {
  *drop = false;
  const std::vector<std::string_view> fields = Split(entry, ':');
  GresSpec spec;
  if (fields[0].empty()) return InvalidArgument("missing GRES name before ':'");
  GANTRY_RETURN_IF_ERROR(CheckIdentifier("GRES name", fields[0]));
  if (fields[0] == "gres") {
    return InvalidArgument(
        "GRES name \"gres\" is reserved (it is the prefix of gres:name and "
        "gres/name)");
  }
  spec.name = std::string(fields[0]);

  bool have_type = false;
  bool have_count = false;
  const std::string shape = syntax == GresSyntax::kJobRequest
                                ? " (expected name[[:type]:count])"
                                : " (expected name[:type][:no_consume][:count])";
  for (size_t i = 1; i < fields.size(); ++i) {
    const std::string_view field = fields[i];
    const bool last = i + 1 == fields.size();
    if (have_count) return InvalidArgument("text after the count" + shape);
    if (field.empty()) {
      if (last) return InvalidArgument("missing count after ':'" + shape);
      return InvalidArgument(i == 1 ? "empty type between ':'" + shape
                                    : "empty field between ':'" + shape);
    }
    if (IsAsciiDigit(field[0]) || field[0] == '-' || field[0] == '+') {
      GANTRY_ASSIGN_OR_RETURN(spec.count, ParseCount(field));
      have_count = true;
      continue;
    }
    if (syntax == GresSyntax::kNodeConfig && EqualsIgnoreCase(field, kNoConsume)) {
      if (spec.no_consume) return InvalidArgument("no_consume is given twice" + shape);
      spec.no_consume = true;
      continue;
    }
    if (have_type || spec.no_consume) {
      return InvalidArgument("unexpected field " + Quote(field) + shape);
    }
    GANTRY_RETURN_IF_ERROR(CheckIdentifier("GRES type", field));
    spec.type = std::string(field);
    have_type = true;
  }
  if (syntax == GresSyntax::kJobRequest && have_count && spec.count == 0) *drop = true;
  return spec;
}

std::string FormatEntry(const GresSpec& gres) {
  std::string out = gres.name;
  if (!gres.type.empty()) out += ":" + gres.type;
  if (gres.no_consume) out += ":no_consume";
  out += ":" + std::to_string(gres.count);
  return out;
}

}  // namespace

Result<std::vector<GresSpec>> ParseGres(std::string_view text, GresSyntax syntax) {
  std::vector<GresSpec> out;
  if (text.empty()) return out;
  if (syntax == GresSyntax::kJobRequest && EqualsIgnoreCase(text, "none")) return out;
  const std::string prefix = "invalid GRES " + Quote(text) + ": ";
  const std::vector<std::string_view> entries = Split(text, ',');
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string_view entry = entries[i];
    if (entry.empty()) {
      return InvalidArgument(prefix + "entry " + std::to_string(i + 1) +
                             " is empty (entries are separated by single commas)");
    }
    // "gres:gpu:2" (TresPerNode=) and "gres/gpu:2" (TRES spelling) name the same GRES.
    for (std::string_view tres_prefix : {std::string_view("gres:"), std::string_view("gres/")}) {
      if (entry.size() > tres_prefix.size() && entry.substr(0, tres_prefix.size()) == tres_prefix &&
          !IsAsciiDigit(entry[tres_prefix.size()])) {
        entry.remove_prefix(tres_prefix.size());
        break;
      }
    }
    bool drop = false;
    Result<GresSpec> spec = ParseEntry(entry, syntax, &drop);
    if (!spec.ok()) {
      return InvalidArgument(prefix + spec.status().message() + " in entry " + Quote(entries[i]));
    }
    if (drop) continue;
    for (const GresSpec& seen : out) {
      if (seen.name != spec->name) continue;
      if (seen.type == spec->type) {
        return InvalidArgument(prefix + GresTresName(*spec) + " is given twice (entry " +
                               Quote(entries[i]) + ")");
      }
      if (seen.type.empty() || spec->type.empty()) {
        return InvalidArgument(prefix + "GRES " + spec->name +
                               " is given both with and without a type (" + GresTresName(seen) +
                               " and " + GresTresName(*spec) + ")");
      }
    }
    out.push_back(std::move(spec).value());
  }
  return out;
}

std::string FormatGres(const std::vector<GresSpec>& gres) {
  std::string out;
  for (const GresSpec& spec : gres) {
    if (!out.empty()) out += ',';
    out += FormatEntry(spec);
  }
  return out;
}

std::string FormatGresTresPerNode(const std::vector<GresSpec>& gres) {
  std::string out;
  for (const GresSpec& spec : gres) {
    if (!out.empty()) out += ',';
    out += "gres:" + FormatEntry(spec);
  }
  return out;
}

std::string GresTresName(const GresSpec& gres) {
  return gres.type.empty() ? gres.name : gres.name + ":" + gres.type;
}

}  // namespace gantry::text
