// `gantry sim --from-state-dir`: what a cluster's store holds of its history, read while the
// cluster is down (the store is its controller's alone while it runs).
#ifndef GANTRY_SIM_HISTORY_STORE_H_
#define GANTRY_SIM_HISTORY_STORE_H_

#include <vector>

#include "base/status.h"
#include "gantry/v1/accounting.pb.h"
#include "gantry/v1/job.pb.h"
#include "store/store.h"

namespace gantry::sim {

struct History {
  std::vector<v1::Job> ended;        // the archive: every job that ended, by id
  v1::AccountingChange accounting;   // accounts, users, associations and QOS as they stand
  std::vector<v1::PassMark> passes;  // the controller's pass log (core/pass_log.h)
};

// Reads `store`: its archive, its pass log, and the accounting of the state its snapshot and
// log rebuild.
// Errors name the record that does not parse.
Result<History> ReadHistory(store::Store& store);

}  // namespace gantry::sim

#endif  // GANTRY_SIM_HISTORY_STORE_H_
