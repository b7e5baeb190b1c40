// WorkloadFromHistory (workload.h): a cluster's ended jobs as a workload.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/job_state.h"
#include "sim/workload.h"
#include "state/resources.h"

namespace gantry::sim {
namespace {

// How long the job's batch script ran: its last run, less the time it spent suspended.
int64_t RunTimeOf(const v1::Job& job) {
  if (job.suspend_time() != 0) {
    return std::max<int64_t>(0, job.pre_suspend_secs() + job.end_time() - job.suspend_time());
  }
  return std::max<int64_t>(0, job.end_time() - job.start_time());
}

// When each node released it (every run's), from the workload's start `first`.
WorkloadJob::Releases ReleasesOf(const v1::Job& job, int64_t first) {
  WorkloadJob::Releases out;
  for (const v1::NodeRelease& r : job.node_releases()) {
    out[r.node()].push_back(WorkloadJob::Release{r.time() - first, r.order()});
  }
  return out;
}

// How many of its runs a preemption ended and requeued.
uint32_t PreemptedRunsOf(const v1::Job& job) {
  return static_cast<uint32_t>(
      std::count_if(job.earlier_runs().begin(), job.earlier_runs().end(), [](const v1::JobRun& r) {
        return r.state() == static_cast<uint32_t>(model::JobBaseState::kPreempted);
      }));
}

// When the job was submitted first (a requeue sets its submit time anew).
int64_t FirstSubmitOf(const v1::Job& job) {
  return job.earlier_runs_size() > 0 && job.earlier_runs(0).submit_time() > 0
             ? job.earlier_runs(0).submit_time()
             : job.submit_time();
}

}  // namespace

Workload WorkloadFromHistory(const std::vector<v1::Job>& records,
                             const std::vector<v1::PassMark>& passes) {
  Workload workload;
  // One entry per job or array: the array's id, else the job's.
  std::map<uint32_t, std::vector<const v1::Job*>> jobs;
  for (const v1::Job& job : records) {
    if (job.start_time() <= 0) {
      ++workload.never_ran;
      continue;
    }
    jobs[job.array_job_id() != 0 ? job.array_job_id() : job.job_id()].push_back(&job);
  }
  int64_t first = INT64_MAX;
  for (const auto& [id, parts] : jobs) {
    for (const v1::Job* job : parts) first = std::min(first, FirstSubmitOf(*job));
  }
  for (const auto& [id, parts] : jobs) {
    const v1::Job& job = *parts.front();
    WorkloadJob w;
    w.id = id;
    int64_t submitted = INT64_MAX;
    for (const v1::Job* part : parts) submitted = std::min(submitted, FirstSubmitOf(*part));
    w.submit_s = submitted - first;
    w.run_s = RunTimeOf(job);
    w.preempted_runs = PreemptedRunsOf(job);
    w.submit_order = job.submit_order();
    w.end_order = job.end_order();
    w.releases = ReleasesOf(job, first);
    for (const v1::Job* task : parts) {
      if (!task->has_array_task_id()) continue;
      w.task_run_s[task->array_task_id()] = RunTimeOf(*task);
      if (const uint32_t preempted = PreemptedRunsOf(*task); preempted > 0) {
        w.task_preempted_runs[task->array_task_id()] = preempted;
      }
      w.task_end_order[task->array_task_id()] = task->end_order();
      w.task_releases[task->array_task_id()] = ReleasesOf(*task, first);
      w.task_job_ids[task->array_task_id()] = task->job_id();
    }
    v1::JobRequest request = job.request();
    request.set_allocation_only(false);
    if (job.earlier_runs_size() > 0) {  // a requeue's BeginTime is not the submission's
      request.set_begin_time(job.earlier_runs(0).begin_time());
    }
    if (request.begin_time() > 0) {
      request.set_begin_time(std::max<int64_t>(0, request.begin_time() - first));
    }
    w.time_limit_s = int64_t{job.time_limit_min()} * 60;
    w.nodes = state::MinNodesOf(request);
    w.cpus = job.num_cpus();
    w.user = job.user_name();
    w.uid = job.user_id();
    w.account = request.account();
    w.partition = job.partition();
    w.qos = request.qos();
    w.array = request.array();
    w.exclusive = request.exclusive();
    w.request = std::move(request);
    workload.jobs.push_back(std::move(w));
  }
  if (!jobs.empty()) {
    workload.start_time = first;
    for (const v1::PassMark& mark : passes) {
      if (mark.time() < first) continue;
      workload.passes.push_back(mark);
      workload.passes.back().set_time(mark.time() - first);
    }
  }
  std::stable_sort(workload.jobs.begin(), workload.jobs.end(),
                   [](const WorkloadJob& a, const WorkloadJob& b) {
                     return std::pair(a.submit_s, a.id) < std::pair(b.submit_s, b.id);
                   });
  return workload;
}

}  // namespace gantry::sim
