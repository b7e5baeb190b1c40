// How the daemons stop: SIGTERM and SIGINT are blocked in every thread (call this before any
// thread starts, so that they inherit the mask) and taken by the main thread with
// WaitForStopSignal; SIGPIPE is ignored (a peer that goes away is an error on the socket).
#ifndef GANTRY_SYS_STOP_SIGNALS_H_
#define GANTRY_SYS_STOP_SIGNALS_H_

#include <csignal>

namespace gantry::sys {

// Blocks SIGTERM and SIGINT in this thread (and the threads it starts later); ignores SIGPIPE.
sigset_t BlockStopSignals();

// Waits for one of `signals` (BlockStopSignals' set); returns its number.
int WaitForStopSignal(const sigset_t& signals);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_STOP_SIGNALS_H_
