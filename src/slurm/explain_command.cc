// `gantry explain JOBID`: loads the jobs and nodes and prints ExplainJob (slurm/explain.h).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "slurm/command_util.h"
#include "slurm/commands.h"
#include "slurm/explain.h"
#include "slurm_view/job_view.h"
#include "text/array_spec.h"

namespace gantry::slurm {

Result<std::string> LoadAndExplain(ControllerClient& client, const text::ParsedJobId& id,
                                   UnixTime now, const TimeZone& tz) {
  GANTRY_ASSIGN_OR_RETURN(const v1::GetJobsReply jobs, client.GetJobs(v1::GetJobsRequest()));
  GANTRY_ASSIGN_OR_RETURN(const v1::GetNodesReply nodes, client.GetNodes(v1::GetNodesRequest()));
  ExplainInput in;
  for (const v1::Job& job : jobs.jobs()) in.jobs.push_back(&job);
  // The job itself; a task still pending in its array's record is that record's view of it.
  std::optional<v1::Job> view;
  for (const v1::Job* job : in.jobs) {
    if (id.whole && job->job_id() == id.job_id) view = *job;
    if (id.whole || job->array_job_id() != id.job_id) continue;
    for (v1::Job& task : ExpandArrayTasks(*job)) {
      if (task.has_array_task_id() && task.array_task_id() == id.tasks[0]) view = task;
    }
  }
  if (!view) {
    // Gone from the controller's memory (MinJobAge): its archived record says how it ended.
    v1::GetJobsRequest request;
    request.set_history(true);
    request.add_job_ids(id.job_id);
    Result<v1::GetJobsReply> old = client.GetJobs(request);
    if (old.ok()) {
      for (const v1::Job& job : old->jobs()) {
        if (id.whole ? job.job_id() == id.job_id
                     : job.array_job_id() == id.job_id && job.has_array_task_id() &&
                           job.array_task_id() == id.tasks[0]) {
          view = job;
        }
      }
    }
  }
  if (!view) return NotFound("Invalid job id specified");
  in.job = &*view;
  in.nodes = &nodes;
  in.now = jobs.now() != 0 ? jobs.now() : now;
  in.tz = &tz;
  return ExplainJob(in);
}

int RunExplain(const std::vector<std::string>& args, CommandContext& ctx) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    *ctx.err << "usage: gantry explain JOBID   (JOBID: 12, or 12_3 for an array task)\n";
    return 2;
  }
  const std::optional<text::ParsedJobId> id = text::ParseJobIdText(args[0]);
  if (!id || (!id->whole && id->tasks.size() != 1)) {
    *ctx.err << "gantry explain: \"" << args[0]
             << "\" is not a job id (a number, or ARRAY_TASK for one array task)\n";
    return 1;
  }
  std::unique_ptr<ControllerClient> client = ConnectOrReport(ctx, "gantry explain", "");
  if (!client) return 1;
  Result<std::string> text =
      LoadAndExplain(*client, *id, ctx.now, ctx.time_zone ? *ctx.time_zone : TimeZone::Utc());
  if (!text.ok()) {
    *ctx.err << "gantry explain: "
             << (text.status().code() == StatusCode::kNotFound ? "job " + args[0] + ": " : "")
             << text.status().message() << "\n";
    return 1;
  }
  *ctx.out << *text;
  return 0;
}

}  // namespace gantry::slurm
