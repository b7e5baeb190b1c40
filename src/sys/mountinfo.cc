#include "sys/mountinfo.h"

#include <algorithm>
#include <utility>

#include "sys/files.h"
#include "text/ascii.h"

namespace gantry::sys {
namespace {

// "\040" and the kernel's other octal escapes, decoded.
std::string Unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

}  // namespace

std::vector<Mount> ParseMountInfo(std::string_view text) {
  std::vector<Mount> out;
  for (std::string_view line : text::Split(text, '\n')) {
    std::vector<std::string_view> fields;
    for (std::string_view f : text::Split(line, ' ')) {
      if (!f.empty()) fields.push_back(f);
    }
    const auto dash = std::find(fields.begin(), fields.end(), "-");
    if (dash - fields.begin() < 5 || fields.end() - dash < 4) continue;
    out.push_back(Mount{Unescape(fields[4]), std::string(dash[1]), std::string(dash[2]),
                        std::string(dash[3])});
  }
  return out;
}

std::optional<Mount> MountOf(const std::vector<Mount>& mounts, const std::string& path) {
  std::optional<Mount> best;
  for (const Mount& m : mounts) {
    const bool holds = m.mount_point == "/" || path == m.mount_point ||
                       (path.starts_with(m.mount_point) && path[m.mount_point.size()] == '/');
    if (holds && (!best || m.mount_point.size() >= best->mount_point.size())) best = m;
  }
  return best;
}

std::string ReadMountInfo(const std::string& path) {
  Result<std::string> text = ReadText(path);
  return text.ok() ? *std::move(text) : std::string();
}

}  // namespace gantry::sys
