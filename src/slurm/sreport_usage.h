// What sreport reports, computed from Gantry's records the way Slurm 22.05's accounting rollup
// and report functions compute it from slurmdbd's:
//
//  * A job's CPU time in a period is its allocated CPUs times the part of its run inside the
//    period; suspended time does not count. Gantry keeps only the last suspend/resume of a job
//    (suspend_time, pre_suspend_secs), so a job suspended more than once is counted as if its
//    earlier run time had been one stretch from its start. A requeued job counts its last run
//    only (Gantry keeps no record of the earlier ones).
//  * Planned (Slurm's "reserved") time is the requested CPUs of eligible jobs times the part of
//    their wait (from eligible until they started, ended or now) inside the period.
//  * Down time is the CPUs of nodes that are DOWN, DRAIN or FAIL now, from their reason time
//    (Gantry keeps no history of node states). Planned down (maintenance) is always 0.
//  * The cluster reports from `since` (when it began: see ClusterInfo), with its CPUs of now.
//    Reported = CPUs x the reported part of the period; the allocated, down, planned and idle
//    times add up to it (down, then planned, are cut so that they fit, as the rollup does).
//    Usage counts up to `now`, not only up to the last whole hour as Slurm's hourly rollup does.
//  * Associations: a job belongs to the user's association with the job's account and partition,
//    else the one with the account and no partition; none (no accounting) means it counts for
//    the cluster only. An account's usage is that of every association below it.
// Pure functions; thread-safe.
#ifndef GANTRY_SLURM_SREPORT_USAGE_H_
#define GANTRY_SLURM_SREPORT_USAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "gantry/v1/accounting.pb.h"
#include "gantry/v1/job.pb.h"
#include "gantry/v1/node.pb.h"

namespace gantry::slurm {

struct Interval {
  UnixTime begin = 0;
  UnixTime end = 0;  // exclusive; empty when end <= begin
};

// Seconds of [begin, end) inside [start, end).
int64_t OverlapSeconds(const Interval& interval, UnixTime start, UnixTime end);

// A job as sreport counts it.
struct UsageJob {
  uint32_t job_id = 0;
  std::string user;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string account;
  std::string partition;
  std::vector<std::string> nodes;
  uint32_t cpus = 0;            // allocated (0 until it starts)
  uint32_t requested_cpus = 0;  // what it asked for
  std::vector<Interval> runs;   // when it held its CPUs and was not suspended
  Interval waiting;             // eligible, not started yet
};

// The counted form of a job record, its open intervals closed at `now`.
UsageJob ToUsageJob(const v1::Job& job, UnixTime now);

// CPU seconds of the job inside [start, end): CPUs x run seconds.
uint64_t CpuSecondsIn(const UsageJob& job, UnixTime start, UnixTime end);
// Run seconds of the job inside [start, end) (Slurm's elapsed, cut to the period).
int64_t RunSecondsIn(const UsageJob& job, UnixTime start, UnixTime end);

// The period the data covers: [start, end) and the controller's clock.
struct UsagePeriod {
  UnixTime start = 0;
  UnixTime end = 0;
  UnixTime now = 0;
  // The last instant counted: min(end, now).
  UnixTime counted_end() const { return end < now ? end : now; }
};

struct ClusterInfo {
  std::string name;
  uint32_t cpus = 0;   // every node's CPUs
  UnixTime since = 0;  // when the cluster began (0: before any period)
  std::vector<v1::Node> nodes;
};

struct ClusterUsage {
  bool reported = false;  // the cluster existed in the period (Slurm prints no line otherwise)
  uint64_t cpu_count = 0;
  uint64_t allocated = 0;
  uint64_t down = 0;
  uint64_t planned_down = 0;
  uint64_t idle = 0;
  uint64_t planned = 0;
  uint64_t overcommitted = 0;
  uint64_t reported_seconds = 0;  // allocated + down + planned_down + idle + planned
};

ClusterUsage ComputeClusterUsage(const ClusterInfo& cluster, const std::vector<UsageJob>& jobs,
                                 const UsagePeriod& period);

// The account tree and associations of an accounting database, for lookups. Keeps pointers into
// `db`, which must outlive it.
class AccountTree {
 public:
  explicit AccountTree(const v1::AccountingDb& db);

  bool HasAccount(std::string_view account) const;
  // The account's parent ("" for root or an unknown account).
  std::string Parent(std::string_view account) const;
  // Sub-accounts, sorted by name.
  const std::vector<std::string>& Children(std::string_view account) const;
  // The users' associations of an account, by user name then newest first (Slurm's tree order).
  const std::vector<const v1::Association*>& UserAssociations(std::string_view account) const;
  // True when `account` is `ancestor` or below it.
  bool Within(std::string_view account, std::string_view ancestor) const;
  // Accounts in tree order (root first, each account before its sub-accounts, siblings by name).
  std::vector<std::string> TreeOrder() const;
  // The association a job of `user` under `account` in `partition` counts for; null when none.
  const v1::Association* JobAssociation(std::string_view user, std::string_view account,
                                        std::string_view partition) const;

 private:
  std::map<std::string, std::string, std::less<>> parent_;
  std::map<std::string, std::vector<std::string>, std::less<>> children_;
  std::map<std::string, std::vector<const v1::Association*>, std::less<>> users_;
  // (user, account) -> that user's associations under the account.
  std::map<std::pair<std::string, std::string>, std::vector<const v1::Association*>, std::less<>>
      by_user_;
};

// CPU seconds in the period per association id (users' associations only).
std::map<uint32_t, uint64_t> UsageByAssociation(const AccountTree& tree,
                                                const std::vector<UsageJob>& jobs,
                                                const UsagePeriod& period);

// cluster AccountUtilizationByUser: account lines (user empty) with the usage below them, each
// followed by its users' associations, then its sub-accounts. Only lines with usage are listed.
// `accounts` (any case) keeps those accounts and everything below them; `users` keeps only the
// users' lines of those users (and no account lines).
struct AccountUserLine {
  std::string account;
  std::string parent;
  std::string user;  // "" for an account line
  uint64_t seconds = 0;
};
std::vector<AccountUserLine> AccountUserLines(const AccountTree& tree,
                                              const std::map<uint32_t, uint64_t>& usage,
                                              const std::vector<std::string>& accounts,
                                              const std::vector<std::string>& users);

// cluster UserUtilizationByAccount: one line per user and account (partitions summed), in tree
// order; `accounts` and `users` keep those exactly.
std::vector<AccountUserLine> UserAccountLines(const AccountTree& tree,
                                              const std::map<uint32_t, uint64_t>& usage,
                                              const std::vector<std::string>& accounts,
                                              const std::vector<std::string>& users);

// user TopUsage: one entry per association with usage (per user with `group`, its accounts
// listed once each), sorted by usage (largest first) then user name, or by name only.
struct TopUser {
  std::string user;
  std::vector<std::string> accounts;
  uint64_t seconds = 0;
};
std::vector<TopUser> TopUsers(const AccountTree& tree, const std::map<uint32_t, uint64_t>& usage,
                              const std::vector<std::string>& accounts,
                              const std::vector<std::string>& users, bool group, bool sort_by_name);

// job SizesBy*: CPU-count buckets.
struct SizeBucket {
  uint32_t min = 0;
  uint32_t max = 0;   // inclusive; 4294967295 for the last open bucket
  std::string label;  // "0-49", ">= 1000", "256"
  int width = 0;      // from "%N" in grouping=; 0 = the report's default
};

// grouping= items (default "50,250,500,1000"), or with `individual` one bucket per CPU count
// among `job_cpus`. Items read as atoi does; a bucket may be empty ("100-9") as in Slurm.
std::vector<SizeBucket> SizeBuckets(const std::vector<std::string>& grouping, bool individual,
                                    const std::vector<uint32_t>& job_cpus);

struct JobSizesOptions {
  std::vector<std::string> accounts;  // default root
  bool flat_view = false;
  bool acct_as_parent = false;
  bool wckey_suffix = false;  // SizesByAccountAndWckey: flat names get ":" (no wckey)
};

struct JobSizesLine {
  std::string account;
  std::vector<uint64_t> seconds;  // per bucket
  std::vector<uint64_t> jobs;     // per bucket
  uint64_t total_seconds = 0;
  uint64_t total_jobs = 0;
};

struct JobSizes {
  std::vector<JobSizesLine> lines;  // sorted by account
  uint64_t cluster_seconds = 0;
  uint64_t cluster_jobs = 0;
};

// Groups the jobs that ran in the period (run seconds > 0) by account (the top accounts asked
// for, their sub-accounts with acct_as_parent, or each job's own account with flat_view) and
// size; a job is counted in every bucket its CPU count falls in. Lines without jobs are left out.
JobSizes ComputeJobSizes(const AccountTree& tree, const std::vector<UsageJob>& jobs,
                         const UsagePeriod& period, const std::vector<SizeBucket>& buckets,
                         const JobSizesOptions& options);

}  // namespace gantry::slurm

#endif  // GANTRY_SLURM_SREPORT_USAGE_H_
