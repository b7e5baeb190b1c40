// squeue -s/--steps[=J.S,...]: the job steps running now, as Slurm 22.05 lists them. Each running
// (or suspended) job selected by the other options contributes its batch step (J.batch, named
// "batch", on the batch host) and the srun steps that have not ended (J.S, with their nodes),
// ordered by job id and then step id (the batch step after the numbered ones). --steps=LIST keeps
// only those steps ("12.0", "12.batch").
//
// Columns: the default "%.15i %.8j %.9P %.8u %.9M %N" (STEPID NAME PARTITION USER TIME
// NODELIST); -o takes %i %j %P %u %M %N, %A (TASKS) and %b (TRES_PER_JOB: "(null)"), each with
// [.]width as squeue's job formats; -l puts the date line before the same columns; -h leaves out
// the header. TIME is the step's run time (the job's for the batch step).
// Pure formatting; thread-safe.
#ifndef GANTRY_SLURM_SQUEUE_STEPS_H_
#define GANTRY_SLURM_SQUEUE_STEPS_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/job.pb.h"

namespace gantry::slurm {

inline constexpr char kSqueueStepsFormat[] = "%.15i %.8j %.9P %.8u %.9M %N";

struct StepListing {
  std::string format = kSqueueStepsFormat;
  bool header = true;
  std::vector<std::string> only;  // --steps=LIST; empty = every step
};

// The listing's lines (header first), or InvalidArgument naming a field squeue -s has not.
Result<std::string> FormatSteps(const std::vector<const v1::Job*>& jobs, const StepListing& listing,
                                UnixTime now);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SQUEUE_STEPS_H_
