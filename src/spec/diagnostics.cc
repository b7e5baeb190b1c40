#include "spec/diagnostics.h"

#include "text/ascii.h"

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

std::string Quote(std::string_view value) { return text::Quote(value, 80); }

std::string JoinWords(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

}  // namespace gantry::spec
