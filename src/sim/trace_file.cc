#include "sim/trace_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace gantry::sim {

Result<std::string> ReadTraceText(const std::string& path, size_t limit) {
  // Opened here, not by gzopen, so that a missing file is told from damaged data.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const std::string why = std::strerror(errno);
    if (errno == ENOENT) return NotFound("trace " + path + ": " + why);
    return Unavailable("trace " + path + ": " + why);
  }
  gzFile file = gzdopen(fd, "rb");  // reads plain text as it is
  if (file == nullptr) {
    close(fd);
    return Unavailable("trace " + path + ": cannot read it (out of memory)");
  }
  std::string text;
  char buffer[1 << 16];
  while (true) {
    const int n = gzread(file, buffer, sizeof(buffer));
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(file, &code);
      gzclose(file);
      if (code == Z_ERRNO) return Unavailable("trace " + path + ": " + std::strerror(errno));
      return InvalidArgument("trace " + path + ": damaged gzip data: " + why);
    }
    if (n == 0) {
      // The end, or a stream cut short (Z_BUF_ERROR: "unexpected end of file").
      int code = 0;
      const std::string why = gzerror(file, &code);
      gzclose(file);
      if (code != Z_OK) return InvalidArgument("trace " + path + ": damaged gzip data: " + why);
      return text;
    }
    if (text.size() + static_cast<size_t>(n) > limit) {
      gzclose(file);
      return InvalidArgument("trace " + path + ": longer than " + std::to_string(limit) +
                             " bytes once uncompressed");
    }
    text.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace gantry::sim
