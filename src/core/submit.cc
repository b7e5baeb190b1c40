#include "core/submit.h"

#include <utility>

#include "core/job_actions.h"

namespace gantry::core {

Result<v1::Event> SubmitEvent(const Context& ctx, const v1::JobRequest& request,
                              const state::Caller& caller, const state::AdmitOptions& options) {
  GANTRY_ASSIGN_OR_RETURN(v1::Job job,
                          state::AdmitJob(ctx.state, request, caller, ctx.now, options));
  const uint32_t id = ctx.state.next_job_id;
  job.set_job_id(id);
  if (job.array_pending_tasks_size() > 0) job.set_array_job_id(id);
  v1::Event event = NewEvent(ctx);
  *event.mutable_job_submitted()->mutable_job() = std::move(job);
  return event;
}

}  // namespace gantry::core
