#include "core/reactions.h"

#include <string>
#include <utility>

#include "core/job_actions.h"
#include "model/job_state.h"
#include "state/events.h"
#include "state/records.h"

namespace gantry::core {

using model::JobBaseState;

Result<Effects> OnReport(const Context& ctx, const v1::JobReport& report) {
  Effects out;
  const v1::Job* job = ctx.state.FindJob(report.job_id());
  if (job == nullptr || job->agent_epoch() != report.epoch()) return out;
  const uint32_t id = job->job_id();
  switch (report.kind()) {
    case v1::JobReport::PROLOG_OK: {
      auto it = ctx.memory.prologs.find(id);
      if (!state::IsActiveJob(*job) || it == ctx.memory.prologs.end()) break;
      it->second.erase(report.node());
      if (!it->second.empty()) break;
      ctx.memory.prologs.erase(it);
      v1::Event configured = state::JobConfiguredEvent(*job, ctx.now);
      const uint32_t flags = configured.job_updated().job().state_flags();
      out.events.push_back(std::move(configured));
      if (job->request().allocation_only()) break;  // salloc: no script; srun runs the steps
      LaunchBatch(ctx, *job, flags, &out);
      break;
    }
    case v1::JobReport::PROLOG_FAILED: {
      if (!state::IsActiveJob(*job)) break;
      out.log.push_back("job " + std::to_string(id) + ": prolog failed on " + report.node() + ": " +
                        report.message());
      v1::Event drain = NewEvent(ctx);
      v1::NodeStateChanged* change = drain.mutable_node_state_changed();
      change->add_nodes(report.node());
      change->set_op("DRAIN");
      change->set_reason("Prolog error");
      change->set_reason_uid(0);
      out.events.push_back(std::move(drain));
      v1::Event requeue = RequeueEvent(ctx, *job);
      v1::JobRequeued* requeued = requeue.mutable_job_requeued();
      requeued->set_hold(true);
      requeued->set_reason("launch failed requeued held");
      // Slurm shows only the reason; the detail is in the logs (here and the agent's).
      out.events.push_back(std::move(requeue));
      ctx.memory.prologs.erase(id);
      TerminateOnNodes(ctx, *job, &out);
      break;
    }
    case v1::JobReport::BATCH_ENDED: {
      if (!state::IsActiveJob(*job)) break;  // already cancelled, timed out...
      const int status = report.wait_status();
      EndJob(ctx, *job, model::EndStateOfBatch(status), status, "", &out);
      if (report.has_usage()) {  // EndJob's JobEnded comes first
        for (v1::Event& e : out.events) {
          if (e.has_job_ended()) *e.mutable_job_ended()->mutable_batch_usage() = report.usage();
        }
      }
      break;
    }
    case v1::JobReport::LAUNCH_FAILED: {
      if (!state::IsActiveJob(*job)) break;
      out.log.push_back("job " + std::to_string(id) + ": launch failed on " + report.node() + ": " +
                        report.message());
      EndJob(ctx, *job, JobBaseState::kFailed, 1 << 8, report.message(), &out);
      break;
    }
    case v1::JobReport::EPILOG_OK:
    case v1::JobReport::EPILOG_FAILED: {
      const auto completing = ctx.state.completing.find(id);
      if (completing == ctx.state.completing.end() || !completing->second.contains(report.node())) {
        break;
      }
      const bool failed = report.kind() == v1::JobReport::EPILOG_FAILED;
      v1::Event event = NewEvent(ctx);
      v1::JobNodeReleased* released = event.mutable_job_node_released();
      released->set_job_id(id);
      released->set_node(report.node());
      released->set_epilog_failed(failed);
      released->set_message(failed ? "Epilog error" : "");
      out.events.push_back(std::move(event));
      break;
    }
    default:
      return InvalidArgument("report kind " + std::to_string(report.kind()) + " is not known");
  }
  return out;
}

}  // namespace gantry::core
