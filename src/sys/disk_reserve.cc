#include "sys/disk_reserve.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace gantry::sys {

std::string KeepDiskReserve(const std::string& dir, uint64_t min_free) {
  const std::string path = dir + "/reserve";
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) != 0) return "";
  const uint64_t free = uint64_t{fs.f_bavail} * fs.f_frsize;
  const bool have = access(path.c_str(), F_OK) == 0;
  if (free < min_free + kDiskReserveBytes) {
    if (!have || unlink(path.c_str()) != 0) return "";
    return "the state dir's disk has " + std::to_string(free >> 20) + " MiB free: its " +
           std::to_string(kDiskReserveBytes >> 20) +
           " MiB reserve is freed so that the controller can start";
  }
  if (have) return "";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return "";
  const bool made =
      posix_fallocate(fd, 0, static_cast<off_t>(kDiskReserveBytes)) == 0 && fsync(fd) == 0;
  close(fd);
  if (!made) unlink(path.c_str());
  return "";
}

}  // namespace gantry::sys
