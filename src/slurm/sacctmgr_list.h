// sacctmgr list/show: the lines a listing prints from the accounting database, in sacctmgr's
// order and default columns.
//
// Orders: accounts, users and QOS by name (QOS by creation); associations depth first from
// root, each account's own association, then its users' (by user name, a user's partitions
// newest first), then its child accounts by name; `list user -s` a user's associations by
// account. `tree` indents the Account column by the account's depth.
// Pure; thread-compatible.
#ifndef GANTRY_SLURM_SACCTMGR_LIST_H_
#define GANTRY_SLURM_SACCTMGR_LIST_H_

#include <string>

#include "base/status.h"
#include "gantry/v1/accounting.pb.h"
#include "slurm/sacctmgr_edit.h"
#include "slurm/sacctmgr_table.h"

namespace gantry::slurm {

// What `list cluster` shows of the cluster.
struct AccountingCluster {
  std::string name;
  std::string control_host;
  std::string control_port;
};

// The listing. `with_assoc_option`: -s. Errors: InvalidArgument for an unknown format= field.
Result<std::string> RenderAccountingListing(Entity entity, const ListSpec& spec,
                                            const v1::AccountingDb& db,
                                            const AccountingCluster& cluster,
                                            bool with_assoc_option, TableStyle style,
                                            bool no_header);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SACCTMGR_LIST_H_
