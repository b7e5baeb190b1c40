#include "text/ascii.h"

namespace gantry::text {

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

std::string AsciiToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

std::string AsciiToUpper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return prefix.size() <= text.size() && EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

std::string Quote(std::string_view text, size_t max_shown) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool shortened = text.size() > max_shown;
  if (shortened) text = text.substr(0, max_shown);
  std::string out;
  out.reserve(text.size() + 5);
  out += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  if (shortened) out += "...";
  out += '"';
  return out;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t pos = text.find(separator, start);
    out.push_back(text.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::vector<std::string> SplitList(std::string_view text, char separator) {
  std::vector<std::string> out;
  for (std::string_view piece : Split(text, separator)) {
    const size_t first = piece.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    const size_t last = piece.find_last_not_of(" \t");
    out.emplace_back(piece.substr(first, last - first + 1));
  }
  return out;
}

}  // namespace gantry::text
