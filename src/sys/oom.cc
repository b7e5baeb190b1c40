#include "sys/oom.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gantry::sys {

std::string ShieldFromOomKiller() {
  const int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::string("/proc/self/oom_score_adj: ") + std::strerror(errno);
  const bool ok = write(fd, "-1000", 5) == 5;
  const int err = errno;
  close(fd);
  if (!ok) return std::string("oom_score_adj -1000: ") + std::strerror(err);
  return "";
}

}  // namespace gantry::sys
