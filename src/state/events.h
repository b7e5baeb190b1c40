// Builders for the events gantryd emits most often, so every caller spells them the same way.
// Pure; thread-safe.
#ifndef GANTRY_STATE_EVENTS_H_
#define GANTRY_STATE_EVENTS_H_

#include <cstdint>
#include <string>

#include "gantry/v1/events.pb.h"
#include "gantry/v1/job.pb.h"

namespace gantry::state {

// Every prolog is done: a JobUpdated carrying `job` without the CONFIGURING flag.
v1::Event JobConfiguredEvent(const v1::Job& job, int64_t time);

}  // namespace gantry::state

#endif  // GANTRY_STATE_EVENTS_H_
