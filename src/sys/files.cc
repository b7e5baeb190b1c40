#include "sys/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gantry::sys {

namespace fs = std::filesystem;

Result<std::string> ReadText(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return FailedPrecondition("cannot read " + path + ": is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Status WriteFileAtomically(const std::string& path, std::string_view text, mode_t mode,
                           Durability durability) {
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return Unavailable("cannot write " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      close(fd);
      unlink(tmp.c_str());
      return Unavailable("cannot write " + tmp + ": " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  // The umask may have taken bits away (or left too many for an existing file): set exactly.
  bool ok = fchmod(fd, mode) == 0 && (durability != Durability::kDisk || fsync(fd) == 0);
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    unlink(tmp.c_str());
    return Unavailable("cannot write " + tmp + ": " + std::strerror(e));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    e = errno;
    unlink(tmp.c_str());
    return Unavailable("cannot write " + path + ": " + std::strerror(e));
  }
  return Status::Ok();
}

Status CheckPrivateKeyFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return InvalidArgument("key file " + path + ": " + std::strerror(errno));
  }
  if ((st.st_mode & 077) != 0) {
    return PermissionDenied("key file " + path +
                            " is readable by group or others; it must be mode 0600");
  }
  return Status::Ok();
}

}  // namespace gantry::sys
