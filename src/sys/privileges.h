// Running a daemon as a dedicated user (slurm.conf SlurmUser) rather than root.
// Thread-safety: call before any thread starts (the ids of a process change for its threads
// only as glibc sees fit).
#ifndef GANTRY_SYS_PRIVILEGES_H_
#define GANTRY_SYS_PRIVILEGES_H_

#include <string>
#include <vector>

#include "base/status.h"

namespace gantry::sys {

// Gives `own` (paths; missing ones are skipped, folders not recursed) to `user`, then makes
// this process `user`: its groups, gid and uid, for good (a root process only). Errors name the
// user, the path or the step and the reason: InvalidArgument for an unknown user, Unavailable
// for a failed change.
Status BecomeUser(const std::string& user, const std::vector<std::string>& own);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_PRIVILEGES_H_
