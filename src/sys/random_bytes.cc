#include "sys/random_bytes.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

namespace gantry::sys {

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  for (size_t got = 0; got < n;) {
    const ssize_t r = getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return Unavailable(std::string("getrandom: ") + std::strerror(errno));
    got += static_cast<size_t>(r);
  }
  return out;
}

}  // namespace gantry::sys
