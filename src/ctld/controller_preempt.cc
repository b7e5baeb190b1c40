// The controller's side of preemption (sched/preempt.h decides; this carries it out):
//   SUSPEND  JobSuspended{preemptor} and SIGSTOP to the victim's processes on every node; the
//            preemptor starts in the same commit. Once the CPUs it gave up are free again (its
//            preemptor ended), the victim gets JobResumed and SIGCONT before the next pass, as
//            Slurm's gang scheduler resumes it.
//   REQUEUE  JobRequeued{preempted} when the job may be requeued (else as CANCEL); its processes
//            get SIGTERM, then SIGKILL after the partition's GraceTime plus KillWait.
//   CANCEL   JobEnded PREEMPTED, the same signals.
// Gang time-slicing (sched::TimeSlice): a running job whose turn is over is suspended the same
// way as SUSPEND, for the job that waited longest, which then resumes.
#include <csignal>

#include "ctld/controller.h"
#include "ctld/log.h"
#include "model/job_state.h"

namespace gantry::ctld {

using model::JobBaseState;

void Controller::PreemptLocked(const sched::Preemption& preemption, std::vector<v1::Event>* events,
                               AfterCommit* after) {
  const v1::Job* job = state_.FindJob(preemption.victim);
  if (job == nullptr) return;
  const std::string by = "preempted by job " + std::to_string(preemption.preemptor);
  Log("job " + std::to_string(job->job_id()) + " " + by);
  const v1::Partition* partition = state_.FindPartition(job->partition());
  const uint32_t grace = partition != nullptr ? partition->grace_time_sec() : 0;
  switch (preemption.action) {
    case sched::PreemptAction::kSuspend:
      SuspendForLocked(*job, preemption.preemptor, events, after);
      return;
    case sched::PreemptAction::kRequeue:
      if (job->requeue()) {
        v1::Event event = RequeueEvent(*job);
        v1::JobRequeued* requeued = event.mutable_job_requeued();
        // Its reason stays one of Slurm's tokens (squeue shows state_desc in its place); the
        // preemptor is in the log, and preempt_time in the record for gantry explain.
        requeued->set_reason("None");
        requeued->set_preempted(true);
        events->push_back(std::move(event));
        prologs_.erase(job->job_id());
        TerminateOnNodesLocked(*job, after, grace);
        return;
      }
      break;  // may not be requeued: cancelled
    case sched::PreemptAction::kCancel:
    case sched::PreemptAction::kOff:
      break;
  }
  EndJobLocked(*job, JobBaseState::kPreempted, 0, by, events, after, grace);
}

void Controller::ResumePreemptedLocked(std::vector<v1::Event>* events, AfterCommit* after) {
  for (uint32_t id : sched::ResumableJobs(state_)) {
    const v1::Job* job = state_.FindJob(id);
    v1::Event event = NewEvent();
    event.mutable_job_resumed()->set_job_id(id);
    events->push_back(std::move(event));
    Log("job " + std::to_string(id) + " resumed: its CPUs are free again");
    SignalOnNodesLocked(*job, SIGCONT, v1::SIGNAL_SUSPEND, after);
  }
}

void Controller::TimeSliceLocked(UnixTime now, std::vector<v1::Event>* events, AfterCommit* after) {
  const sched::SchedulerOptions& options = config_.scheduler;
  for (const sched::SliceSuspension& turn :
       sched::TimeSlice(state_, options.preempt, options.time_slice_sec, now)) {
    SuspendForLocked(*state_.FindJob(turn.job_id), turn.for_job, events, after);
  }
}

void Controller::SuspendForLocked(const v1::Job& job, uint32_t preemptor,
                                  std::vector<v1::Event>* events, AfterCommit* after) {
  v1::Event event = NewEvent();
  event.mutable_job_suspended()->set_job_id(job.job_id());
  event.mutable_job_suspended()->set_preemptor(preemptor);
  events->push_back(std::move(event));
  SignalOnNodesLocked(job, SIGSTOP, v1::SIGNAL_SUSPEND, after);
}

}  // namespace gantry::ctld
