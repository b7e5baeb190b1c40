// sacctmgr's listings: what one line shows (AccountingRow), the columns by name (format=) and
// Slurm's print_fields layout.
//
// Layout: each value right-justified to its column's width (left-justified for a negative
// width, `format=user%-12`) and followed by a space; a value wider than its column is cut to
// width-1 characters and "+" ("Administ+"). A header line and a line of dashes come first
// unless -n. -p prints "value|" per column, -P the values joined by "|".
// Pure; thread-compatible.
#ifndef GANTRY_SLURM_SACCTMGR_TABLE_H_
#define GANTRY_SLURM_SACCTMGR_TABLE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gantry/v1/accounting.pb.h"

namespace gantry::slurm {

// One line of a listing: the entities it shows (null when not part of it).
struct AccountingRow {
  const v1::Account* account = nullptr;
  const v1::AccountingUser* user = nullptr;
  const v1::Association* association = nullptr;
  const v1::Qos* qos = nullptr;
  std::string cluster;
  std::string control_host;  // list cluster
  std::string control_port;
  int tree_depth = -1;  // `list assoc tree`: the account's depth (root 0); -1 = no tree
  std::optional<uint32_t> priority;  // the association's Priority=, inherited down the tree
};

struct AccountingField {
  std::string_view name;    // format= name
  std::string_view header;  // column title
  int width;
  std::string (*value)(const AccountingRow& row);
};

struct AccountingColumn {
  const AccountingField* field;
  int width;  // negative: left-justified
};

enum class TableStyle { kAligned, kParsable, kParsable2 };

// Every column sacctmgr 22.05 prints for the entities Gantry keeps.
std::span<const AccountingField> AccountingFields();

// The columns `format` names ("Account,User%-12,Partition": names any case, a unique prefix of
// at least 3 characters or an exact name; %W sets the width). The column names given in
// `defaults` when `format` is empty. Errors: InvalidArgument "Unknown field 'X'".
Result<std::vector<AccountingColumn>> ParseAccountingFormat(
    std::string_view format, std::span<const std::string_view> defaults);

// One value laid out for its column (see above).
std::string LayoutCell(std::string_view value, int width);

std::string RenderAccountingTable(std::span<const AccountingColumn> columns,
                                  std::span<const AccountingRow> rows, TableStyle style,
                                  bool no_header);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SACCTMGR_TABLE_H_
