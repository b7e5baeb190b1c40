// The sacct listing against the real thing: job records that mirror eleven jobs run on the Slurm
// 22.05 reference cluster (2026-12-03, UTC; ok, bad-exit, to-cancel, timeout, killed, long-run,
// held, pend-cancel, two-nodes, gpu, mem8g) are rendered and compared with what the real sacct
// printed for them (tests/golden/cmd-anchor-sacct.txt, one "== <name>" section per command),
// followed by table-driven cases for parsing, the time window and selection.
#include "slurm/sacct_format.h"

#include <gtest/gtest.h>

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "slurm_view/anchor_records_test_util.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using model::JobBaseState;
using testing::At;

constexpr uint32_t kUnlimited = 0xFFFFFFFFu;
// When the sections were captured.
const UnixTime kNow = At("2026-12-03T06:59:57");

struct Spec {
  uint32_t id;
  const char* name;
  uint32_t uid;
  JobBaseState state;
  int32_t exit_status;  // raw wait status, -1 = none
  const char* eligible;
  const char* start;
  const char* end;
  uint32_t cpus;
  std::vector<std::string> nodes;
  uint32_t limit;  // minutes asked for; 0 = none
  uint32_t priority;
  const char* reason;
  std::optional<uint32_t> cancelled_by;
  const char* submit = "2026-12-03T06:48:19";
};

v1::Job Make(const Spec& s) {
  v1::Job job;
  job.set_job_id(s.id);
  v1::JobRequest* r = job.mutable_request();
  r->set_name(s.name);
  r->set_account(s.uid == 0 ? "root" : "research");
  r->set_qos("normal");
  r->add_partitions("a4");
  r->set_min_nodes(1);
  r->set_mem_per_cpu_mb(2000);
  r->set_work_dir("/tmp/sacct-anchor");
  r->set_time_limit_min(s.limit);
  job.set_user_id(s.uid);
  job.set_group_id(s.uid);
  job.set_user_name(s.uid == 0 ? "root" : "alice");
  job.set_group_name(s.uid == 0 ? "root" : "alice");
  job.set_state(static_cast<uint32_t>(s.state));
  job.set_batch_flag(true);
  job.set_exit_status(s.exit_status);
  job.set_submit_time(At(s.submit));
  if (*s.eligible) job.set_eligible_time(At(s.eligible));
  if (*s.start) {
    job.set_start_time(At(s.start));
    job.set_num_cpus(s.cpus);
    job.set_alloc_mem_mb(2000ull * s.cpus);
    job.set_time_limit_min(s.limit == 0 ? kUnlimited : s.limit);
  }
  if (*s.end) job.set_end_time(At(s.end));
  job.set_partition("a4");
  for (const std::string& n : s.nodes) job.add_nodes(n);
  job.set_priority(s.priority);
  job.set_reason(s.reason);
  if (s.cancelled_by) job.set_cancelled_by_uid(*s.cancelled_by);
  return job;
}

std::vector<v1::Job> AnchorJobs() {
  using S = JobBaseState;
  const char* t0 = "2026-12-03T06:48:19";
  const char* t1 = "2026-12-03T06:48:20";
  std::vector<v1::Job> jobs = {
      Make({26301, "ok", 1001, S::kCompleted, 0, t0, t0, t1, 1, {"gpu1"}, 0, 11127, "None", {}}),
      Make({26302,
            "bad-exit",
            1001,
            S::kFailed,
            3 << 8,
            t0,
            t0,
            t1,
            1,
            {"gpu1"},
            0,
            11127,
            "None",
            {}}),
      Make({26303,
            "to-cancel",
            1001,
            S::kCancelled,
            15,
            t0,
            t0,
            "2026-12-03T06:48:27",
            1,
            {"gpu1"},
            0,
            11127,
            "None",
            1001}),
      Make({26304,
            "timeout",
            1001,
            S::kTimeout,
            15,
            t0,
            t0,
            "2026-12-03T06:49:37",
            1,
            {"gpu1"},
            1,
            11127,
            "None",
            {}}),
      Make({26305, "killed", 1001, S::kFailed, 9, t0, t0, t1, 1, {"gpu1"}, 0, 11127, "None", {}}),
      Make({26306,
            "long-run",
            1001,
            S::kCompleted,
            0,
            t0,
            t0,
            "2026-12-03T06:58:20",
            1,
            {"gpu1"},
            0,
            11127,
            "None",
            {}}),
      Make({26307, "held", 1001, S::kPending, -1, "", "", "", 1, {}, 0, 0, "JobHeldUser", {}}),
      Make({26308,
            "pend-cancel",
            1001,
            S::kCancelled,
            -1,
            "2026-12-03T07:48:19",
            "",
            "2026-12-03T06:48:27",
            1,
            {},
            0,
            11127,
            "BeginTime",
            1001}),
      Make({26309,
            "two-nodes",
            0,
            S::kCompleted,
            0,
            t0,
            t0,
            "2026-12-03T06:48:22",
            2,
            {"gpu1", "gpu2"},
            0,
            2683,
            "None",
            {}}),
      Make({26310,
            "gpu",
            0,
            S::kCompleted,
            0,
            "2026-12-03T06:49:24",
            "2026-12-03T06:49:24",
            "2026-12-03T06:49:24",
            4,
            {"gpu1"},
            0,
            2564,
            "None",
            {},
            "2026-12-03T06:49:24"}),
      Make({26311,
            "mem8g",
            0,
            S::kCompleted,
            0,
            "2026-12-03T06:52:38",
            "2026-12-03T06:52:38",
            "2026-12-03T06:52:38",
            1,
            {"gpu1"},
            0,
            2557,
            "None",
            {},
            "2026-12-03T06:52:38"}),
  };
  jobs[8].mutable_request()->set_min_nodes(2);  // sbatch -N 2
  jobs[9].mutable_request()->set_num_tasks(4);  // sbatch -n 4 --gres=gpu:2
  jobs[9].mutable_request()->set_gres("gpu:2");
  jobs[10].mutable_request()->set_mem_per_cpu_mb(0);  // sbatch --mem=8G
  jobs[10].mutable_request()->set_mem_per_node_mb(8192);
  jobs[10].set_alloc_mem_mb(8192);
  return jobs;
}

// The text of one "== <name>" section of the reference file.
std::string Section(const std::string& name) {
  static const std::string text = ::gantry::testing::ReadGolden("cmd-anchor-sacct.txt");
  const std::string marker = "== " + name + "\n";
  const size_t start = text.find(marker);
  if (start == std::string::npos) return "missing section " + name;
  const size_t body = start + marker.size();
  const size_t end = text.find("\n== ", body);
  return text.substr(body, end == std::string::npos ? std::string::npos : end + 1 - body);
}

SacctPrintContext PrintContext(bool no_convert = false) {
  SacctPrintContext ctx;
  ctx.now = kNow;
  ctx.tz = &TimeZone::Utc();
  ctx.no_convert = no_convert;
  ctx.cluster = "anchor";
  return ctx;
}

std::string Render(const std::vector<v1::Job>& jobs, const SacctFilter& filter,
                   std::string_view fields, SacctLayout layout, bool no_convert = false) {
  const SacctFormat format = ParseSacctFormat(fields);
  EXPECT_EQ(format.error, "");
  const SacctOutput output{layout, "|"};
  std::string out = RenderSacctHeader(format.columns, output);
  for (const SacctRow& row : SelectSacctRows(jobs, filter)) {
    out += RenderSacctLine(format.columns, row, PrintContext(no_convert), output);
  }
  return out;
}

SacctFilter ByIds(std::vector<uint32_t> ids) {
  SacctFilter f;
  f.jobs_given = true;
  f.window = {0, kNow};
  for (uint32_t id : ids) f.jobs.push_back({id, SacctJobSelector::Part::kJob, {}});
  return f;
}

constexpr char kL1[] =
    "JobID,JobIDRaw,JobName,Partition,Account,AllocCPUS,State,ExitCode,Elapsed,ElapsedRaw,Start,"
    "End,Submit,Eligible";
constexpr char kL2[] =
    "JobID,User,UID,Group,GID,NodeList,NNodes,NCPUS,Timelimit,TimelimitRaw,WorkDir,Reason,"
    "Priority,QOS,Comment,ReqCPUS,ReqMem,ReqNodes,Cluster,DerivedExitCode,AllocTRES,ReqTRES,"
    "AllocNodes,CPUTime,CPUTimeRAW,Suspended,NTasks,Layout";

TEST(SacctAnchorTest, ListingsMatchSlurm) {
  struct Case {
    const char* section;
    const char* fields;
    SacctLayout layout;
    bool no_convert;
  };
  const Case cases[] = {
      {"L1 -P", kL1, SacctLayout::kParsable2, false},
      {"L1", kL1, SacctLayout::kFixed, false},
      {"L2 -p", kL2, SacctLayout::kParsable, false},
      {"L2", kL2, SacctLayout::kFixed, false},
      {"default", kSacctDefaultFields, SacctLayout::kFixed, false},
      {"brief", kSacctBriefFields, SacctLayout::kFixed, false},
      {"noconvert", "JobID,ReqMem,AllocTRES,ReqTRES", SacctLayout::kParsable2, true},
  };
  const std::vector<v1::Job> jobs = AnchorJobs();
  const SacctFilter all =
      ByIds({26301, 26302, 26303, 26304, 26305, 26306, 26307, 26308, 26309, 26310, 26311});
  for (const Case& c : cases) {
    EXPECT_EQ(Render(jobs, all, c.fields, c.layout, c.no_convert), Section(c.section)) << c.section;
  }
}

TEST(SacctAnchorTest, WidthsMatchSlurm) {
  struct Case {
    const char* section;
    std::vector<uint32_t> ids;
    const char* fields;
  };
  const Case cases[] = {
      {"widths", {26303}, "jobid%5,jobname%-15,state%20,exitcode%3"},
      {"zero widths",
       {26301, 26307},
       "start%10,end%5,submit%0,elapsed%3,jobid%3,alloccpus%0,priority%-8,nodelist%4"},
      {"repeated field", {26303}, "jobid%-5,jobidraw%30,JOBID"},
  };
  const std::vector<v1::Job> jobs = AnchorJobs();
  for (const Case& c : cases) {
    EXPECT_EQ(Render(jobs, ByIds(c.ids), c.fields, SacctLayout::kFixed), Section(c.section))
        << c.section;
  }
}

TEST(SacctFormatTest, HelpFormatMatchesSlurm) {
  EXPECT_EQ(SacctHelpFormat(), Section("helpformat"));
  EXPECT_EQ(SacctFields().size(), 109u);
}

TEST(SacctFormatTest, ParsesFieldLists) {
  struct Case {
    const char* list;
    std::string want;  // "Name:width ..." or the error line
  };
  const Case cases[] = {
      {"jobid,jobname", "JobID:-12 JobName:10"},
      {"JOBID,State", "JobID:-12 State:10"},
      {"st,Alloc,jobn", "Start:19 AllocCPUS:10 JobName:10"},  // first prefix match in table order
      {"jobid%5,jobid", "JobID:5 JobID:5"},                   // the width belongs to the field
      {"jobname%-15,state%0", "JobName:-15 State:0"},
      {"jobid%abc", "JobID:0"},
      {" jobid, state", "JobID:-12 State:10"},
      {"jobid,,state", "JobID:-12"},  // Slurm's parser stops at an empty item
      {"jobid", "JobID:-12"},         // the trailing ',' is optional
      {"foo", "sacct: error: Invalid field requested: \"foo\""},
      {"jobid,foo%5,bar", "sacct: error: Invalid field requested: \"foo\""},
      {"jobid ", "sacct: error: Invalid field requested: \"jobid \""},
      {"Restarts", "sacct: error: Invalid field requested: \"Restarts\""},  // not in 22.05
      {"allocgres", "sacct: fatal: AllocGRES has been removed, please use AllocTRES"},
      {"ReqGRES", "sacct: fatal: ReqGRES has been removed, please use ReqTRES"},
  };
  for (const Case& c : cases) {
    const SacctFormat f = ParseSacctFormat(c.list);
    std::string got = f.error;
    for (const SacctColumn& col : f.columns) {
      got +=
          (got.empty() ? "" : " ") + std::string(col.field->name) + ":" + std::to_string(col.width);
    }
    EXPECT_EQ(got, c.want) << c.list;
  }
  // "ALL" (or a prefix of it, or an empty name with a width) lists every field.
  EXPECT_EQ(ParseSacctFormat("all").columns.size(), 109u);
  EXPECT_EQ(ParseSacctFormat("a").columns.size(), 109u);
  const SacctFormat five = ParseSacctFormat("%5");
  ASSERT_EQ(five.columns.size(), 109u);
  EXPECT_EQ(five.columns[0].width, 5);
}

TEST(SacctFormatTest, ParsesJobLists) {
  using P = SacctJobSelector::Part;
  struct Case {
    const char* text;
    std::vector<SacctJobSelector> want;
    const char* error;
  };
  const Case cases[] = {
      {"12", {{12, P::kJob, {}}}, ""},
      {"12,13.batch,,14.0", {{12, P::kJob, {}}, {13, P::kBatch, {}}, {14, P::kStep, {}}}, ""},
      {"12.extern,12.9999999999", {{12, P::kNone, {}}, {12, P::kNone, {}}}, ""},
      {"12_3,12+0,12_3.batch,12_3.0",
       {{12, P::kJob, 3}, {12, P::kNone, {}}, {12, P::kBatch, 3}, {12, P::kStep, 3}},
       ""},
      {"1_2_3", {{1, P::kNone, {}}}, ""},  // Slurm reads the leading digits
      {"12_x", {}, "Bad job/step specified: 12_x"},
      {"4294967295", {{4294967295u, P::kJob, {}}}, ""},
      {"", {}, ""},
      {"abc", {}, "Bad job/step specified: abc"},
      {"12,abc,13", {}, "Bad job/step specified: abc"},
      {"-5", {}, "Bad job/step specified: -5"},
      {"4294967296", {}, "Bad job/step specified: 4294967296"},
      {"12.foo", {}, "Bad step specified: 12"},
      {"12.batch.x", {}, "Bad step specified: 12"},
      {"12.-1", {}, "Bad step specified: 12"},
      {"12+", {}, "Bad hetjob offset specified: 12"},
  };
  for (const Case& c : cases) {
    Result<std::vector<SacctJobSelector>> got = ParseSacctJobList(c.text);
    if (*c.error) {
      ASSERT_FALSE(got.ok()) << c.text;
      EXPECT_EQ(got.status().message(), c.error) << c.text;
    } else {
      ASSERT_TRUE(got.ok()) << c.text << ": " << got.status().message();
      EXPECT_EQ(*got, c.want) << c.text;
    }
  }
}

TEST(SacctFormatTest, ParsesStates) {
  struct Case {
    const char* text;
    size_t count;
    const char* error;
  };
  const Case cases[] = {
      {"CA,cd,Failed,TO,NF,PD,R,OOM", 8, ""},
      {"r,R,running", 1, ""},  // duplicates collapse
      {",R", 1, ""},
      {"", 0, ""},
      {"requeued,RS", 2, ""},
      {"foo", 0, "unrecognized job state value 'foo'"},
      {"R,foo", 0, "unrecognized job state value 'foo'"},
      {"all", 0, "unrecognized job state value 'all'"},
      {"cg", 0, "job state cg is not supported / accounted"},
      {"R,CG", 0, "job state CG is not supported / accounted"},
  };
  for (const Case& c : cases) {
    Result<std::vector<model::JobStateSelector>> got = ParseSacctStates(c.text);
    if (*c.error) {
      ASSERT_FALSE(got.ok()) << c.text;
      EXPECT_EQ(got.status().message(), c.error) << c.text;
    } else {
      ASSERT_TRUE(got.ok()) << c.text;
      EXPECT_EQ(got->size(), c.count) << c.text;
    }
  }
}

TEST(SacctFormatTest, DefaultTimeWindowFollowsTheManPage) {
  const UnixTime now = At("2026-12-03T06:49:57");
  const UnixTime midnight = At("2026-12-03T00:00:00");
  const UnixTime six = At("2026-12-03T06:00:00");
  struct Case {
    std::optional<UnixTime> start;
    std::optional<UnixTime> end;
    bool jobs;
    bool states;
    UnixTime want_start;
    UnixTime want_end;
  };
  const Case cases[] = {
      {{}, {}, false, false, midnight, now},  // neither -j nor -s
      {{}, {}, true, false, 0, now},          // -j
      {{}, {}, false, true, now, now},        // -s
      {{}, {}, true, true, 0, now},           // -j and -s
      {six, {}, false, false, six, now},
      {six, {}, false, true, six, six},  // -s: -E defaults to -S
      {six, {}, true, true, six, six},
      {{}, six, true, false, 0, six},
  };
  for (const Case& c : cases) {
    Result<SacctWindow> w =
        ComputeSacctWindow(c.start, c.end, c.jobs, c.states, now, TimeZone::Utc());
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w->start, c.want_start);
    EXPECT_EQ(w->end, c.want_end);
  }
  Result<SacctWindow> bad =
      ComputeSacctWindow(At("2026-12-03T06:30:00"), six, false, false, now, TimeZone::Utc());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Start time (2026-12-03T06:30:00) requested is after end time "
            "(2026-12-03T06:00:00).");
  bad = ComputeSacctWindow({}, At("2026-12-01T00:00:00"), false, false, now, TimeZone::Utc());
  EXPECT_EQ(bad.status().message(),
            "Start time (2026-12-03T00:00:00) requested is after end time "
            "(2026-12-01T00:00:00).");
}

// Which lines print: each case is what the real sacct listed for the same jobs (-X shown as
// plain ids, step lines as "<id>.batch").
TEST(SacctFormatTest, SelectsJobsAndLinesAsSlurm) {
  using P = SacctJobSelector::Part;
  const UnixTime now = At("2026-12-03T06:59:57");
  auto window = [&](const char* start, const char* end) {
    return SacctWindow{*start ? At(start) : At("2026-12-03T00:00:00"), *end ? At(end) : now};
  };
  auto states = [](const char* text) { return ParseSacctStates(text).value(); };
  struct Case {
    const char* what;
    SacctFilter filter;
    std::string want;
  };
  std::vector<Case> cases;
  {
    SacctFilter f;
    f.window = window("", "");
    f.allocations = true;
    cases.push_back(
        {"sacct -X", f, "26301 26302 26303 26304 26305 26306 26309 26310 26311"});  // eligible only
    f.window = window("2026-12-03T06:48:25", "2026-12-03T06:48:26");
    cases.push_back({"-X -S 06:48:25 -E 06:48:26", f, "26303 26304 26306"});
    f.window = window("2026-12-03T06:48:19", "2026-12-03T06:48:19");
    cases.push_back({"-X -S 06:48:19 -E 06:48:19", f, "26301 26302 26303 26304 26305 26306 26309"});
    f.window = window("", "2026-12-03T06:48:18");
    cases.push_back({"-X -E 06:48:18", f, ""});
    f.window = window("2026-12-03T06:48:00", "2026-12-03T06:49:00");
    f.states = states("r,cd");
    cases.push_back(
        {"-X -s r,cd -S 06:48 -E 06:49", f, "26301 26302 26303 26304 26305 26306 26309"});
    f.window = window("2026-12-03T06:48:00", "");
    f.states = states("CA");
    cases.push_back({"-X -s CA -S 06:48 -E now", f, "26303 26308"});
    f.window = window("2026-12-03T06:00:00", "2026-12-03T06:48:20");
    f.states = states("CD");
    cases.push_back({"-X -s CD -S 06:00 -E 06:48:20", f, "26301"});
  }
  {
    SacctFilter f;
    f.jobs_given = true;
    f.jobs = {{26307, P::kJob, {}}, {26301, P::kJob, {}}, {26308, P::kJob, {}}};
    f.allocations = true;
    f.window = {At("2026-12-03T06:49:00"), now};
    cases.push_back({"-X -j 26307,26301,26308 -S 06:49", f, "26307"});
    f.window = {0, At("2026-12-03T06:00:00")};
    cases.push_back({"-X -j 26307,26301,26308 -E 06:00", f, ""});
    f.window = {0, now};
    f.states = states("PD");
    cases.push_back({"-X -j 26307,26301,26308 -s PD", f, "26301"});
    f.states = states("CD");
    cases.push_back({"-X -j 26307,26301,26308 -s CD", f, "26301"});
  }
  {
    SacctFilter f;
    f.jobs_given = true;
    f.window = {0, now};
    f.jobs = {{26301, P::kBatch, {}}};
    cases.push_back({"-j 26301.batch", f, "26301.batch"});
    f.jobs = {{26301, P::kNone, {}}};
    cases.push_back({"-j 26301.extern", f, ""});
    f.jobs = {{26301, P::kJob, {}}, {26301, P::kBatch, {}}};
    cases.push_back({"-j 26301,26301.batch", f, "26301 26301.batch"});
    f.jobs = {
        {26301, P::kBatch, {}}, {26302, P::kJob, {}}, {26307, P::kJob, {}}, {26308, P::kJob, {}}};
    cases.push_back(
        {"-j 26301.batch,26302,26307,26308", f, "26301.batch 26302 26302.batch 26307 26308"});
    f.allocations = true;
    f.jobs = {{26301, P::kBatch, {}}};
    cases.push_back({"-X -j 26301.batch", f, "26301"});
    f.allocations = false;
    f.jobs = {{26303, P::kJob, {}}, {26309, P::kJob, {}}};
    f.user_ids = {1001};
    cases.push_back({"-j 26303,26309 -u alice", f, "26303 26303.batch"});
    f.user_ids = {};
    f.names = {"two-nodes", "nosuch"};
    cases.push_back({"-j 26303,26309 --name=two-nodes,nosuch", f, "26309 26309.batch"});
    f.names = {};
    f.partitions = {"high"};
    cases.push_back({"-j 26303,26309 -r high", f, ""});
    f.partitions = {};
    f.accounts = {"root"};
    cases.push_back({"-j 26303,26309 -A root", f, "26309 26309.batch"});
    f.accounts = {};
    f.nodes = {"gpu2"};
    cases.push_back({"-j 26303,26309 -N gpu2", f, "26309 26309.batch"});
  }
  const std::vector<v1::Job> jobs = AnchorJobs();
  for (const Case& c : cases) {
    std::string got;
    for (const SacctRow& row : SelectSacctRows(jobs, c.filter)) {
      got += (got.empty() ? "" : " ") + std::to_string(row.job->job_id()) +
             (row.batch_step ? ".batch" : "");
    }
    EXPECT_EQ(got, c.want) << c.what;
  }
}

TEST(SacctFormatTest, RunningAndSuspendedJobs) {
  std::vector<v1::Job> jobs = AnchorJobs();
  v1::Job& running = jobs[5];  // long-run, as captured while it ran
  running.set_state(static_cast<uint32_t>(JobBaseState::kRunning));
  running.set_exit_status(-1);
  running.set_end_time(At("2026-12-03T06:58:19"));  // the expected end: not printed
  SacctPrintContext ctx = PrintContext();
  ctx.now = At("2026-12-03T06:48:36");
  const SacctFormat f = ParseSacctFormat("jobid,state,exitcode,elapsed,end");
  const SacctOutput out{SacctLayout::kParsable2, "|"};
  EXPECT_EQ(RenderSacctLine(f.columns, {&running, false}, ctx, out),
            "26306|RUNNING|0:0|00:00:17|Unknown\n");
  EXPECT_EQ(RenderSacctLine(f.columns, {&running, true}, ctx, out),
            "26306.batch|RUNNING|0:0|00:00:17|Unknown\n");
  running.set_state(static_cast<uint32_t>(JobBaseState::kSuspended));
  running.set_pre_suspend_secs(10);
  running.set_suspend_time(At("2026-12-03T06:48:29"));
  const SacctFormat g = ParseSacctFormat("state,elapsed,suspended");
  EXPECT_EQ(RenderSacctLine(g.columns, {&running, false}, ctx, out),
            "SUSPENDED|00:00:10|00:00:07\n");
  // Resumed 13 s later: the 20 s suspended stay counted, the run time goes on.
  running.set_state(static_cast<uint32_t>(JobBaseState::kRunning));
  running.set_suspend_time(ctx.now + 13);
  ctx.now += 20;
  EXPECT_EQ(RenderSacctLine(g.columns, {&running, false}, ctx, out), "RUNNING|00:00:17|00:00:20\n");
  // Suspended again 5 s after: both suspensions count.
  running.set_state(static_cast<uint32_t>(JobBaseState::kSuspended));
  running.set_pre_suspend_secs(15);
  running.set_suspend_time(ctx.now - 2);
  ctx.now += 4;
  EXPECT_EQ(RenderSacctLine(g.columns, {&running, false}, ctx, out),
            "SUSPENDED|00:00:15|00:00:26\n");
}

TEST(SacctFormatTest, ABatchScriptTheControllerKilledIsCancelledBySigterm) {
  std::vector<v1::Job> jobs = AnchorJobs();
  v1::Job& cancelled = jobs[5];
  cancelled.set_state(static_cast<uint32_t>(JobBaseState::kCancelled));
  cancelled.set_cancelled_by_uid(0);
  const SacctFormat f = ParseSacctFormat("state,exitcode");
  const SacctOutput out{SacctLayout::kParsable2, "|"};
  // Gantry's controller records 0 for a job it cancels, or the signal when it knows it.
  for (const auto& [status, batch] :
       {std::pair{0, "CANCELLED|0:15\n"}, std::pair{-1, "CANCELLED|0:15\n"},
        std::pair{SIGKILL, "CANCELLED|0:9\n"}}) {
    cancelled.set_exit_status(status);
    EXPECT_EQ(RenderSacctLine(f.columns, {&cancelled, false}, PrintContext(), out),
              "CANCELLED by 0|0:0\n");
    EXPECT_EQ(RenderSacctLine(f.columns, {&cancelled, true}, PrintContext(), out), batch);
  }
}

// The anchor's job 21421 ran `srun sleep 2; srun false; srun hostname` (sacct-steps-format-P).
TEST(SacctFormatTest, StepLinesFollowTheBatchLineAsSlurms) {
  v1::Job job = AnchorJobs()[0];
  job.set_job_id(21421);
  job.mutable_request()->set_account("root");
  const UnixTime start = job.start_time();
  struct StepSpec {
    const char* name;
    int64_t from;
    int64_t to;
    int32_t status;
    JobBaseState state;
  };
  const StepSpec specs[] = {{"sleep", 0, 2, 0, JobBaseState::kCompleted},
                            {"false", 2, 2, 1 << 8, JobBaseState::kFailed},
                            {"hostname", 3, 4, 0, JobBaseState::kCompleted}};
  for (const StepSpec& spec : specs) {
    v1::JobStep* step = job.add_steps();
    step->set_step_id(static_cast<uint32_t>(job.steps_size() - 1));
    step->set_name(spec.name);
    step->set_start_time(start + spec.from);
    step->set_end_time(start + spec.to);
    step->set_exit_status(spec.status);
    step->set_state(static_cast<uint32_t>(spec.state));
    step->set_num_cpus(4);
    step->set_num_tasks(1);
  }
  const std::string out = Render({job}, ByIds({21421}),
                                 "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,Elapsed",
                                 SacctLayout::kParsable2);
  EXPECT_NE(out.find("21421.0|sleep||root|4|COMPLETED|0:0|00:00:02\n"
                     "21421.1|false||root|4|FAILED|1:0|00:00:00\n"
                     "21421.2|hostname||root|4|COMPLETED|0:0|00:00:01\n"),
            std::string::npos)
      << out;
  EXPECT_LT(out.find("21421.batch|"), out.find("21421.0|")) << out;
  SacctFilter one_step = ByIds({});
  one_step.jobs.push_back({21421, SacctJobSelector::Part::kStep, std::nullopt, 1});
  EXPECT_EQ(Render({job}, one_step, "JobID,State", SacctLayout::kParsable2),
            "JobID|State\n21421.1|FAILED\n");
}

// The anchor's job 21420 (mem-hog): its batch script's usage on the job and batch lines,
// MaxRSS on the batch line only (sacct-steps-format-P: 00:01.087 and 317908K).
TEST(SacctFormatTest, UsageOfTheBatchScript) {
  v1::Job job = AnchorJobs()[0];
  job.mutable_batch_usage()->set_user_cpu_usec(1000000);
  job.mutable_batch_usage()->set_system_cpu_usec(87000);
  job.mutable_batch_usage()->set_max_rss_kib(317908);
  const SacctFormat f = ParseSacctFormat("TotalCPU,UserCPU,SystemCPU,MaxRSS,MaxRSSTask");
  const SacctOutput out{SacctLayout::kParsable2, "|"};
  EXPECT_EQ(RenderSacctLine(f.columns, {&job, false}, PrintContext(), out),
            "00:01.087|00:01.000|00:00.087||\n");
  EXPECT_EQ(RenderSacctLine(f.columns, {&job, true}, PrintContext(), out),
            "00:01.087|00:01.000|00:00.087|317908K|0\n");
  const SacctFormat total = ParseSacctFormat("TotalCPU");
  for (const auto& [usec, text] : {std::pair{int64_t{3723} * 1000000, "01:02:03\n"},
                                   std::pair{int64_t{90061} * 1000000 + 5000, "1-01:01:01\n"}}) {
    job.mutable_batch_usage()->set_user_cpu_usec(usec);
    job.mutable_batch_usage()->set_system_cpu_usec(0);
    EXPECT_EQ(RenderSacctLine(total.columns, {&job, false}, PrintContext(), out), text);
  }
  job.mutable_batch_usage()->set_max_rss_kib(204800);  // a whole number of MiB converts
  const SacctFormat rss = ParseSacctFormat("MaxRSS");
  EXPECT_EQ(RenderSacctLine(rss.columns, {&job, true}, PrintContext(), out), "200M\n");
  job.clear_batch_usage();  // still running, or never reported: empty
  EXPECT_EQ(RenderSacctLine(f.columns, {&job, true}, PrintContext(), out), "||||\n");
}

TEST(SacctFormatTest, TimeErrorsNameWhereParsingStopped) {
  const UnixTime now = At("2026-12-03T06:49:57");
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"garbage", "Invalid time specification (pos=0): garbage"},
      {"25:99", "Invalid time specification (pos=0): 25:99"},
      {"12:00xyz", "Invalid time specification (pos=5): 12:00xyz"},
      {"tomorrow x", "Invalid time specification (pos=9): tomorrow x"},
      {"2026-12-03T25:00", "Invalid time specification (pos=11): 2026-12-03T25:00"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(SacctTimeError(c.text, now, TimeZone::Utc()), c.want) << c.text;
  }
}

}  // namespace
}  // namespace gantry::slurm
