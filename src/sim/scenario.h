// Scheduling scenarios: a small language for "this cluster, these jobs, these events" whose run
// prints what gantryd's cycle decided at each pass, so that scenario files can pin decisions the
// way flux-sched's resource-query tests do (tests/scenarios/*.scn and their .out). The cycle is
// gantryd's own (core/cycle.h) on a sim::Engine whose agents answer at once: prologs and
// epilogs take no time, and a batch script runs until `end`, its time limit or a preemption.
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
//          [dependency=afterok:N] [kill_on_invalid_dep] [nodelist=HOSTLIST] [array=0-9%2]
//          [requeue=no]
//   advance SECONDS            the clock moves on
//   end ID [state=COMPLETED|FAILED]   the job's batch script exits 0 (or 1); its node releases
//                              it at once (its usage is charged)
//   cycle                      a pass of gantryd's cycle, carried out and printed, with the
//                              passes that the releases it causes kick (as gantryd passes
//                              again once a node is released)
// The nodes and partitions are set up at the first command that is neither of them nor
// scheduler, priority, account or user. The clock starts on the hour
// (2026-12-02T12:00:00Z); times print as offsets from it ("+3600s").
// A `cycle` prints "cycle at +Ns", then a line per event the cycle decided, in order:
// "  turn over ID for ID" (gang time-slicing suspends a job), "  end ID STATE [REASON]" (a time
// limit, a dependency never satisfied), "  resume ID" (a job preemption suspended gets its CPUs
// back), "  preempt ID for ID suspend|requeue|cancel", "  split ARRAY_TASK as ID" (an array task
// leaves its array's record), "  start ID on NODES cpus=N mem=N"; then "  suspended ID" for every
// suspended job and "  wait ID prio=N REASON" (with " expected +Ns" when backfill planned it)
// for every job still pending, in priority order.
// Errors name the line, the word and the rule.
// Pure; thread-safe.
#ifndef GANTRY_SIM_SCENARIO_H_
#define GANTRY_SIM_SCENARIO_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::sim {

Result<std::string> RunScenario(std::string_view text);

}  // namespace gantry::sim

#endif  // GANTRY_SIM_SCENARIO_H_
