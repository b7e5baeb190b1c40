// Controller: sacctmgr's reads and changes of the accounting database.
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>

#include "ctld/controller.h"
#include "ctld/log.h"
#include "model/job_state.h"
#include "state/accounting.h"

namespace gantry::ctld {

v1::AccountingDb Controller::GetAccounting() const {
  ReaderLock lock(mu_);
  return state::ToProto(state_.accounting);
}

Result<v1::UpdateAccountingReply> Controller::UpdateAccounting(
    const Caller& caller, const v1::UpdateAccountingRequest& request) {
  const std::string who = UserName(caller.uid);
  WriterLock lock(mu_);
  const state::AccountingDb& db = state_.accounting;
  if (!IsOperator(caller)) {
    const auto user = db.users.find(who);
    if (user == db.users.end() || user->second.admin_level() < state::kAdminOperator) {
      return PermissionDenied("Access/permission denied");
    }
  }
  if (request.expected_version() != db.version) {
    return FailedPrecondition("the accounting database changed while this change was made " +
                              std::string("(version ") +
                              std::to_string(request.expected_version()) + ", now " +
                              std::to_string(db.version) + "); run the command again");
  }
  // Jobs that have not ended keep their association.
  std::set<std::pair<std::string, std::string>> removed;  // (account, user)
  for (uint32_t id : request.change().removed_associations()) {
    const auto it = db.associations.find(id);
    if (it != db.associations.end()) removed.emplace(it->second.account(), it->second.user());
  }
  if (!removed.empty()) {
    for (const auto& [id, job] : state_.jobs) {
      if (!model::IsFinished(static_cast<model::JobBaseState>(job.state())) &&
          removed.contains({job.request().account(), job.user_name()})) {
        return FailedPrecondition("Job(s) active, cancel job(s) before remove");
      }
    }
  }
  state::AccountingDb next = db;
  state::ApplyAccountingChange(request.change(), &next);
  GANTRY_RETURN_IF_ERROR(state::CheckAccounting(next));

  v1::Event event = NewEvent();
  *event.mutable_accounting_changed()->mutable_change() = request.change();
  std::unique_ptr<store::PendingWrite> pending = CommitLocked(OneEvent(std::move(event)));
  lock.unlock();
  GANTRY_RETURN_IF_ERROR(Finish(std::move(pending), {}));
  Log("accounting changed by uid " + std::to_string(caller.uid) + " (version " +
      std::to_string(next.version) + ")");
  v1::UpdateAccountingReply reply;
  reply.set_version(next.version);
  return reply;
}

}  // namespace gantry::ctld
