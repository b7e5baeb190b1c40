// What an sreport command line asks for, read the way Slurm 22.05's sreport reads it:
//
//  * the report: "<type> <report>", each word abbreviated as sreport allows ("cluster
//    utilization", "cl ut", "user top", "job sizes"; the report word is matched on its first
//    characters only, so "cluster aubu" is AccountUtilizationByUser);
//  * its conditions, "key=value" or bare words, keys abbreviated and any case, each report type
//    with its own keys (Slurm's *_set_cond functions); a bare word that is no flag is a user
//    (cluster account/user reports, user reports), a cluster (cluster utilization, job reports)
//    or a wckey (wckey reports). Unknown keys are reported (" Unknown condition: ...") and make
//    the exit code 1; the report still runs.
//  * the period: start=/end= in Slurm's time syntax (text/begin_time.h, parse_time(..., 1)); an
//    end after `now` is `now`; then both are rounded to whole hours (from :30 up, where :29:30
//    counts as :30); without start, 00:00 yesterday; without end, 00:00 today; a period shorter
//    than an hour is made an hour long. Times are local (the injected time zone).
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SREPORT_OPTIONS_H_
#define GANTRY_SLURM_SREPORT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "slurm/sreport_render.h"

namespace gantry::slurm {

enum class SreportReport {
  kClusterUtilization,
  kClusterAccountByUser,  // AccountUtilizationByUser
  kClusterUserByAccount,  // UserUtilizationByAccount
  kClusterUserByWckey,    // UserUtilizationByWckey
  kClusterWckeyByUser,    // WCKeyUtilizationByUser
  kUserTop,               // TopUsage
  kJobSizesByAccount,
  kJobSizesByWckey,
  kJobSizesByAccountAndWckey,
  kReservationUtilization,
};

// -t values: SecPer, MinPer, HourPer (6 characters at least), Seconds, Minutes, Hours, Percent
// (any prefix), any case. nullopt for anything else.
std::optional<SreportTime> ParseSreportTime(std::string_view text);

// strncasecmp(word, keyword, n) == 0: the first n characters agree (a shorter word must end
// where the keyword does).
bool MatchesFirst(std::string_view word, std::string_view keyword, size_t n);

// The report a type's report word names; nullopt when it names none. `type` is "cluster",
// "job", "user" or "reservation".
std::optional<SreportReport> FindSreportReport(std::string_view type, std::string_view word);
// The lines sreport prints for a report word it does not know ("Not valid report X\nValid ...").
std::string InvalidReportText(std::string_view type, std::string_view word);

// The conditions of one report.
struct SreportConditions {
  std::optional<UnixTime> start;  // as given (an unparsable time is left unset)
  std::optional<UnixTime> end;    // as given, already no later than now
  std::vector<std::string> clusters;
  std::vector<std::string> accounts;
  std::vector<std::string> users;         // names (account/user reports)
  std::vector<uint32_t> user_ids;         // job reports: users= resolved to uids
  bool users_given = false;               // job reports: users= named at least one known user
  std::vector<uint32_t> group_ids;        // job reports: gid= (numbers as atoi reads them)
  std::vector<uint32_t> job_ids;          // job reports: jobs=
  std::vector<uint32_t> association_ids;  // job reports: associations=
  std::vector<std::string> partitions;
  std::vector<std::string> nodes;  // job reports: nodes=, expanded
  std::vector<std::string> wckeys;
  std::vector<std::string> format;    // format= items, in order
  std::vector<std::string> grouping;  // job reports: grouping= items (not "individual")
  bool individual = false;            // grouping=individual
  bool all_clusters = false;
  bool tree = false;             // AccountUtilizationByUser: Tree
  bool group = false;            // TopUsage: Group
  bool flat_view = false;        // job reports: FlatView
  bool acct_as_parent = false;   // job reports: AcctAsParent
  bool print_job_count = false;  // job reports: PrintJobCount
  uint32_t top_count = 10;       // TopUsage: TopCount= (negative: 4294967295)
};

struct SreportConditionsParse {
  SreportConditions conditions;
  std::string errors;   // what sreport prints to stderr for them
  bool failed = false;  // makes sreport's exit code 1
};

// Reads the words after the report name. `uid_of` resolves users= of job reports (unknown users
// are reported and skipped, as Slurm does).
SreportConditionsParse ParseSreportConditions(
    SreportReport report, const std::vector<std::string>& words, UnixTime now, const TimeZone& tz,
    const std::function<std::optional<uint32_t>(std::string_view)>& uid_of);

// The report period [start, end) sreport uses (see the file comment).
struct SreportPeriod {
  UnixTime start = 0;
  UnixTime end = 0;
};
SreportPeriod ResolveSreportPeriod(std::optional<UnixTime> start, std::optional<UnixTime> end,
                                   UnixTime now, const TimeZone& tz);

// Slurm's list reading (slurm_addto_char_list): comma-separated, a leading quote and anything
// from the next quote on dropped, empty items skipped, duplicates (any case) kept once.
std::vector<std::string> SreportList(std::string_view text);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SREPORT_OPTIONS_H_
