// When and where a job would start if it were submitted now (sbatch --test-only), with the
// scheduler's node rules (scheduler.h) and the running jobs' expected ends:
//  * its partitions are tried in the order requested (else the job's partition); one that is
//    DOWN or INACTIVE, or whose MaxTime or MaxNodes the job exceeds, is skipped;
//  * a node of the partition may hold the job when it is usable (NodeIsUsable), can hold one
//    node's share of the request (state/resources.h), is not excluded (-x) and, with -w, is
//    named; it is free from now when idle without jobs, else from the latest expected end of
//    its jobs (never when one of them has no end time);
//  * the job takes its -w nodes and then the earliest free ones (partition order on ties),
//    min_nodes in all, and starts when the last of them is free; the earliest partition wins.
// Other pending jobs are not considered (as Slurm's will-run test). CPUs are the chosen nodes'
// (whole-node allocation).
// Pure; thread-safe.
#ifndef GANTRY_SCHED_WILL_RUN_H_
#define GANTRY_SCHED_WILL_RUN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gantry/v1/job.pb.h"
#include "state/cluster_state.h"

namespace gantry::sched {

struct WillRun {
  int64_t start_time = 0;
  std::string partition;
  std::vector<std::string> nodes;  // configuration order
  uint32_t num_cpus = 0;
};

// nullopt when no partition could ever run the job.
std::optional<WillRun> WhenWouldItRun(const state::ClusterState& state, const v1::Job& job,
                                      int64_t now);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_WILL_RUN_H_
