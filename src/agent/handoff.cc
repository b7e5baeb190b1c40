#include "agent/handoff.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace gantry::agent {

void PutField(std::string* out, std::string_view name, std::string_view value) {
  *out += name;
  *out += ' ';
  *out += std::to_string(value.size());
  *out += '\n';
  *out += value;
  *out += '\n';
}

Status ForEachField(std::string_view bytes, std::string_view what,
                    const std::function<Status(const std::string& name, std::string value)>& fn) {
  while (!bytes.empty()) {
    const size_t space = bytes.find(' ');
    const size_t newline = bytes.find('\n');
    if (space == std::string_view::npos || newline == std::string_view::npos || newline < space) {
      return InvalidArgument(std::string(what) + R"(: expected "<name> <length>\n" at ")" +
                             std::string(bytes.substr(0, 40)) + "\"");
    }
    const std::string name(bytes.substr(0, space));
    size_t length = 0;
    // The value and its closing newline must be there.
    if (!ParseInt(bytes.substr(space + 1, newline - space - 1), &length) ||
        length >= bytes.size() - newline - 1 || bytes[newline + 1 + length] != '\n') {
      return InvalidArgument(std::string(what) + ": " + name + ": bad length");
    }
    std::string value(bytes.substr(newline + 1, length));
    bytes.remove_prefix(newline + 1 + length + 1);
    GANTRY_RETURN_IF_ERROR(fn(name, std::move(value)));
  }
  return Status::Ok();
}

Status WriteAll(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable(std::string("write: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

bool ReadAll(int fd, size_t limit, std::string* out) {
  char buffer[65536];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    if (out->size() + static_cast<size_t>(n) > limit) return false;
    out->append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace gantry::agent
