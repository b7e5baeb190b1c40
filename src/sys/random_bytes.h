// Randomness for secrets and nonces, from the kernel only.
// Thread-safe.
#ifndef GANTRY_SYS_RANDOM_BYTES_H_
#define GANTRY_SYS_RANDOM_BYTES_H_

#include <cstddef>
#include <string>

#include "base/status.h"

namespace gantry::sys {

// `n` random bytes from the kernel (getrandom); Unavailable naming the error. Never a guessable
// stand-in.
Result<std::string> RandomBytes(size_t n);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_RANDOM_BYTES_H_
