// sinfo's listing as pure functions: grouping nodes into lines, the field table, format parsing,
// sorting and rendering, as Slurm 22.05's sinfo does it.
//
// Grouping: each line is one record. Nodes are visited partition by partition (in the
// controller's partition order, hidden partitions skipped unless `all`), each node in node order;
// a node joins the first record of the same partition whose key matches, else starts a record.
// The key holds what the format shows: the node state (long name) for %t/%T, the reason for %E,
// and so on (CPUs, memory and the like only with -e, otherwise lines show ranges "64+"). With -N
// every node gets its own record. When the format shows nothing about partitions (sinfo -R, or
// -o "%N %t"), nodes are visited once, without partitions.
//
// Sorting: stable, keys from last to first ("#P" = partition order, "-t" = descending state
// value); default "#P,-t", or "N" with -N.
// '#' widths (%#P, %#N) are the longest value, at least 9.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SINFO_FORMAT_H_
#define GANTRY_SLURM_SINFO_FORMAT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "model/node_state.h"

namespace gantry::slurm {

inline constexpr char kSinfoDefaultFormat[] = "%#P %.5a %.10l %.6D %.6t %N";
inline constexpr char kSinfoSummarizeFormat[] = "%#P %.5a %.10l %.16F %N";
inline constexpr char kSinfoLongFormat[] = "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
inline constexpr char kSinfoNodeFormat[] = "%#N %.6D %.#P %6t";
inline constexpr char kSinfoNodeLongFormat[] =
    "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E";
inline constexpr char kSinfoReasonsFormat[] = "%20E %9u %19H %N";
inline constexpr char kSinfoReasonsLongFormat[] = "%20E %12U %19H %6t %N";

// One output line: a partition (or none) and the nodes it groups.
struct SinfoRecord {
  const v1::Partition* partition = nullptr;
  int partition_index = -1;
  std::vector<const v1::Node*> nodes;
  model::NodeState state;  // display state of the first node (MIXED applied)
};

// Which properties split nodes into different lines (from the format's fields).
enum SinfoMatch : uint32_t {
  kMatchPartition = 1u << 0,
  kMatchState = 1u << 1,
  kMatchReason = 1u << 2,
  kMatchReasonUser = 1u << 3,
  kMatchReasonTime = 1u << 4,
  kMatchCpus = 1u << 5,
  kMatchMemory = 1u << 6,
  kMatchFeatures = 1u << 7,
  kMatchGres = 1u << 8,
  kMatchSct = 1u << 9,
  kMatchStateComplete = 1u << 10,
  kMatchAllocMem = 1u << 11,
};

struct SinfoPrintContext {
  const TimeZone* tz = nullptr;
  // uid -> name for the reason's user (%u); empty: the number.
  std::function<std::optional<std::string>(uint32_t)> user_name;
};

struct SinfoField {
  char letter;  // 0: a -O name only
  std::string_view header;
  uint32_t match;        // SinfoMatch bits this field adds to the grouping key
  bool partition_field;  // shows something about partitions
  std::string (*value)(const SinfoRecord& record, const SinfoPrintContext& ctx);
  std::string_view name = {};  // -O name of a field without a letter
};

std::span<const SinfoField> SinfoFields();
const SinfoField* FindSinfoField(char letter);
// A -O name (sinfo 22.05's _parse_long_format), case-insensitive; null when unknown.
const SinfoField* FindSinfoFieldByName(std::string_view name);

struct SinfoColumn {
  const SinfoField* field = nullptr;  // null: print `literal`
  int width = 0;
  bool right = false;
  bool auto_width = false;
  std::string suffix;
  std::string literal;
};
struct SinfoFormat {
  std::string prefix;
  std::vector<SinfoColumn> columns;
  std::vector<std::string> errors;  // "Invalid node format specification: Z"
  uint32_t match = 0;
  bool partition_fields = false;
};
SinfoFormat ParseSinfoFormat(std::string_view format);
// -O/--Format "name[:[.][width][suffix]],...": width 20 when no ':' is given; an unknown name
// prints only its suffix and the error "sinfo: error: Invalid job format specification: Foo"
// (Slurm's words).
SinfoFormat ParseSinfoLongFormat(std::string_view format);

struct SinfoQuery {
  bool node_oriented = false;  // -N
  bool exact = false;          // -e
  bool all = false;            // -a: hidden partitions too
  bool responding_only = false;
  bool dead_only = false;
  bool reasons_only = false;            // -R: nodes down, drained, draining or failed with a reason
  std::vector<std::string> partitions;  // -p
  std::vector<std::string> nodes;       // -n, expanded
  std::optional<model::SinfoStateFilter> states;
};

std::vector<SinfoRecord> BuildSinfoRecords(const v1::GetNodesReply& reply, const SinfoQuery& query,
                                           const SinfoFormat& format);

// Unknown sort letters are ignored, as sinfo does.
void SortSinfoRecords(std::vector<SinfoRecord>* records, std::string_view sort);

// Header (unless no_header) and one line per record, '#' widths resolved over the records.
std::string RenderSinfo(const SinfoFormat& format, const std::vector<SinfoRecord>& records,
                        bool no_header, const SinfoPrintContext& ctx);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SINFO_FORMAT_H_
