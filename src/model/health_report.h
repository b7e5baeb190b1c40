// What a run of a node's health checks (v1::HealthReport) says, in one line: the reason the
// controller drains the node with, and the agent logs. Pure; thread-safe.
#ifndef GANTRY_MODEL_HEALTH_REPORT_H_
#define GANTRY_MODEL_HEALTH_REPORT_H_

#include <string>

#include "gantry/v1/node.pb.h"

namespace gantry::model {

// For the first check that failed: the program's first output line as it is (Slurm sites'
// programs write their reason there), or a built-in check's "NAME: MESSAGE". "" when every
// check passed.
std::string HealthDrainReason(const v1::HealthReport& report);

}  // namespace gantry::model

#endif  // GANTRY_MODEL_HEALTH_REPORT_H_
