#include "slurm/allocation.h"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <string_view>
#include <thread>
#include <vector>

#include "model/job_state.h"
#include "model/task_layout.h"
#include "slurm/sbatch.h"
#include "slurm_view/job_view.h"
#include "text/ascii.h"
#include "text/hostlist.h"

namespace gantry::slurm {
namespace {

const char* AllocationPrefix(AllocationStyle style) {
  return style == AllocationStyle::kSalloc ? "salloc: " : "srun: ";
}

Result<v1::Job> FetchJob(ControllerClient& client, uint32_t job_id) {
  v1::GetJobsRequest request;
  request.add_job_ids(job_id);
  request.set_include_all(true);
  GANTRY_ASSIGN_OR_RETURN(v1::GetJobsReply reply, client.GetJobs(request));
  for (const v1::Job& job : reply.jobs()) {
    if (job.job_id() == job_id) return job;
  }
  return NotFound("Invalid job id specified");
}

}  // namespace

v1::SubmitJobRequest AllocationRequest(const SbatchOptions& options, const std::string& name,
                                       const CommandContext& ctx) {
  BatchScript none;
  v1::SubmitJobRequest submit = BuildSubmitRequest(options, none, ctx);
  v1::JobRequest& r = *submit.mutable_request();
  if (!options.job_name) r.set_name(name);
  r.set_allocation_only(true);
  r.set_requeue(2);  // an interactive allocation is never requeued (Slurm: batch jobs only)
  r.set_std_out("/dev/null");  // nothing runs as a batch script: no slurm-N.out
  submit.mutable_payload()->clear_script();
  return submit;
}

Result<v1::Job> AcquireAllocation(ControllerClient& client, const v1::SubmitJobRequest& request,
                                  AllocationStyle style, CommandContext& ctx,
                                  const std::function<bool()>& interrupted) {
  const char* prefix = AllocationPrefix(style);
  Result<v1::SubmitJobReply> submitted = client.SubmitJob(request);
  if (!submitted.ok()) {
    // The controller may put Slurm's detail lines before the error ("invalid partition
    // specified: x"), one per line.
    const std::string message = submitted.status().message();
    const std::vector<std::string_view> lines = text::Split(message, '\n');
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      if (!lines[i].empty()) *ctx.err << prefix << "error: " << lines[i] << "\n";
    }
    *ctx.err << prefix << "error: "
             << (style == AllocationStyle::kSalloc ? "Job submit/allocate failed: "
                                                   : "Unable to allocate resources: ")
             << lines.back() << "\n";
    return submitted.status();
  }
  const uint32_t id = submitted->job_id();
  const std::string job_text = std::to_string(id);
  // salloc ends the sentence with a period, srun does not (as Slurm 22.05 prints them).
  const std::string revoked = "Job allocation " + job_text + " has been revoked" +
                              (style == AllocationStyle::kSalloc ? "." : "");
  bool waited = false;
  bool said_configuring = false;
  auto delay = std::chrono::milliseconds(20);
  for (;;) {
    if (interrupted && interrupted()) {
      v1::SignalJobRequest cancel;
      cancel.add_job_ids(job_text);
      (void)client.SignalJob(cancel);
      *ctx.err << prefix << revoked << "\n";
      if (style == AllocationStyle::kSalloc) *ctx.err << prefix << "Job aborted due to signal\n";
      return FailedPrecondition(revoked);
    }
    Result<v1::Job> job = FetchJob(client, id);
    if (!job.ok()) {
      *ctx.err << prefix << "error: " << job.status().message() << "\n";
      return job.status();
    }
    const model::JobState state = StateOf(*job);
    if (model::IsFinished(state.base)) {
      *ctx.err << prefix << revoked << "\n";
      return FailedPrecondition(revoked);
    }
    if (state.base == model::JobBaseState::kPending && !waited) {
      waited = true;
      if (style == AllocationStyle::kSalloc) {
        *ctx.err << prefix << "Pending job allocation " << id << "\n";
      }
      *ctx.err << prefix << "job " << id << " queued and waiting for resources\n";
      ctx.err->flush();
    }
    if (state.base == model::JobBaseState::kRunning ||
        state.base == model::JobBaseState::kSuspended) {
      const bool configuring = state.Has(model::JobFlag::kConfiguring);
      if (!said_configuring || !configuring) {
        if (!said_configuring) {
          if (waited) *ctx.err << prefix << "job " << id << " has been allocated resources\n";
          if (style == AllocationStyle::kSalloc) {
            *ctx.err << prefix << "Granted job allocation " << id << "\n";
          }
        }
        said_configuring = true;
        if (configuring && style == AllocationStyle::kSalloc) {
          *ctx.err << prefix << "Waiting for resource configuration\n";
        }
        ctx.err->flush();
      }
      if (!configuring) {
        if (style == AllocationStyle::kSalloc) {
          const std::vector<std::string> nodes(job->nodes().begin(), job->nodes().end());
          *ctx.err << prefix << "Nodes " << text::CompressHostlistSorted(nodes)
                   << " are ready for job\n";
          ctx.err->flush();
        }
        return job;
      }
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(500));
  }
}

void ReleaseAllocation(ControllerClient& client, uint32_t job_id, int wait_status,
                       AllocationStyle style, CommandContext& ctx) {
  if (style == AllocationStyle::kSalloc) {
    *ctx.err << AllocationPrefix(style) << "Relinquishing job allocation " << job_id << "\n";
    ctx.err->flush();
  }
  v1::UpdateJobRequest complete;
  complete.add_job_ids(std::to_string(job_id));
  complete.set_action("complete");
  complete.set_exit_status(wait_status);
  Result<v1::UpdateJobReply> reply = client.UpdateJob(complete);
  if (!reply.ok()) {
    *ctx.err << AllocationPrefix(style) << "error: Unable to release job allocation " << job_id
             << ": " << reply.status().message() << "\n";
  }
}

std::vector<std::string> AllocationEnvironment(const v1::Job& job, const CommandContext& ctx) {
  std::vector<std::string> env;
  auto set = [&env](const std::string& name, const std::string& value) {
    env.push_back(name + "=" + value);
  };
  const v1::JobRequest& r = job.request();
  const std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  const std::string nodelist = text::CompressHostlistSorted(nodes);
  const uint32_t nnodes = std::max<uint32_t>(static_cast<uint32_t>(nodes.size()), 1);
  const std::vector<uint32_t> cpus(nnodes, std::max<uint32_t>(job.num_cpus() / nnodes, 1));
  const std::string id = std::to_string(job.job_id());
  set("SLURM_JOB_ID", id);
  set("SLURM_JOBID", id);
  set("SLURM_JOB_NODELIST", nodelist);
  set("SLURM_NODELIST", nodelist);
  set("SLURM_JOB_NUM_NODES", std::to_string(nnodes));
  set("SLURM_NNODES", std::to_string(nnodes));
  set("SLURM_JOB_CPUS_PER_NODE", model::FormatCountsPerNode(cpus));
  uint32_t tasks = r.num_tasks();
  if (tasks == 0 && r.ntasks_per_node() > 0) tasks = r.ntasks_per_node() * nnodes;
  const uint32_t cpus_per_task = std::max<uint32_t>(r.cpus_per_task(), 1);
  set("SLURM_TASKS_PER_NODE",
      model::FormatCountsPerNode(model::BlockTaskLayout(
          tasks > 0 ? tasks : std::max<uint32_t>(cpus[0] * nnodes / cpus_per_task, 1), cpus,
          cpus_per_task)));
  if (tasks > 0) {
    set("SLURM_NTASKS", std::to_string(tasks));
    set("SLURM_NPROCS", std::to_string(tasks));
  }
  if (r.ntasks_per_node() > 0) set("SLURM_NTASKS_PER_NODE", std::to_string(r.ntasks_per_node()));
  if (r.cpus_per_task() > 0) set("SLURM_CPUS_PER_TASK", std::to_string(r.cpus_per_task()));
  set("SLURM_JOB_PARTITION", job.partition());
  if (!r.account().empty()) set("SLURM_JOB_ACCOUNT", r.account());
  if (!r.qos().empty()) set("SLURM_JOB_QOS", r.qos());
  set("SLURM_JOB_NAME", r.name());
  set("SLURM_SUBMIT_DIR", ctx.cwd);
  set("SLURM_SUBMIT_HOST", ctx.hostname);
  if (r.mem_per_cpu_mb() > 0) {
    set("SLURM_MEM_PER_CPU", std::to_string(r.mem_per_cpu_mb()));
  } else if (r.mem_per_node_mb() > 0) {
    set("SLURM_MEM_PER_NODE", std::to_string(r.mem_per_node_mb()));
  }
  return env;
}

}  // namespace gantry::slurm
