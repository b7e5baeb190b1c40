// A submission as gantryd accepts it: admission (state/admission.h) and the job's id, as the
// JobSubmitted event to commit. Shared by gantryd's Submit and the simulator.
#ifndef GANTRY_CORE_SUBMIT_H_
#define GANTRY_CORE_SUBMIT_H_

#include "base/status.h"
#include "core/context.h"
#include "gantry/v1/events.pb.h"
#include "gantry/v1/job.pb.h"
#include "state/admission.h"

namespace gantry::core {

// The admitted job (ctx.state.next_job_id its id; an array's records name it as their array)
// in a JobSubmitted event at ctx.now, or admission's error.
Result<v1::Event> SubmitEvent(const Context& ctx, const v1::JobRequest& request,
                              const state::Caller& caller, const state::AdmitOptions& options);

}  // namespace gantry::core

#endif  // GANTRY_CORE_SUBMIT_H_
