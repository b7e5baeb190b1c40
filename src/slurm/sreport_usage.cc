#include "slurm/sreport_usage.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "model/job_state.h"
#include "model/node_state.h"
#include "slurm_view/job_view.h"
#include "text/ascii.h"

namespace gantry::slurm {
namespace {

bool SreportUsageListedIgnoreCase(const std::vector<std::string>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& s) { return text::EqualsIgnoreCase(s, name); });
}

uint32_t LeadingNumber(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && text::IsAsciiSpace(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  uint64_t value = 0;
  for (; i < text.size() && text::IsAsciiDigit(text[i]); ++i) {
    value = (value * 10 + static_cast<uint64_t>(text[i] - '0')) & 0xFFFFFFFFu;
  }
  return static_cast<uint32_t>(negative ? (0 - value) & 0xFFFFFFFFu : value);
}

// The "%N" width of a grouping item; 0 when none.
int ItemWidth(std::string_view item) {
  const size_t percent = item.find('%');
  if (percent == std::string_view::npos) return 0;
  return static_cast<int>(static_cast<int32_t>(LeadingNumber(item.substr(percent + 1))));
}

bool NodeIsDown(const v1::Node& node) {
  const uint32_t flags = node.state_flags();
  return static_cast<model::NodeBaseState>(node.state()) == model::NodeBaseState::kDown ||
         (flags & static_cast<uint32_t>(model::NodeFlag::kDrain)) != 0 ||
         (flags & static_cast<uint32_t>(model::NodeFlag::kFail)) != 0;
}

}  // namespace

int64_t OverlapSeconds(const Interval& interval, UnixTime start, UnixTime end) {
  const UnixTime from = std::max(interval.begin, start);
  const UnixTime to = std::min(interval.end, end);
  return to > from ? to - from : 0;
}

UsageJob ToUsageJob(const v1::Job& job, UnixTime now) {
  UsageJob u;
  u.job_id = job.job_id();
  u.user = UserLabel(job);
  u.uid = job.user_id();
  u.gid = job.group_id();
  u.account = job.request().account();
  u.partition = job.partition();
  u.nodes.assign(job.nodes().begin(), job.nodes().end());
  u.requested_cpus = TaskCount(job) * std::max<uint32_t>(1, job.request().cpus_per_task());
  const model::JobBaseState base = StateOf(job).base;
  const bool finished = model::IsFinished(base);
  const bool started = job.start_time() > 0 && !IsPendingJob(job);
  if (started) {
    u.cpus = CpuCount(job);
    const UnixTime start = job.start_time();
    UnixTime end = finished ? job.end_time() : now;
    if (end < start) end = start;
    const UnixTime resumed = job.suspend_time();
    const int64_t before = std::max<int64_t>(0, job.pre_suspend_secs());
    if (base == model::JobBaseState::kSuspended) {
      // Stopped now: it ran `before` seconds, the last of them up to its suspension.
      const UnixTime stopped = resumed > 0 ? resumed : start + before;
      u.runs.push_back({stopped - before, stopped});
    } else if (resumed > 0) {
      if (before > 0) u.runs.push_back({start, std::min(start + before, resumed)});
      u.runs.push_back({resumed, end});
    } else {
      u.runs.push_back({start, end});
    }
  }
  if (job.eligible_time() > 0) {
    const UnixTime waited_until =
        started ? job.start_time() : (finished && job.end_time() > 0 ? job.end_time() : now);
    u.waiting = {job.eligible_time(), waited_until};
  }
  return u;
}

int64_t RunSecondsIn(const UsageJob& job, UnixTime start, UnixTime end) {
  int64_t seconds = 0;
  for (const Interval& run : job.runs) seconds += OverlapSeconds(run, start, end);
  return seconds;
}

uint64_t CpuSecondsIn(const UsageJob& job, UnixTime start, UnixTime end) {
  return static_cast<uint64_t>(RunSecondsIn(job, start, end)) * job.cpus;
}

ClusterUsage ComputeClusterUsage(const ClusterInfo& cluster, const std::vector<UsageJob>& jobs,
                                 const UsagePeriod& period) {
  ClusterUsage usage;
  const UnixTime from = std::max(period.start, cluster.since);
  const UnixTime to = period.counted_end();
  if (to <= from) return usage;
  usage.reported = true;
  usage.cpu_count = cluster.cpus;
  const uint64_t total = static_cast<uint64_t>(cluster.cpus) * static_cast<uint64_t>(to - from);
  uint64_t allocated = 0;
  uint64_t planned = 0;
  for (const UsageJob& job : jobs) {
    allocated += CpuSecondsIn(job, from, to);
    planned += static_cast<uint64_t>(OverlapSeconds(job.waiting, from, to)) * job.requested_cpus;
  }
  uint64_t down = 0;
  for (const v1::Node& node : cluster.nodes) {
    if (!NodeIsDown(node)) continue;
    const Interval since{node.reason_time() > 0 ? node.reason_time() : from, to};
    down += static_cast<uint64_t>(OverlapSeconds(since, from, to)) * node.cpus();
  }
  usage.allocated = allocated;
  if (allocated > total) {
    usage.overcommitted = allocated - total;
    usage.reported_seconds = allocated;
    return usage;
  }
  usage.down = std::min(down, total - allocated);
  usage.planned = std::min(planned, total - allocated - usage.down);
  usage.idle = total - allocated - usage.down - usage.planned;
  usage.reported_seconds = total;
  return usage;
}

AccountTree::AccountTree(const v1::AccountingDb& db) {
  for (const v1::Account& a : db.accounts()) parent_[a.name()] = a.parent();
  for (const auto& [name, parent] : parent_) {
    if (parent != name) children_[parent].push_back(name);  // in name order: the map's
  }
  for (const v1::Association& a : db.associations()) {
    if (a.user().empty()) continue;
    users_[a.account()].push_back(&a);
    by_user_[{a.user(), a.account()}].push_back(&a);
  }
  for (auto& [account, list] : users_) {
    std::sort(list.begin(), list.end(), [](const v1::Association* a, const v1::Association* b) {
      if (a->user() != b->user()) return a->user() < b->user();
      return a->id() > b->id();
    });
  }
}

bool AccountTree::HasAccount(std::string_view account) const {
  return parent_.find(account) != parent_.end();
}

std::string AccountTree::Parent(std::string_view account) const {
  auto it = parent_.find(account);
  return it == parent_.end() ? std::string() : it->second;
}

const std::vector<std::string>& AccountTree::Children(std::string_view account) const {
  static const std::vector<std::string> kNone;
  auto it = children_.find(account);
  return it == children_.end() ? kNone : it->second;
}

const std::vector<const v1::Association*>& AccountTree::UserAssociations(
    std::string_view account) const {
  static const std::vector<const v1::Association*> kNone;
  auto it = users_.find(account);
  return it == users_.end() ? kNone : it->second;
}

bool AccountTree::Within(std::string_view account, std::string_view ancestor) const {
  std::string current(account);
  for (size_t steps = 0; steps <= parent_.size() && !current.empty(); ++steps) {
    if (current == ancestor) return true;
    current = Parent(current);
  }
  return false;
}

std::vector<std::string> AccountTree::TreeOrder() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto visit = [&](auto& self, const std::string& account) -> void {
    if (!seen.insert(account).second) return;
    out.push_back(account);
    for (const std::string& child : Children(account)) self(self, child);
  };
  for (const auto& [name, parent] : parent_) {
    if (parent.empty() || !HasAccount(parent)) visit(visit, name);
  }
  return out;
}

const v1::Association* AccountTree::JobAssociation(std::string_view user, std::string_view account,
                                                   std::string_view partition) const {
  auto it = by_user_.find(std::make_pair(std::string(user), std::string(account)));
  if (it == by_user_.end()) return nullptr;
  const v1::Association* any_partition = nullptr;
  for (const v1::Association* a : it->second) {
    if (a->partition() == partition) return a;
    if (a->partition().empty()) any_partition = a;
  }
  return any_partition;
}

std::map<uint32_t, uint64_t> UsageByAssociation(const AccountTree& tree,
                                                const std::vector<UsageJob>& jobs,
                                                const UsagePeriod& period) {
  std::map<uint32_t, uint64_t> usage;
  for (const UsageJob& job : jobs) {
    const uint64_t seconds = CpuSecondsIn(job, period.start, period.counted_end());
    if (seconds == 0) continue;
    if (const v1::Association* a = tree.JobAssociation(job.user, job.account, job.partition)) {
      usage[a->id()] += seconds;
    }
  }
  return usage;
}

namespace {

uint64_t SreportUsageUsageOf(const std::map<uint32_t, uint64_t>& usage, uint32_t id) {
  auto it = usage.find(id);
  return it == usage.end() ? 0 : it->second;
}

// Each account's usage with everything below it.
std::map<std::string, uint64_t> SubtreeUsage(const AccountTree& tree,
                                             const std::map<uint32_t, uint64_t>& usage) {
  std::map<std::string, uint64_t> total;
  std::vector<std::string> order = tree.TreeOrder();
  std::reverse(order.begin(), order.end());  // every account after the accounts below it
  for (const std::string& account : order) {
    uint64_t sum = total[account];
    for (const v1::Association* a : tree.UserAssociations(account))
      sum += SreportUsageUsageOf(usage, a->id());
    total[account] = sum;
    const std::string parent = tree.Parent(account);
    if (!parent.empty() && parent != account) total[parent] += sum;
  }
  return total;
}

}  // namespace

std::vector<AccountUserLine> AccountUserLines(const AccountTree& tree,
                                              const std::map<uint32_t, uint64_t>& usage,
                                              const std::vector<std::string>& accounts,
                                              const std::vector<std::string>& users) {
  const std::map<std::string, uint64_t> total = SubtreeUsage(tree, usage);
  auto selected = [&](const std::string& account) {
    if (accounts.empty()) return true;
    for (std::string current = account; !current.empty(); current = tree.Parent(current)) {
      if (SreportUsageListedIgnoreCase(accounts, current)) return true;
      if (tree.Parent(current) == current) break;
    }
    return false;
  };
  std::vector<AccountUserLine> lines;
  for (const std::string& account : tree.TreeOrder()) {
    if (!selected(account)) continue;
    const uint64_t sum = total.at(account);
    if (sum == 0) continue;
    if (users.empty()) lines.push_back({account, tree.Parent(account), "", sum});
    for (const v1::Association* a : tree.UserAssociations(account)) {
      const uint64_t seconds = SreportUsageUsageOf(usage, a->id());
      if (seconds == 0 || (!users.empty() && !SreportUsageListedIgnoreCase(users, a->user())))
        continue;
      lines.push_back({account, account, a->user(), seconds});
    }
  }
  return lines;
}

std::vector<AccountUserLine> UserAccountLines(const AccountTree& tree,
                                              const std::map<uint32_t, uint64_t>& usage,
                                              const std::vector<std::string>& accounts,
                                              const std::vector<std::string>& users) {
  std::vector<AccountUserLine> lines;
  for (const std::string& account : tree.TreeOrder()) {
    if (!accounts.empty() && !SreportUsageListedIgnoreCase(accounts, account)) continue;
    for (const v1::Association* a : tree.UserAssociations(account)) {
      const uint64_t seconds = SreportUsageUsageOf(usage, a->id());
      if (seconds == 0 || (!users.empty() && !SreportUsageListedIgnoreCase(users, a->user())))
        continue;
      auto same = std::find_if(lines.begin(), lines.end(), [&](const AccountUserLine& l) {
        return l.user == a->user() && l.account == account;
      });
      if (same == lines.end()) {
        lines.push_back({account, account, a->user(), seconds});
      } else {
        same->seconds += seconds;
      }
    }
  }
  return lines;
}

std::vector<TopUser> TopUsers(const AccountTree& tree, const std::map<uint32_t, uint64_t>& usage,
                              const std::vector<std::string>& accounts,
                              const std::vector<std::string>& users, bool group,
                              bool sort_by_name) {
  // Users by name, each user's associations in tree order.
  std::vector<std::pair<std::string, TopUser>> entries;               // (user, entry) in that order
  std::vector<std::tuple<std::string, std::string, uint64_t>> found;  // user, account, seconds
  for (const std::string& account : tree.TreeOrder()) {
    if (!accounts.empty() && !SreportUsageListedIgnoreCase(accounts, account)) continue;
    for (const v1::Association* a : tree.UserAssociations(account)) {
      const uint64_t seconds = SreportUsageUsageOf(usage, a->id());
      if (seconds == 0 || (!users.empty() && !SreportUsageListedIgnoreCase(users, a->user())))
        continue;
      found.emplace_back(a->user(), account, seconds);
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::vector<TopUser> out;
  for (const auto& [user, account, seconds] : found) {
    if (group && !out.empty() && out.back().user == user) {
      TopUser& entry = out.back();
      if (std::find(entry.accounts.begin(), entry.accounts.end(), account) ==
          entry.accounts.end()) {
        entry.accounts.push_back(account);
      }
      entry.seconds += seconds;
      continue;
    }
    out.push_back({user, {account}, seconds});
  }
  std::stable_sort(out.begin(), out.end(), [&](const TopUser& a, const TopUser& b) {
    if (!sort_by_name && a.seconds != b.seconds) return a.seconds > b.seconds;
    return a.user < b.user;
  });
  return out;
}

std::vector<SizeBucket> SizeBuckets(const std::vector<std::string>& grouping, bool individual,
                                    const std::vector<uint32_t>& job_cpus) {
  std::vector<SizeBucket> out;
  if (individual) {
    std::vector<uint32_t> sizes = job_cpus;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (uint32_t size : sizes) out.push_back({size, size, std::to_string(size), 0});
    return out;
  }
  const std::vector<std::string> items =
      grouping.empty() ? std::vector<std::string>{"50", "250", "500", "1000"} : grouping;
  uint32_t last = 0;
  int last_width = 0;
  for (const std::string& item : items) {
    const uint32_t size = LeadingNumber(item);
    const uint32_t max = size - 1;  // wraps for 0, as Slurm's unsigned arithmetic does
    out.push_back({last, max, std::to_string(last) + "-" + std::to_string(max), ItemWidth(item)});
    last = size;
    last_width = ItemWidth(item);
  }
  if (last != 0) out.push_back({last, 0xFFFFFFFFu, ">= " + std::to_string(last), last_width});
  return out;
}

JobSizes ComputeJobSizes(const AccountTree& tree, const std::vector<UsageJob>& jobs,
                         const UsagePeriod& period, const std::vector<SizeBucket>& buckets,
                         const JobSizesOptions& options) {
  // The groups of the hierarchical view, in tree order.
  std::vector<std::string> groups;
  if (!options.flat_view) {
    std::vector<std::string> listed;
    const std::vector<std::string> asked =
        options.accounts.empty() ? std::vector<std::string>{"root"} : options.accounts;
    for (const std::string& account : tree.TreeOrder()) {
      if (SreportUsageListedIgnoreCase(asked, account)) listed.push_back(account);
    }
    if (options.acct_as_parent) {
      for (const std::string& account : tree.TreeOrder()) {
        if (SreportUsageListedIgnoreCase(listed, tree.Parent(account))) groups.push_back(account);
      }
    } else {
      groups = listed;
    }
  }
  std::map<std::string, JobSizesLine> lines;
  JobSizes out;
  for (const UsageJob& job : jobs) {
    const int64_t run = RunSecondsIn(job, period.start, period.counted_end());
    if (run <= 0) continue;
    std::string name;
    if (options.flat_view) {
      name = job.account + (options.wckey_suffix ? ":" : "");
    } else {
      const bool associated = tree.JobAssociation(job.user, job.account, job.partition) != nullptr;
      auto group = std::find_if(groups.begin(), groups.end(), [&](const std::string& g) {
        return associated ? tree.Within(job.account, g) : job.account == g;
      });
      if (group == groups.end()) continue;
      name = *group;
    }
    JobSizesLine& line = lines[name];
    if (line.seconds.empty()) {
      line.account = name;
      line.seconds.assign(buckets.size(), 0);
      line.jobs.assign(buckets.size(), 0);
    }
    const uint64_t seconds = static_cast<uint64_t>(run) * job.cpus;
    for (size_t i = 0; i < buckets.size(); ++i) {
      if (job.cpus < buckets[i].min || job.cpus > buckets[i].max) continue;
      line.seconds[i] += seconds;
      line.jobs[i] += 1;
      line.total_seconds += seconds;
      line.total_jobs += 1;
      out.cluster_seconds += seconds;
      out.cluster_jobs += 1;
    }
  }
  for (auto& [name, line] : lines) {
    if (line.total_jobs > 0) out.lines.push_back(std::move(line));
  }
  auto key = [](const std::string& name) { return name.substr(0, name.find(':')); };
  std::stable_sort(out.lines.begin(), out.lines.end(),
                   [&](const JobSizesLine& a, const JobSizesLine& b) {
                     return key(a.account) < key(b.account);
                   });
  return out;
}

}  // namespace gantry::slurm
