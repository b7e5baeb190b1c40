#include "model/health_report.h"

namespace gantry::model {

std::string HealthDrainReason(const v1::HealthReport& report) {
  for (const v1::HealthCheck& check : report.checks()) {
    if (check.ok()) continue;
    if (check.name() == "program") return check.message();
    return check.name() + ": " + check.message();
  }
  return "";
}

}  // namespace gantry::model
