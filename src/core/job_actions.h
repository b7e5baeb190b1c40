// What ending, requeueing, suspending and signalling a job mean: the events and the agent
// calls, declared once for the cycle, the agents' reports and the commands (scancel, scontrol).
// Each appends to `out`; none changes the state. Calls go only to nodes the state knows.
#ifndef GANTRY_CORE_JOB_ACTIONS_H_
#define GANTRY_CORE_JOB_ACTIONS_H_

#include <cstdint>
#include <string>

#include "core/context.h"
#include "core/effects.h"
#include "gantry/v1/agent.pb.h"
#include "gantry/v1/events.pb.h"
#include "gantry/v1/job.pb.h"
#include "model/job_state.h"

namespace gantry::core {

// An event stamped with the call's wall time.
v1::Event NewEvent(const Context& ctx);

// A JobRequeued event for `job`, with Slurm's requeue delay: it may start again only once the
// launch credential of the run that ends has expired (cred_expire + 1 s), unless its own begin
// time is later. Slurm counts from the requeue's end, here from its start.
v1::Event RequeueEvent(const Context& ctx, const v1::Job& job);

// The wall time a running job's time limit counts from: its start, or its resume less what it
// ran before the suspend.
UnixTime RunningSince(const v1::Job& job);

// When a running job that ends now ended as its running time counts: its start plus the
// monotonic time it ran, when the wall clock stepped by more than 5 s meanwhile (so a step
// neither puts its end before its start nor changes its elapsed time); ctx.now otherwise.
UnixTime EndTime(const Context& ctx, const v1::Job& job);

// What the core remembers of an event the shell just applied: a job's running time counts on
// the monotonic clock from the moment it starts or resumes, and is forgotten (with its
// --signal warnings) once it ends or is requeued; the time limits look again at a job an event
// touched. Every shell calls it after each Apply (one it did not call it for makes the next
// timer pass look at every running job).
void NoteApplied(const Context& ctx, const v1::Event& event);

// JobEnded in `end_state`, then TerminateJob to each of its nodes, with `grace_sec` (a
// preempted job's GraceTime) before the KillWait.
void EndJob(const Context& ctx, const v1::Job& job, model::JobBaseState end_state,
            int32_t exit_status, const std::string& cause, Effects* out, uint32_t grace_sec = 0);

// A job whose node `node` was lost: requeued (node_fail) when it may be, else NODE_FAIL; the
// lost node releases it at once (it runs no epilog).
void RequeueOrFail(const Context& ctx, const v1::Job& job, const std::string& node,
                   const std::string& why, Effects* out);

// TerminateJob of the job's current launch to each of its nodes.
void TerminateOnNodes(const Context& ctx, const v1::Job& job, Effects* out, uint32_t grace_sec = 0);
// TerminateJob of launch `epoch` to `node`, the job's node number `index` (SLURM_NODEID; 0 for
// a node the job no longer lists), with KillWait + grace_sec.
void TerminateOnNode(const Context& ctx, const v1::Job& job, const std::string& node,
                     uint32_t index, uint64_t epoch, uint32_t grace_sec, Effects* out);
// PrepareJob (the prologs) to `node`, the job's node number `index`.
void PrepareOnNode(const Context& ctx, const v1::Job& job, const std::string& node, uint32_t index,
                   Effects* out);
// PrepareJob to each of the job's nodes.
void PrepareOnNodes(const Context& ctx, const v1::Job& job, Effects* out);
// LaunchBatch to the job's first node, with `state_flags` in its context.
void LaunchBatch(const Context& ctx, const v1::Job& job, uint32_t state_flags, Effects* out);
// `sig` to the processes `scope` names on each of the job's nodes, or only `only_node`
// (SIGNAL_BATCH: the first node only).
void SignalOnNodes(const Context& ctx, const v1::Job& job, int sig, v1::SignalScope scope,
                   Effects* out, const std::string& only_node = "");
// JobSuspended{preemptor} and SIGSTOP to the job's processes.
void SuspendFor(const Context& ctx, const v1::Job& job, uint32_t preemptor, Effects* out);

// The job's node number of `node` (SLURM_NODEID), 0 when it does not list it.
uint32_t NodeIndexOf(const v1::Job& job, const std::string& node);

}  // namespace gantry::core

#endif  // GANTRY_CORE_JOB_ACTIONS_H_
