// What an agent's report means: the core's reaction to each JobReport kind, shared by gantryd,
// the scenarios and the simulator (whose fake agents report on a simulated clock).
#ifndef GANTRY_CORE_REACTIONS_H_
#define GANTRY_CORE_REACTIONS_H_

#include "base/status.h"
#include "core/context.h"
#include "core/effects.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

// The effects of `report` from its node (the caller checked that the state knows the node and
// recorded that it was heard from). A report about a job that is gone or about an earlier launch
// changes nothing; so does one that comes too late (a prolog of an ended job).
//   PROLOG_OK      once every node ran its prologs: the job is configured, its batch script
//                  goes to its first node (not for salloc's allocations);
//   PROLOG_FAILED  the node drains ("Prolog error"), the job is requeued held;
//   BATCH_ENDED    the job ends as its batch script did (usage kept);
//   LAUNCH_FAILED  the job ends FAILED;
//   EPILOG_OK/_FAILED  the node releases the job.
// InvalidArgument for a kind it does not know.
Result<Effects> OnReport(const Context& ctx, const v1::JobReport& report);

}  // namespace gantry::core

#endif  // GANTRY_CORE_REACTIONS_H_
