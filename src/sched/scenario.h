// Scheduling scenarios: a small language for "this cluster, these jobs, these events" whose run
// prints what the scheduler decided at each pass, so that scenario files can pin decisions the
// way flux-sched's resource-query tests do (tests/scenarios/*.scn and their .out).
//
// One command per line; '#' starts a comment; words are `key=value` options:
//   node NAMES [cpus=64] [mem=256000] [gres=gpu:8] [features=a,b]    (a hostlist: n[1-4])
//   partition NAME nodes=HOSTLIST [default] [tier=N] [oversubscribe=EXCLUSIVE] [maxtime=MIN]
//   partition ... [jobfactor=N] [billing=CPU=1.0,Mem=0.25G,GRES/gpu=2]   (PriorityJobFactor,
//          TRESBillingWeights) [preemptmode=REQUEUE] [gracetime=SECONDS]
//          [oversubscribe=FORCE:2]
//   scheduler [type=sched/backfill|sched/builtin] [select=select/linear] [params=bf_...,...]
//          [PreemptType=preempt/partition_prio] [PreemptMode=SUSPEND,GANG]
//          [PreemptExemptTime=00:05:00] [SchedulerTimeSlice=30]
//   priority KEY=VALUE...      slurm.conf's PriorityType, PriorityWeight*, PriorityFlags,
//                              PriorityMaxAge, PriorityDecayHalfLife...: with
//                              PriorityType=priority/multifactor each cycle first computes every
//                              pending job's priority (given priority= values are replaced)
//   account NAME [parent=root] [shares=1] [priority=N]   sacctmgr's accounts and users: the
//   user NAME account=A [shares=1] [priority=N]          association tree (root comes with it)
//   submit ID [user=UID|NAME] [account=A] [partition=P] [nodes=N] [tasks=N] [cpus_per_task=N]
//          [mem_per_cpu=MB] [mem=MB] [gres=gpu:N] [time=MIN] [priority=N] [nice=N] [exclusive]
//          [dependency=afterok:N] [nodelist=HOSTLIST]
//   advance SECONDS            the clock moves on
//   end ID [state=COMPLETED]   the job ends and leaves its nodes (its usage is charged)
//   cycle                      one pass: prints it and applies its starts
// The nodes and partitions are set up at the first command that is neither of them nor
// scheduler, priority, account or user. The clock starts
// at state::testing::kNow; times print as offsets from it ("+3600s").
// A `cycle` prints "cycle at +Ns", then "  turn over ID for ID" for each job gang time-slicing
// suspends (sched::TimeSlice), "  resume ID" for each job preemption suspended that
// gets its CPUs back (sched::ResumableJobs), "  preempt ID for ID suspend|requeue|cancel" per
// preemption (applied as gantryd does; requeued and cancelled jobs leave their nodes at once),
// "  start ID on NODES cpus=N mem=N" per start, "  suspended ID" for every suspended job, then
// "  wait ID prio=N REASON" (with " expected +Ns" when backfill planned it) for every job
// still pending, in priority order.
// Errors name the line, the word and the rule.
// Pure; thread-safe.
#ifndef GANTRY_SCHED_SCENARIO_H_
#define GANTRY_SCHED_SCENARIO_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::sched {

Result<std::string> RunScenario(std::string_view text);

}  // namespace gantry::sched

#endif  // GANTRY_SCHED_SCENARIO_H_
