#include "state/events.h"

#include "model/job_state.h"
#include "state/records.h"

namespace gantry::state {

v1::Event JobConfiguredEvent(const v1::Job& job, int64_t time) {
  v1::Event event;
  event.set_time(time);
  v1::JobUpdated& update = *event.mutable_job_updated();
  update.set_job_id(job.job_id());
  *update.mutable_job() = job;
  SetJobState(update.mutable_job(), JobStateOf(job).Clear(model::JobFlag::kConfiguring));
  return event;
}

}  // namespace gantry::state
