// A job's partition limits, checked the same way by the scheduler's pass and by will-run
// (sbatch --test-only, the expected start): the partition's state, its node-count limits and
// its time limit (the job's, else the partition's DefaultTime, else its MaxTime).
// Pure; thread-safe.
#ifndef GANTRY_SCHED_PARTITION_CHECK_H_
#define GANTRY_SCHED_PARTITION_CHECK_H_

#include <cstdint>
#include <string_view>

#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"

namespace gantry::sched {

// A partition's limits, read once (UNLIMITED where the partition says 0).
struct PartitionLimits {
  std::string_view name;
  bool down = false;
  bool inactive = false;
  uint32_t max_nodes = 0xFFFFFFFFu;
  uint32_t min_nodes = 0;
  uint32_t max_time = 0xFFFFFFFFu;      // minutes
  uint32_t default_time = 0xFFFFFFFFu;  // DefaultTime, else MaxTime

  static PartitionLimits Of(const v1::Partition& partition);
};

// The job's time limit there: its own, else the partition's default.
uint32_t TimeLimitIn(const PartitionLimits& limits, const v1::Job& job);

// Why the job may not run in the partition, as Slurm's reason (PartitionDown,
// PartitionInactive, PartitionNodeLimit, PartitionTimeLimit); empty when it may.
std::string_view PartitionRefusal(const PartitionLimits& limits, const v1::Job& job);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_PARTITION_CHECK_H_
