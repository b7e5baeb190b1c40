// The daemons' shield from the kernel's OOM killer: a job that exhausts a node's memory must be
// what the kernel kills, not gantryd or gantry-agent (whose death would end every job).
// Thread-safe.
#ifndef GANTRY_SYS_OOM_H_
#define GANTRY_SYS_OOM_H_

#include <string>

namespace gantry::sys {

// Sets this process's oom_score_adj to -1000 (never chosen). Returns "" on success, else why
// not (not root: only root may lower it), for the caller's log.
std::string ShieldFromOomKiller();

}  // namespace gantry::sys

#endif  // GANTRY_SYS_OOM_H_
