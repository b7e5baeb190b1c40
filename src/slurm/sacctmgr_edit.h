// sacctmgr's grammar and its changes, worked out against the accounting database: what an
// add, modify or delete changes (a v1::AccountingChange) and what sacctmgr prints for it, and
// what a list selects. Texts follow Slurm 22.05's sacctmgr.
//
// Rules beyond the database's own (state/accounting.h) that sacctmgr applies as Slurm does:
//   - a new account's parent is root unless Parent= names another; its description defaults
//     to its name and its organization to its parent's name (its own under root); its
//     association inherits the parent's QOS;
//   - a new user needs an account (Account= or DefaultAccount=); its default account is
//     DefaultAccount=, else the first Account=; one association per account and partition,
//     inheriting the account's QOS;
//   - deleting a user deletes its associations; deleting an account deletes its associations,
//     and users left without their default account get the first of their remaining accounts
//     (or are deleted with their last association). An account with child accounts is not
//     deleted (Gantry refuses; see the README's compatibility notes).
// Pure; thread-compatible.
#ifndef GANTRY_SLURM_SACCTMGR_EDIT_H_
#define GANTRY_SLURM_SACCTMGR_EDIT_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/accounting.pb.h"

namespace gantry::slurm {

enum class Entity { kNone, kAccount, kUser, kQos, kAssociation, kCluster };
enum class EditVerb { kAdd, kModify, kDelete };

// What a list command selects.
struct ListSpec {
  std::vector<std::string> names;                        // the entity's names (positional, Name=)
  std::vector<std::string> users, accounts, partitions;  // association conditions
  std::string format;
  bool with_assoc = false;  // withassoc
  bool tree = false;        // tree (list assoc)

  bool Named(std::string_view name) const;
  bool Matches(const v1::Association& a) const;
};

// Errors: InvalidArgument with sacctmgr's text (" Unknown condition: X").
Result<ListSpec> ParseListSpec(Entity entity, const std::vector<std::string>& words);

struct Edit {
  v1::AccountingChange change;
  std::string out;    // printed before the change is sent (add) ...
  std::string after;  // ... or once it is committed (modify, delete with -i)
  std::string err;
  int exit_code = 0;
  bool nothing = false;  // nothing to change: `out` says so and exit_code is 1
  std::string problem;   // how a refused add is reported: "Problem adding users"
};

// The change `words` (after the entity) ask for against `db` on cluster `cluster`.
Edit WorkOutEdit(EditVerb verb, Entity entity, const std::vector<std::string>& words,
                 const v1::AccountingDb& db, const std::string& cluster);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SACCTMGR_EDIT_H_
