#include "slurm_view/format_spec.h"

#include "text/ascii.h"

namespace gantry::slurm {

FormatSpec ParseFormatSpec(std::string_view format) {
  FormatSpec spec;
  const size_t first = format.find('%');
  if (first == std::string_view::npos) {
    spec.prefix = std::string(format);
    return spec;
  }
  spec.prefix = std::string(format.substr(0, first));
  for (std::string_view piece : text::Split(format.substr(first + 1), '%')) {
    if (piece.empty()) continue;  // strtok_r skips empty tokens
    FieldSpec field;
    size_t i = 0;
    if (piece[i] == '.') {
      field.right = true;
      ++i;
    }
    if (i < piece.size() && piece[i] == '#') {
      field.auto_width = true;
      ++i;
    }
    while (i < piece.size() && text::IsAsciiDigit(piece[i])) {
      if (field.width < 100000) field.width = field.width * 10 + (piece[i] - '0');
      ++i;
    }
    if (i < piece.size()) field.letter = piece[i++];
    field.suffix = std::string(piece.substr(i));
    spec.fields.push_back(std::move(field));
  }
  return spec;
}

std::string PadField(std::string_view value, int width, bool right, bool cut) {
  if (width <= 0) return std::string(value);
  const size_t w = static_cast<size_t>(width);
  std::string out;
  if (right) {
    if (value.size() >= w) {
      out = cut ? std::string(value.substr(0, w)) : std::string(value);
    } else {
      out = std::string(w - value.size(), ' ') + std::string(value);
    }
    return out;
  }
  out = std::string(value.substr(0, w));
  if (out.size() < w) out.append(w - out.size(), ' ');
  return out;
}

std::string AllFieldsFormat() {
  std::string out = "%a";
  for (char c = 'b'; c <= 'z'; ++c) out += std::string("|%") + c;
  for (char c = 'A'; c <= 'Z'; ++c) out += std::string("|%") + c;
  return out;
}

std::vector<LongFieldSpec> ParseLongFormatSpec(std::string_view format) {
  std::vector<LongFieldSpec> out;
  for (std::string_view token : text::Split(format, ',')) {
    if (token.empty()) continue;
    LongFieldSpec field;
    const size_t colon = token.find(':');
    field.name = std::string(token.substr(0, colon));
    if (colon != std::string_view::npos) {
      std::string_view rest = token.substr(colon + 1);
      if (!rest.empty() && rest[0] == '.') {
        field.right = true;
        rest.remove_prefix(1);
      }
      size_t i = 0;
      int width = 0;
      while (i < rest.size() && text::IsAsciiDigit(rest[i])) {
        if (width < 100000) width = width * 10 + (rest[i] - '0');
        ++i;
      }
      field.width = width;
      field.suffix = std::string(rest.substr(i));
    }
    out.push_back(std::move(field));
  }
  return out;
}

}  // namespace gantry::slurm
