// sreport's pieces: option and condition reading, the period, the usage arithmetic, the report
// layouts. Whole command runs against Slurm's own output are in commands_golden_test.cc
// (SreportMatchesTheReference).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/job_state.h"
#include "model/node_state.h"
#include "slurm/sreport_options.h"
#include "slurm/sreport_render.h"
#include "slurm/sreport_reports.h"
#include "slurm/sreport_usage.h"
#include "slurm_view/anchor_records_test_util.h"

namespace gantry::slurm {
namespace {

using testing::At;
using ::testing::ElementsAre;

// Times of 2026-12-03 (UTC).
UnixTime T(const std::string& hms) { return At("2026-12-03T" + hms); }

const UnixTime kNow = T("17:50:00");

// A job record as the controller keeps it.
class JobRecord {
 public:
  JobRecord(uint32_t id, const std::string& user, const std::string& account) {
    job_.set_job_id(id);
    job_.set_user_name(user);
    job_.set_user_id(user == "root" ? 0 : 1000 + id % 7);
    job_.set_group_id(job_.user_id());
    job_.mutable_request()->set_account(account);
    job_.set_partition("a4");
    job_.set_state(static_cast<uint32_t>(model::JobBaseState::kPending));
  }
  JobRecord& Partition(const std::string& p) {
    job_.set_partition(p);
    return *this;
  }
  JobRecord& Requested(uint32_t cpus) {
    job_.mutable_request()->set_num_tasks(cpus);
    return *this;
  }
  JobRecord& Eligible(UnixTime t) {
    job_.set_submit_time(t);
    job_.set_eligible_time(t);
    return *this;
  }
  // Ran with `cpus` CPUs from `start`, until `end` (0: still running).
  JobRecord& Ran(uint32_t cpus, UnixTime start, UnixTime end) {
    if (job_.submit_time() == 0) Eligible(start);
    job_.set_num_cpus(cpus);
    job_.set_start_time(start);
    job_.set_end_time(end);
    job_.add_nodes("n1");
    State(end == 0 ? model::JobBaseState::kRunning : model::JobBaseState::kCompleted);
    return *this;
  }
  JobRecord& State(model::JobBaseState s) {
    job_.set_state(static_cast<uint32_t>(s));
    return *this;
  }
  JobRecord& Suspension(int64_t pre_suspend_secs, UnixTime suspend_time) {
    job_.set_pre_suspend_secs(pre_suspend_secs);
    job_.set_suspend_time(suspend_time);
    return *this;
  }
  const v1::Job& job() const { return job_; }
  UsageJob usage() const { return ToUsageJob(job_, kNow); }

 private:
  v1::Job job_;
};

// root -> {prod -> {}, research -> {vision}}; users: root (root), alice (research, two
// partitions), bob (prod), carol (vision).
v1::AccountingDb Accounting() {
  v1::AccountingDb db;
  for (auto [name, parent] : std::vector<std::pair<const char*, const char*>>{
           {"root", ""}, {"prod", "root"}, {"research", "root"}, {"vision", "research"}}) {
    v1::Account* a = db.add_accounts();
    a->set_name(name);
    a->set_parent(parent);
  }
  struct A {
    uint32_t id;
    const char* account;
    const char* user;
    const char* partition;
  };
  for (const A& a :
       {A{1, "root", "", ""}, A{2, "root", "root", ""}, A{3, "research", "", ""},
        A{4, "prod", "", ""}, A{5, "research", "alice", "a4"}, A{6, "prod", "bob", ""},
        A{7, "research", "alice", "high"}, A{8, "vision", "", ""}, A{9, "vision", "carol", ""}}) {
    v1::Association* out = db.add_associations();
    out->set_id(a.id);
    out->set_account(a.account);
    out->set_user(a.user);
    out->set_partition(a.partition);
  }
  return db;
}

// ---- options and conditions ----------------------------------------------------------------

TEST(SreportOptionsTest, TimeFormatsAreReadAsSreportAbbreviatesThem) {
  struct Case {
    const char* text;
    std::optional<SreportTime> want;
  };
  const Case cases[] = {
      {"hours", SreportTime::kHours},
      {"h", SreportTime::kHours},
      {"Minutes", SreportTime::kMinutes},
      {"s", SreportTime::kSeconds},
      {"percent", SreportTime::kPercent},
      {"p", SreportTime::kPercent},
      {"hourper", SreportTime::kHoursPercent},
      {"HourPer", SreportTime::kHoursPercent},
      {"minper", SreportTime::kMinutesPercent},
      {"secper", SreportTime::kSecondsPercent},
      {"hourp", std::nullopt},
      {"minp", std::nullopt},
      {"bogus", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(ParseSreportTime(c.text), c.want) << c.text;
}

TEST(SreportOptionsTest, ReportWordsMatchOnTheirFirstCharacters) {
  using R = SreportReport;
  struct Case {
    const char* type;
    const char* word;
    std::optional<R> want;
  };
  const Case cases[] = {
      {"cluster", "utilization", R::kClusterUtilization},
      {"cluster", "ut", R::kClusterUtilization},
      {"cluster", "utterly", R::kClusterUtilization},  // two characters are compared
      {"cluster", "u", std::nullopt},
      {"cluster", "AccountUtilizationByUser", R::kClusterAccountByUser},
      {"cluster", "aubu", R::kClusterAccountByUser},
      {"cluster", "ua", R::kClusterUserByAccount},
      {"cluster", "UserUtilizationByAccount", R::kClusterUserByAccount},
      {"cluster", "uw", R::kClusterUserByWckey},
      {"cluster", "wckeyutilizationbyuser", R::kClusterWckeyByUser},
      {"cluster", "bogus", std::nullopt},
      {"user", "top", R::kUserTop},
      {"user", "t", R::kUserTop},
      {"user", "x", std::nullopt},
      {"job", "sizes", R::kJobSizesByAccount},
      {"job", "SizesByAccount", R::kJobSizesByAccount},
      {"job", "sizesbyw", R::kJobSizesByWckey},
      {"job", "SizesByAccountAndWckey", R::kJobSizesByAccountAndWckey},
      {"job", "sizesx", std::nullopt},
      {"reservation", "utilization", R::kReservationUtilization},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FindSreportReport(c.type, c.word), c.want) << c.type << " " << c.word;
  }
}

TEST(SreportOptionsTest, PeriodDefaultsToYesterdayAndRoundsToWholeHours) {
  const TimeZone& utc = TimeZone::Utc();
  struct Case {
    std::optional<UnixTime> start;
    std::optional<UnixTime> end;
    UnixTime want_start;
    UnixTime want_end;
  };
  const Case cases[] = {
      {std::nullopt, std::nullopt, At("2026-12-02T00:00:00"), At("2026-12-03T00:00:00")},
      {T("07:00:00"), T("10:00:00"), T("07:00:00"), T("10:00:00")},
      {T("07:29:29"), T("10:29:30"), T("07:00:00"), T("11:00:00")},  // :29:30 counts as :30
      {T("07:30:00"), T("10:45:00"), T("08:00:00"), T("11:00:00")},
      {T("09:00:00"), T("08:00:00"), T("09:00:00"), T("10:00:00")},  // at least an hour
      {T("07:00:00"), std::nullopt, T("07:00:00"), T("08:00:00")},   // today 00:00 is earlier
  };
  for (const Case& c : cases) {
    const SreportPeriod p = ResolveSreportPeriod(c.start, c.end, kNow, utc);
    EXPECT_EQ(p.start, c.want_start);
    EXPECT_EQ(p.end, c.want_end);
  }
}

SreportConditionsParse Parse(SreportReport report, const std::vector<std::string>& words) {
  auto uid_of = [](std::string_view name) -> std::optional<uint32_t> {
    if (name == "alice") return 1001;
    return std::nullopt;
  };
  return ParseSreportConditions(report, words, kNow, TimeZone::Utc(), uid_of);
}

TEST(SreportOptionsTest, ConditionsUseEachReportTypesKeys) {
  SreportConditionsParse p = Parse(SreportReport::kClusterAccountByUser,
                                   {"start=2026-12-03T07:00", "end=now+2hours", "Tree", "alice",
                                    "acct=research,RESEARCH,prod", "clusters=anchor", "fo=used%9"});
  EXPECT_FALSE(p.failed) << p.errors;
  EXPECT_EQ(p.conditions.start, T("07:00:00"));
  EXPECT_EQ(p.conditions.end, kNow);  // never after now
  EXPECT_TRUE(p.conditions.tree);
  EXPECT_THAT(p.conditions.users, ElementsAre("alice"));
  EXPECT_THAT(p.conditions.accounts, ElementsAre("research", "prod"));
  EXPECT_THAT(p.conditions.clusters, ElementsAre("anchor"));
  EXPECT_THAT(p.conditions.format, ElementsAre("used%9"));

  // A bare word is a cluster for the utilization report, "tr" is no Tree but a user.
  EXPECT_THAT(Parse(SreportReport::kClusterUtilization, {"other"}).conditions.clusters,
              ElementsAre("other"));
  EXPECT_THAT(Parse(SreportReport::kClusterAccountByUser, {"tr"}).conditions.users,
              ElementsAre("tr"));
  EXPECT_TRUE(Parse(SreportReport::kUserTop, {"g"}).conditions.group);
  EXPECT_TRUE(Parse(SreportReport::kClusterUtilization, {"all"}).conditions.all_clusters);
}

TEST(SreportOptionsTest, UnknownConditionsAndBadValuesAreReported) {
  SreportConditionsParse p = Parse(SreportReport::kClusterUtilization, {"foo=bar", "tree"});
  EXPECT_TRUE(p.failed);
  EXPECT_EQ(p.errors, " Unknown condition: foo=bar\nUse keyword set to modify value\n");
  EXPECT_EQ(p.conditions.clusters, std::vector<std::string>{"tree"});

  p = Parse(SreportReport::kClusterUserByWckey, {"x=1"});
  EXPECT_EQ(p.errors, " Unknown condition: x=1\n");  // the wckey reports add no hint

  p = Parse(SreportReport::kUserTop, {"topcount=abc"});
  EXPECT_TRUE(p.failed);
  EXPECT_EQ(p.errors, "sreport: error: Invalid value for TopCount (abc)\n");
  EXPECT_EQ(p.conditions.top_count, 10u);
  EXPECT_EQ(Parse(SreportReport::kUserTop, {"topcount=-1"}).conditions.top_count, 0xFFFFFFFFu);
  EXPECT_EQ(Parse(SreportReport::kUserTop, {"t=3x"}).conditions.top_count, 3u);

  p = Parse(SreportReport::kClusterUtilization, {"start=garbage"});
  EXPECT_FALSE(p.failed);  // sreport says so and uses its default
  EXPECT_EQ(p.errors, "Invalid time specification (pos=0): garbage\n");
  EXPECT_FALSE(p.conditions.start.has_value());
}

TEST(SreportOptionsTest, JobConditionsResolveUsersAndGroupings) {
  SreportConditionsParse p = Parse(SreportReport::kJobSizesByAccount,
                                   {"users=alice,nosuch,7", "grouping=5%20,10", "pr", "fl", "ac",
                                    "gid=12,x", "nodes=n[1-2]", "jobs=3,4", "partitions=high"});
  EXPECT_FALSE(p.failed);
  EXPECT_EQ(p.errors, "sreport: error: Invalid user id: nosuch\n");
  EXPECT_THAT(p.conditions.user_ids, ElementsAre(1001u, 7u));
  EXPECT_TRUE(p.conditions.users_given);
  EXPECT_THAT(p.conditions.grouping, ElementsAre("5%20", "10"));
  EXPECT_TRUE(p.conditions.print_job_count);
  EXPECT_TRUE(p.conditions.flat_view);
  EXPECT_TRUE(p.conditions.acct_as_parent);
  EXPECT_THAT(p.conditions.group_ids, ElementsAre(12u, 0u));  // atoi, as Slurm reads them
  EXPECT_THAT(p.conditions.nodes, ElementsAre("n1", "n2"));
  EXPECT_THAT(p.conditions.job_ids, ElementsAre(3u, 4u));
  EXPECT_THAT(p.conditions.partitions, ElementsAre("high"));
  EXPECT_TRUE(Parse(SreportReport::kJobSizesByAccount, {"grouping=Ind"}).conditions.individual);

  p = Parse(SreportReport::kJobSizesByAccount, {"nodes=a", "nodes=b"});
  EXPECT_TRUE(p.failed);
  EXPECT_EQ(p.errors,
            "sreport: error: You already specified nodes 'a'  combine your request into 1 "
            "nodes=.\n");
}

// ---- rendering -----------------------------------------------------------------------------

TEST(SreportRenderTest, UsageValuesInEachUnit) {
  struct Case {
    uint64_t value;
    uint64_t total;
    SreportTime format;
    const char* want;
  };
  const Case cases[] = {
      {4234, 2764800, SreportTime::kSeconds, "4234"},
      {4234, 2764800, SreportTime::kMinutes, "71"},
      {90, 1, SreportTime::kMinutes, "2"},   // 1.5 rounds to even
      {150, 1, SreportTime::kMinutes, "2"},  // 2.5 rounds to even
      {4234, 2764800, SreportTime::kHours, "1"},
      {4234, 2764800, SreportTime::kPercent, "0.15%"},
      {5, 0, SreportTime::kPercent, "500.00%"},  // a total of 0 counts as 1
      {4234, 2764800, SreportTime::kSecondsPercent, "4234(0.15%)"},
      {4234, 2764800, SreportTime::kMinutesPercent, "71(0.15%)"},
      {2764800, 2764800, SreportTime::kHoursPercent, "768(100.00%)"},
  };
  for (const Case& c : cases) EXPECT_EQ(FormatUsage(c.value, c.total, c.format), c.want);
}

TEST(SreportRenderTest, UsageColumnsGrowWithTheLargestValue) {
  EXPECT_EQ(UsageColumnWidth(0, SreportTime::kMinutes), 8);
  EXPECT_EQ(UsageColumnWidth(99999999, SreportTime::kMinutes), 8);
  EXPECT_EQ(UsageColumnWidth(100000000, SreportTime::kMinutes), 9);
  EXPECT_EQ(UsageColumnWidth(12345678901, SreportTime::kSeconds), 11);
  EXPECT_EQ(UsageColumnWidth(0, SreportTime::kHoursPercent), 17);
}

TEST(SreportRenderTest, TablesCutTextWithAPlusAndParsableFormsDoNot) {
  const std::vector<SreportColumn> columns = {{"Account", 5, CellKind::kText},
                                              {"Login", -8, CellKind::kText},
                                              {"Used", 3, CellKind::kNumber}};
  const SreportTable table(columns, SreportLayout::kTable);
  EXPECT_EQ(table.Header(), "Accou Login    Use \n----- -------- --- \n");
  EXPECT_EQ(table.Row({"research", "alice", "12345"}), "rese+ alice    123 \n");
  EXPECT_EQ(SreportTable(columns, SreportLayout::kParsable).Row({"research", "alice", "12345"}),
            "research|alice|12345|\n");
  EXPECT_EQ(SreportTable(columns, SreportLayout::kParsable2).Header(), "Account|Login|Used\n");
  EXPECT_EQ(SreportTable({}, SreportLayout::kTable).Header(), "\n\n");
}

// ---- usage ---------------------------------------------------------------------------------

TEST(SreportUsageTest, JobsCountTheirRunAndTheirWait) {
  // Ran 10:00-10:30 after waiting from 09:50 for 2 CPUs.
  UsageJob done = JobRecord(1, "alice", "research")
                      .Requested(2)
                      .Eligible(T("09:50:00"))
                      .Ran(4, T("10:00:00"), T("10:30:00"))
                      .usage();
  EXPECT_EQ(CpuSecondsIn(done, T("10:00:00"), T("11:00:00")), 4u * 1800);
  EXPECT_EQ(CpuSecondsIn(done, T("10:20:00"), T("11:00:00")), 4u * 600);
  EXPECT_EQ(OverlapSeconds(done.waiting, T("09:00:00"), T("10:00:00")), 600);
  EXPECT_EQ(done.requested_cpus, 2u);

  // Still running: counted up to now.
  UsageJob running = JobRecord(2, "bob", "prod").Ran(1, T("17:00:00"), 0).usage();
  EXPECT_EQ(RunSecondsIn(running, T("17:00:00"), T("18:00:00")), 3000);

  // Ran 100 s, was suspended, resumed at 10:10 and ended at 10:20: the pause does not count.
  UsageJob resumed = JobRecord(3, "bob", "prod")
                         .Ran(1, T("10:00:00"), T("10:20:00"))
                         .Suspension(100, T("10:10:00"))
                         .usage();
  EXPECT_EQ(RunSecondsIn(resumed, T("10:00:00"), T("11:00:00")), 100 + 600);

  // Suspended now after 300 s of run.
  UsageJob suspended = JobRecord(4, "bob", "prod")
                           .Ran(1, T("10:00:00"), 0)
                           .State(model::JobBaseState::kSuspended)
                           .Suspension(300, T("10:05:00"))
                           .usage();
  EXPECT_EQ(RunSecondsIn(suspended, T("10:00:00"), T("18:00:00")), 300);

  // Pending since 17:40; cancelled while pending at 17:45.
  UsageJob pending = JobRecord(5, "bob", "prod").Requested(3).Eligible(T("17:40:00")).usage();
  EXPECT_EQ(RunSecondsIn(pending, T("17:00:00"), T("18:00:00")), 0);
  EXPECT_EQ(OverlapSeconds(pending.waiting, T("17:00:00"), T("18:00:00")), 600);
  JobRecord cancelled = JobRecord(6, "bob", "prod").Requested(3).Eligible(T("17:40:00"));
  v1::Job job = cancelled.job();
  job.set_state(static_cast<uint32_t>(model::JobBaseState::kCancelled));
  job.set_end_time(T("17:45:00"));
  EXPECT_EQ(OverlapSeconds(ToUsageJob(job, kNow).waiting, T("17:00:00"), T("18:00:00")), 300);
}

ClusterInfo Cluster(uint32_t nodes, uint32_t cpus_each, UnixTime since) {
  ClusterInfo c;
  c.name = "anchor";
  c.since = since;
  for (uint32_t i = 0; i < nodes; ++i) {
    v1::Node n;
    n.set_name("n" + std::to_string(i + 1));
    n.set_cpus(cpus_each);
    n.set_state(static_cast<uint32_t>(model::NodeBaseState::kIdle));
    c.nodes.push_back(n);
    c.cpus += cpus_each;
  }
  return c;
}

TEST(SreportUsageTest, ClusterTimeAddsUpToWhatTheClusterReported) {
  ClusterInfo cluster = Cluster(2, 8, T("06:00:00"));
  // n2 drained at 10:30.
  cluster.nodes[1].set_state_flags(static_cast<uint32_t>(model::NodeFlag::kDrain));
  cluster.nodes[1].set_reason_time(T("10:30:00"));
  const std::vector<UsageJob> jobs = {
      JobRecord(1, "alice", "research").Ran(8, T("10:00:00"), T("10:15:00")).usage(),
      JobRecord(2, "bob", "prod").Requested(4).Eligible(T("10:50:00")).usage(),
  };
  const ClusterUsage u = ComputeClusterUsage(cluster, jobs, {T("10:00:00"), T("11:00:00"), kNow});
  ASSERT_TRUE(u.reported);
  EXPECT_EQ(u.cpu_count, 16u);
  EXPECT_EQ(u.allocated, 8u * 900);
  EXPECT_EQ(u.down, 8u * 1800);
  EXPECT_EQ(u.planned, 4u * 600);
  EXPECT_EQ(u.reported_seconds, 16u * 3600);
  EXPECT_EQ(u.idle, 16u * 3600 - 8 * 900 - 8 * 1800 - 4 * 600);

  // Before the cluster began, and in the future, nothing is reported.
  EXPECT_FALSE(ComputeClusterUsage(cluster, jobs, {T("04:00:00"), T("05:00:00"), kNow}).reported);
  EXPECT_FALSE(ComputeClusterUsage(cluster, jobs, {T("18:00:00"), T("19:00:00"), kNow}).reported);
  // A cluster that began at 06:30 reports half of the 06:00 hour.
  cluster.since = T("06:30:00");
  EXPECT_EQ(ComputeClusterUsage(cluster, {}, {T("06:00:00"), T("07:00:00"), kNow}).reported_seconds,
            16u * 1800);
}

TEST(SreportUsageTest, PlannedAndDownTimeNeverExceedTheIdleTime) {
  const ClusterInfo cluster = Cluster(1, 4, 0);
  const std::vector<UsageJob> jobs = {
      JobRecord(1, "alice", "research").Ran(4, T("10:00:00"), T("10:30:00")).usage(),
      JobRecord(2, "bob", "prod").Requested(64).Eligible(T("09:00:00")).usage(),
  };
  const ClusterUsage u = ComputeClusterUsage(cluster, jobs, {T("10:00:00"), T("11:00:00"), kNow});
  EXPECT_EQ(u.allocated, 4u * 1800);
  EXPECT_EQ(u.planned, 4u * 1800);
  EXPECT_EQ(u.idle, 0u);
}

std::vector<UsageJob> TreeJobs() {
  return {
      JobRecord(1, "alice", "research").Ran(1, T("10:00:00"), T("10:01:00")).usage(),
      JobRecord(2, "alice", "research")
          .Partition("high")
          .Ran(2, T("10:00:00"), T("10:01:00"))
          .usage(),
      JobRecord(3, "bob", "prod").Ran(4, T("10:00:00"), T("10:10:00")).usage(),
      JobRecord(4, "carol", "vision").Ran(1, T("10:00:00"), T("10:00:30")).usage(),
      JobRecord(5, "root", "root").Ran(1, T("10:00:00"), T("10:00:10")).usage(),
      JobRecord(6, "dave", "research").Ran(8, T("10:00:00"), T("10:30:00")).usage(),  // no assoc
  };
}

std::vector<std::string> Describe(const std::vector<AccountUserLine>& lines) {
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const AccountUserLine& l : lines) {
    out.push_back(l.account + "/" + l.user + "=" + std::to_string(l.seconds));
  }
  return out;
}

TEST(SreportUsageTest, AccountLinesListUsersBeforeSubAccounts) {
  const v1::AccountingDb db = Accounting();
  const AccountTree tree(db);
  const auto usage = UsageByAssociation(tree, TreeJobs(), {T("10:00:00"), T("11:00:00"), kNow});
  EXPECT_THAT(
      Describe(AccountUserLines(tree, usage, {}, {})),
      ElementsAre("root/=2620", "root/root=10", "prod/=2400", "prod/bob=2400", "research/=210",
                  "research/alice=120", "research/alice=60", "vision/=30", "vision/carol=30"));
  // accounts= keeps those accounts and what is below them; users= only users' lines.
  EXPECT_THAT(Describe(AccountUserLines(tree, usage, {"RESEARCH"}, {})),
              ElementsAre("research/=210", "research/alice=120", "research/alice=60", "vision/=30",
                          "vision/carol=30"));
  EXPECT_THAT(Describe(AccountUserLines(tree, usage, {}, {"carol", "bob"})),
              ElementsAre("prod/bob=2400", "vision/carol=30"));
  EXPECT_THAT(
      Describe(UserAccountLines(tree, usage, {}, {})),
      ElementsAre("root/root=10", "prod/bob=2400", "research/alice=180", "vision/carol=30"));
}

TEST(SreportUsageTest, TopUsersSortByUsageOrName) {
  const v1::AccountingDb db = Accounting();
  const AccountTree tree(db);
  const auto usage = UsageByAssociation(tree, TreeJobs(), {T("10:00:00"), T("11:00:00"), kNow});
  auto describe = [](const std::vector<TopUser>& users) {
    std::vector<std::string> out;
    for (const TopUser& u : users) {
      std::string accounts;
      for (const std::string& a : u.accounts) accounts += a + ";";
      out.push_back(u.user + ":" + accounts + std::to_string(u.seconds));
    }
    return out;
  };
  EXPECT_THAT(describe(TopUsers(tree, usage, {}, {}, false, false)),
              ElementsAre("bob:prod;2400", "alice:research;120", "alice:research;60",
                          "carol:vision;30", "root:root;10"));
  EXPECT_THAT(
      describe(TopUsers(tree, usage, {}, {}, true, false)),
      ElementsAre("bob:prod;2400", "alice:research;180", "carol:vision;30", "root:root;10"));
  EXPECT_THAT(describe(TopUsers(tree, usage, {"vision", "root"}, {}, false, true)),
              ElementsAre("carol:vision;30", "root:root;10"));
}

TEST(SreportUsageTest, SizeBucketsFollowTheGroupingList) {
  auto labels = [](const std::vector<SizeBucket>& buckets) {
    std::vector<std::string> out;
    out.reserve(buckets.size());
    for (const SizeBucket& b : buckets) out.push_back(b.label);
    return out;
  };
  EXPECT_THAT(labels(SizeBuckets({}, false, {})),
              ElementsAre("0-49", "50-249", "250-499", "500-999", ">= 1000"));
  EXPECT_THAT(labels(SizeBuckets({"100", "10"}, false, {})), ElementsAre("0-99", "100-9", ">= 10"));
  EXPECT_THAT(labels(SizeBuckets({"abc"}, false, {})), ElementsAre("0-4294967295"));
  EXPECT_THAT(labels(SizeBuckets({}, true, {4, 1, 4, 256})), ElementsAre("1", "4", "256"));
  const std::vector<SizeBucket> wide = SizeBuckets({"5%20"}, false, {});
  ASSERT_EQ(wide.size(), 2u);
  EXPECT_EQ(wide[0].width, 20);
  EXPECT_EQ(wide[1].width, 20);
}

TEST(SreportUsageTest, JobSizesGroupByTopAccountsSubAccountsOrEachAccount) {
  const v1::AccountingDb db = Accounting();
  const AccountTree tree(db);
  const std::vector<UsageJob> jobs = TreeJobs();
  const UsagePeriod period{T("10:00:00"), T("11:00:00"), kNow};
  const std::vector<SizeBucket> buckets = SizeBuckets({"2", "4"}, false, {});
  auto describe = [](const JobSizes& sizes) {
    std::vector<std::string> out;
    for (const JobSizesLine& l : sizes.lines) {
      std::string cells;
      for (uint64_t s : l.seconds) cells += " " + std::to_string(s);
      out.push_back(l.account + cells);
    }
    return out;
  };
  // Everything under root in one line (dave has no association: his job counts only for a group
  // named like its account).
  EXPECT_THAT(describe(ComputeJobSizes(tree, jobs, period, buckets, {})),
              ElementsAre("root 100 120 2400"));
  JobSizesOptions parent;
  parent.acct_as_parent = true;
  EXPECT_THAT(describe(ComputeJobSizes(tree, jobs, period, buckets, parent)),
              ElementsAre("prod 0 0 2400", "research 90 120 14400"));
  JobSizesOptions flat;
  flat.flat_view = true;
  const JobSizes by_account = ComputeJobSizes(tree, jobs, period, buckets, flat);
  EXPECT_THAT(describe(by_account), ElementsAre("prod 0 0 2400", "research 60 120 14400",
                                                "root 10 0 0", "vision 30 0 0"));
  EXPECT_EQ(by_account.cluster_seconds, 10u + 60 + 120 + 2400 + 14400 + 30);
  EXPECT_EQ(by_account.cluster_jobs, 6u);
}

// ---- whole reports -------------------------------------------------------------------------

TEST(SreportReportsTest, UtilizationOfASmallCluster) {
  SreportData data;
  data.now = kNow;
  data.cluster = Cluster(2, 4, T("09:00:00"));
  data.jobs = {JobRecord(1, "alice", "research").Ran(4, T("10:00:00"), T("10:01:30")).usage(),
               JobRecord(2, "bob", "prod").Ran(2, T("10:30:00"), T("10:32:30")).usage()};
  SreportConditions conditions;
  conditions.start = T("10:00:00");
  conditions.end = T("11:00:00");
  SreportSettings settings;
  SreportOutput out = BuildSreportReport(SreportReport::kClusterUtilization, conditions, settings,
                                         data, TimeZone::Utc(), nullptr);
  EXPECT_EQ(out.out,
            "--------------------------------------------------------------------------------\n"
            "Cluster Utilization 2026-12-03T10:00:00 - 2026-12-03T10:59:59\n"
            "Usage reported in CPU Minutes\n"
            "--------------------------------------------------------------------------------\n"
            "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported \n"
            "--------- -------- -------- -------- -------- -------- -------- \n"
            "   anchor       11        0        0      469        0      480 \n");
  settings.header = false;
  settings.time = SreportTime::kSeconds;
  settings.layout = SreportLayout::kParsable2;
  out = BuildSreportReport(SreportReport::kClusterUtilization, conditions, settings, data,
                           TimeZone::Utc(), nullptr);
  EXPECT_EQ(out.out, "anchor|660|0|0|28140|0|28800\n");
}

}  // namespace
}  // namespace gantry::slurm
