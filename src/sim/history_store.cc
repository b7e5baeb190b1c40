#include "sim/history_store.h"

#include <optional>
#include <string>
#include <utility>

#include "core/pass_log.h"
#include "gantry/v1/events.pb.h"
#include "state/cluster_state.h"

namespace gantry::sim {

Result<History> ReadHistory(store::Store& store) {
  History history;
  GANTRY_RETURN_IF_ERROR(
      store.ScanArchive(store::ArchiveQuery{}, [&history](const store::ArchivedJob& entry) {
        v1::Job job;
        if (!job.ParseFromString(entry.record)) {
          return Internal("the archive's record of job " + std::to_string(entry.job_id) +
                          " does not parse");
        }
        history.ended.push_back(std::move(job));
        return Status::Ok();
      }));
  GANTRY_ASSIGN_OR_RETURN(history.passes, core::ReadPassLog([&store](const std::string& key) {
                            return store.Get(key);
                          }));
  // The accounting as the controller would recover it.
  state::ClusterState state;
  uint64_t after = 0;
  GANTRY_ASSIGN_OR_RETURN(std::optional<store::Snapshot> snapshot, store.LatestSnapshot());
  if (snapshot) {
    GANTRY_ASSIGN_OR_RETURN(v1::ClusterSnapshot message, state::DecodeSnapshot(snapshot->payload));
    GANTRY_ASSIGN_OR_RETURN(state, state::FromSnapshot(message));
    after = snapshot->seq;
  }
  GANTRY_RETURN_IF_ERROR(store.ReadFrom(after, [&state](const store::Record& record) {
    if (record.kind != store::kEventRecordKind) return Status::Ok();
    v1::Event event;
    if (!event.ParseFromString(record.payload)) {
      return Internal("the store's record " + std::to_string(record.seq) + " does not parse");
    }
    (void)state::Apply(&state, event);  // what did not apply in gantryd does not here either
    return Status::Ok();
  }));
  // The state's records of the jobs it still keeps are newer (their nodes' releases).
  for (v1::Job& job : history.ended) {
    if (const v1::Job* kept = state.FindJob(job.job_id());
        kept != nullptr && kept->end_time() > 0) {
      job = *kept;
    }
  }
  for (const auto& [name, account] : state.accounting.accounts) {
    *history.accounting.add_accounts() = account;
  }
  for (const auto& [name, user] : state.accounting.users) *history.accounting.add_users() = user;
  for (const auto& [id, association] : state.accounting.associations) {
    *history.accounting.add_associations() = association;
  }
  for (const auto& [name, qos] : state.accounting.qos) *history.accounting.add_qos() = qos;
  return history;
}

}  // namespace gantry::sim
