// Waiting for a child process with a time limit, and reaping it: for the agent's scripts and
// keepers and the node health checks' programs.
#ifndef GANTRY_SYS_CHILD_PROCESS_H_
#define GANTRY_SYS_CHILD_PROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>

namespace gantry::sys {

// Waits until child `pid` has ended or `timeout` passes; true when it ended. The child is not
// reaped, so its pid (and process group id) cannot be reused until ReapChild.
bool WaitChildExit(pid_t pid, std::chrono::milliseconds timeout);
// Reaps a child (waiting for it to end); its raw wait status, or -1 when it is not our child.
// `usage`, when given, gets what the child and the children it waited for used.
int ReapChild(pid_t pid, struct rusage* usage = nullptr);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_CHILD_PROCESS_H_
