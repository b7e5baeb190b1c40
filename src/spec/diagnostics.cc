#include "spec/diagnostics.h"

#include <cstdio>

namespace gantry::spec {

std::string Diagnostic::ToString() const {
  if (path.empty()) return message;
  return path + ": " + message;
}

Status Diagnostics::ToStatus() const {
  if (items_.empty()) return Status::Ok();
  std::string text;
  for (const Diagnostic& d : items_) {
    if (!text.empty()) text += '\n';
    text += d.ToString();
  }
  return InvalidArgument(std::move(text));
}

std::string Quote(std::string_view value) {
  constexpr size_t kMaxShown = 80;
  std::string out = "\"";
  size_t shown = 0;
  for (char c : value) {
    if (shown == kMaxShown) {
      out += "...";
      break;
    }
    ++shown;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

}  // namespace gantry::spec
