// The cycle's timers: when it next has something to do that no event brings. gantryd's loop
// sleeps until then (at most a second); the simulator's clock jumps there. What is due:
//   time limits and --signal warnings of running jobs (Memory::time_limit_due);
//   silent nodes: DOWN once SlurmdTimeout has passed since they were last heard, their jobs
//     settled once fenced (Memory::last_heard);
//   gang turns: a time-sliced partition's running job has had its slice, a job it suspended
//     has waited one;
//   backfill: bf_interval after the last backfilling pass, while jobs wait;
//   begin times: a pending job's --begin or requeue delay (Memory::begin_due).
// Not here, as they start nothing by themselves (the pass that could start a job comes with an
// event or one of the above): PriorityCalcPeriod's recalculation and PriorityUsageResetPeriod's
// reset, which the next cycle does whenever it runs.
#ifndef GANTRY_CORE_TIMERS_H_
#define GANTRY_CORE_TIMERS_H_

#include <cstdint>
#include <optional>

#include "core/context.h"
#include "gantry/v1/events.pb.h"

namespace gantry::core {

// Milliseconds from ctx (ctx.mono_ms, ctx.now) until the first of the timers above is due,
// after a cycle at ctx ran; nullopt when none is set. What the cycle left overdue (a time limit
// counts whole seconds) is due a second later. At least 1. Forgets the begin times passed.
std::optional<int64_t> MsUntilDue(const Context& ctx);

// Notes the begin time of the job `event` made pending (submitted, requeued, updated, released),
// for MsUntilDue. NoteApplied calls it.
void NoteBeginTime(const Context& ctx, const v1::Event& event);
// Notes every pending job's begin time anew, for a state whose events NoteApplied did not all
// see (recovery, another state).
void NoteEveryBeginTime(const Context& ctx);

}  // namespace gantry::core

#endif  // GANTRY_CORE_TIMERS_H_
