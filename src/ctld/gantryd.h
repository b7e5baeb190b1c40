// gantryd: composes the controller from a state dir (see docs/design/running-cluster.md):
// DIR/spec.json, DIR/cluster.key, DIR/state.db; serves DIR/run/gantryd.sock,
// DIR/run/commands.sock and TCP, writes DIR/run/gantryd.addr once serving, runs until
// SIGTERM/SIGINT. Files it creates are its owner's alone (umask 077).
#ifndef GANTRY_CTLD_GANTRYD_H_
#define GANTRY_CTLD_GANTRYD_H_

#include <string>
#include <vector>

namespace gantry::ctld {

// argv without the program name. Returns the process exit code: 0 after a clean stop, 1 when
// the cluster cannot be served (bad spec, store locked...), 2 for bad flags.
int RunGantryd(const std::vector<std::string>& args);

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_GANTRYD_H_
