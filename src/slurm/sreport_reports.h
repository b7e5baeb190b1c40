// sreport's reports, laid out as Slurm 22.05 lays them out: the banner (period, unit), the column
// header, the rows, with format= fields ("Cluster,Used%12"), the usage column widths sreport
// derives from the largest value, and its errors (" Unknown field 'x'").
//
// Reports: cluster Utilization, AccountUtilizationByUser (flat or Tree), UserUtilizationByAccount,
// user TopUsage (TopCount=, Group), job SizesByAccount (Grouping=, FlatView, AcctAsParent,
// PrintJobCount; users, partitions, nodes, jobs, gid filters), SizesByAccountAndWckey (FlatView
// only lists jobs: Gantry has no wckeys). The wckey reports (cluster UserUtilizationByWckey,
// WCKeyUtilizationByUser, job SizesByWckey) and reservation Utilization print their header
// without rows: Gantry has neither wckeys nor reservations.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SREPORT_REPORTS_H_
#define GANTRY_SLURM_SREPORT_REPORTS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "gantry/v1/accounting.pb.h"
#include "slurm/sreport_options.h"
#include "slurm/sreport_render.h"
#include "slurm/sreport_usage.h"

namespace gantry::slurm {

// sreport's settings that outlive one report (options, and the interactive commands).
struct SreportSettings {
  SreportTime time = SreportTime::kMinutes;
  SreportLayout layout = SreportLayout::kTable;
  bool header = true;         // -n clears it
  bool sort_by_name = false;  // -s name
  bool all_clusters = false;  // -a
  std::string clusters;       // -M
  bool tres_named = false;    // -T cpu / SREPORT_TRES: "TRES" wording and a TRES Name column
};

// What the reports are made from.
struct SreportData {
  ClusterInfo cluster;
  std::vector<UsageJob> jobs;  // every job that ran or waited in the period
  v1::AccountingDb accounting;
  UnixTime now = 0;
};

struct SreportOutput {
  std::string out;
  std::string err;
  bool failed = false;  // sreport's exit code becomes 1
};

// Proper Name: the passwd comment (up to its first ',') of a user; "" when unknown.
using ProperNameFn = std::function<std::string(std::string_view user)>;

// One report; `conditions` as ParseSreportConditions read them.
SreportOutput BuildSreportReport(SreportReport report, const SreportConditions& conditions,
                                 const SreportSettings& settings, const SreportData& data,
                                 const TimeZone& tz, const ProperNameFn& proper_name);

// The period a report covers (ResolveSreportPeriod of its conditions).
SreportPeriod ReportPeriod(const SreportConditions& conditions, UnixTime now, const TimeZone& tz);

// Whether the report reads jobs, accounting or nodes (the command fetches only what it needs).
bool ReportNeedsJobs(SreportReport report);
bool ReportNeedsAccounting(SreportReport report);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SREPORT_REPORTS_H_
