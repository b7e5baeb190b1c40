#include "slurm_view/squeue_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/job_brief.h"
#include "slurm_view/anchor_records_test_util.h"
#include "slurm_view/job_view.h"
#include "slurm_view/listing_text.h"
#include "slurm_view/squeue_sort.h"
#include "tests/testing/spec_files.h"

namespace gantry::slurm {
namespace {

using ::gantry::testing::ReadGolden;
using testing::AnchorJob;
using testing::AnchorQueue;
using testing::AnchorQueueNow;

std::string Render(const std::vector<v1::Job>& all, std::string_view format, const JobFilter& f,
                   bool header = true) {
  std::vector<const v1::Job*> listed;
  for (const v1::Job& j : all) listed.push_back(&j);
  SortAsSlurmctldLists(&listed);
  std::vector<const v1::Job*> jobs;
  for (const v1::Job* j : listed) {
    if (JobMatches(f, *j)) jobs.push_back(j);
  }
  EXPECT_TRUE(SortJobs(&jobs, kSqueueDefaultSort, AnchorQueueNow()).ok());
  const JobFormat parsed = ParseJobFormat(format);
  std::string out = header ? RenderJobHeader(parsed) : "";
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), {}};
  for (const v1::Job* j : jobs) out += RenderJobLine(parsed, *j, ctx);
  return out;
}

TEST(SqueueAnchorTest, DefaultFormatAndSortMatchSlurm) {
  EXPECT_EQ(Render(AnchorQueue(), kSqueueDefaultFormat, {}), (ReadGolden("cmd-anchor-squeue.txt")));
}

TEST(SqueueAnchorTest, LongFormatMatchesSlurm) {
  std::string expected = (ReadGolden("cmd-anchor-squeue-l.txt"));
  expected = expected.substr(expected.find('\n') + 1);  // the date line is the command's
  EXPECT_EQ(Render(AnchorQueue(), kSqueueLongFormat, {}), expected);
}

TEST(SqueueAnchorTest, UserFilterMatchesSqueueMe) {
  JobFilter f;
  f.user_filter = true;
  f.user_ids = {1001};
  EXPECT_EQ(Render(AnchorQueue(), kSqueueDefaultFormat, f),
            (ReadGolden("cmd-anchor-squeue-alice.txt")));
}

TEST(SqueueAnchorTest, StartListingMatchesSlurm) {
  JobFilter f;
  f.states = model::ParseJobStateFilter("PD").value();
  std::vector<v1::Job> all = AnchorQueue();
  std::vector<const v1::Job*> listed;
  for (const v1::Job& j : all) listed.push_back(&j);
  SortAsSlurmctldLists(&listed);
  std::vector<const v1::Job*> jobs;
  for (const v1::Job* j : listed) {
    if (JobMatches(f, *j)) jobs.push_back(j);
  }
  ASSERT_TRUE(SortJobs(&jobs, "S", AnchorQueueNow()).ok());
  const JobFormat parsed = ParseJobFormat(kSqueueStartFormat);
  std::string out = RenderJobHeader(parsed);
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), {}};
  for (const v1::Job* j : jobs) out += RenderJobLine(parsed, *j, ctx);
  EXPECT_EQ(out, (ReadGolden("cmd-anchor-squeue-start.txt")));
}

// The lines of a listing, sorted: the reference lists jobs whose sort keys tie (these held
// arrays) newest first, Gantry oldest first (see the README's compatibility notes).
std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// Held arrays as the reference cluster listed them (captured 2026-12-03 with `sbatch -H
// --array=0-15:4`, `--array=1-7:2,20%3`, `--array=5`): the array ids, %A, %a (the account),
// %F and %K, squeue's cut of a long id, and -r.
TEST(SqueueAnchorTest, HeldArraysMatchSlurm) {
  std::vector<v1::Job> jobs;
  auto array = [&](uint32_t id, std::vector<uint32_t> tasks, uint32_t throttle) {
    v1::Job job = AnchorJob(21445);  // held, root, a4
    job.set_job_id(id);
    job.mutable_request()->set_name("wrap");
    job.mutable_request()->set_account("root");
    job.set_array_job_id(id);
    for (uint32_t t : tasks) job.add_array_pending_tasks(t);
    job.set_array_task_throttle(throttle);
    jobs.push_back(job);
  };
  array(26322, {0, 4, 8, 12}, 0);
  array(26323, {1, 3, 5, 7, 20}, 3);
  array(26324, {5}, 0);
  JobFilter none;
  EXPECT_EQ(
      SortedLines(Render(jobs, kSqueueDefaultFormat, none, false)),
      SortedLines(
          "         26324_[5]        a4     wrap     root PD       0:00      1 (JobHeldUser)\n"
          "26323_[1,3,5,7,20%        a4     wrap     root PD       0:00      1 (JobHeldUser)\n"
          "  26322_[0,4,8,12]        a4     wrap     root PD       0:00      1 (JobHeldUser)\n"));
  EXPECT_EQ(SortedLines(Render(jobs, "%i|%A|%a|%F|%K|%j", none, false)),
            SortedLines("26324_[5]|26324|root|26324|5|wrap\n"
                        "26323_[1,3,5,7,20%3]|26323|root|26323|1,3,5,7,20%3|wrap\n"
                        "26322_[0,4,8,12]|26322|root|26322|0,4,8,12|wrap\n"));
  EXPECT_EQ(RenderJobHeader(ParseJobFormat("%i|%A|%a|%F|%K|%j")),
            "JOBID|JOBID|ACCOUNT|ARRAY_JOB_ID|ARRAY_TASK_ID|NAME\n");
  std::vector<v1::Job> tasks;
  for (const v1::Job& job : jobs) {
    for (v1::Job& task : ExpandArrayTasks(job)) tasks.push_back(std::move(task));
  }
  EXPECT_EQ(SortedLines(Render(tasks, "%i|%A|%F|%K", none, false)),
            SortedLines("26324_5|26324|26324|5\n"
                        "26323_1|26323|26323|1\n26323_3|26323|26323|3\n26323_5|26323|26323|5\n"
                        "26323_7|26323|26323|7\n26323_20|26323|26323|20\n"
                        "26322_0|26322|26322|0\n26322_4|26322|26322|4\n26322_8|26322|26322|8\n"
                        "26322_12|26322|26322|12\n"));
}

TEST(SqueueFormatTest, WidthsCutAndJustify) {
  v1::Job job = AnchorJob(21441);
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), {}};
  EXPECT_EQ(RenderJobLine(ParseJobFormat("%5j|%.5j|%j|%.3M|%3N"), job, ctx),
            "urgen|urgen|urgent-eval|0:26|gpu\n");
  EXPECT_EQ(RenderJobLine(ParseJobFormat("id=%i %u/%U %T %l %L %C %D"), job, ctx),
            "id=21441 bob/1002 RUNNING 30:00 29:34 32 1\n");
  EXPECT_EQ(RenderJobHeader(ParseJobFormat("%.18i %.9P %20R")),
            "             JOBID PARTITION NODELIST(REASON)    \n");
}

TEST(SqueueFormatTest, UnknownLetterIsReportedAndPrintedLiterally) {
  const JobFormat f = ParseJobFormat("%i %.5Xyz %j");
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0], "Invalid job format specification: X");
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), {}};
  EXPECT_EQ(RenderJobLine(f, AnchorJob(21441), ctx), "21441 %.5Xyz urgent-eval\n");
}

TEST(SqueueFormatTest, PendingReasonUsesStateDescriptionAndTimesShowNA) {
  v1::Job job = AnchorJob(21442);
  job.set_state_desc("ReqNodeNotAvail, UnavailableNodes:gpu3");
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), {}};
  EXPECT_EQ(RenderJobLine(ParseJobFormat("%R|%r|%S|%V|%e"), job, ctx),
            "(ReqNodeNotAvail, UnavailableNodes:gpu3)|ReqNodeNotAvail, "
            "UnavailableNodes:gpu3|N/A|2026-12-02T11:46:21|N/A\n");
}

TEST(SqueueFormatTest, StateFilterAndDefaultStates) {
  std::vector<v1::Job> jobs = AnchorQueue();
  v1::Job done = AnchorJob(21441);
  done.set_job_id(21400);
  done.set_state(static_cast<uint32_t>(model::JobBaseState::kCompleted));
  jobs.push_back(done);
  JobFilter by_default;
  EXPECT_FALSE(JobMatches(by_default, done));
  JobFilter all;
  all.states = model::ParseJobStateFilter("all").value();
  EXPECT_TRUE(JobMatches(all, done));
  JobFilter pending;
  pending.states = model::ParseJobStateFilter("pd").value();
  EXPECT_EQ(Render(jobs, "%i", pending, false),
            "21447\n21446\n21448\n21442\n21444_[3-5%2]\n21445\n21449\n");
}

TEST(SqueueFormatTest, SortKeys) {
  std::vector<v1::Job> all = AnchorQueue();
  std::vector<const v1::Job*> jobs;
  for (const v1::Job& j : all) jobs.push_back(&j);
  ASSERT_TRUE(SortJobs(&jobs, "-i", AnchorQueueNow()).ok());
  EXPECT_EQ(jobs.front()->job_id(), 21449u);
  ASSERT_TRUE(SortJobs(&jobs, "u,i", AnchorQueueNow()).ok());
  EXPECT_EQ(jobs.front()->job_id(), 21437u);  // alice first
  EXPECT_EQ(jobs.back()->job_id(), 21449u);   // root last
  const Status bad = SortJobs(&jobs, "P,%", AnchorQueueNow());
  EXPECT_EQ(bad.message(), "Invalid sort specification: %");
}

// A listing read in parts sorts as the whole: texts rank among every part's values, and ties
// go by the tie values, then by part.
TEST(SqueueFormatTest, SortersOfPartsOrderAsOne) {
  const std::vector<v1::Job> all = AnchorQueue();
  for (const char* sort : {kSqueueDefaultSort, "u,-i", "j,P,-p", "T,N,A"}) {
    for (size_t split : {size_t{0}, size_t{1}, all.size() / 2, all.size()}) {
      Result<JobSorter> whole = JobSorter::Create(sort);
      std::vector<JobSorter> parts;
      parts.push_back(*JobSorter::Create(sort));
      parts.push_back(*JobSorter::Create(sort));
      ASSERT_TRUE(whole.ok());
      for (size_t i = 0; i < all.size(); ++i) {
        whole->Add(all[i], AnchorQueueNow());
        parts[i < split ? 0 : 1].Add(all[i], AnchorQueueNow());
      }
      std::vector<ListingRow> expected;
      for (uint32_t row : whole->Order()) {
        expected.push_back(row < split ? ListingRow{0, row}
                                       : ListingRow{1, static_cast<uint32_t>(row - split)});
      }
      const std::vector<const JobSorter*> views = {&parts[0], &parts[1]};
      EXPECT_EQ(JobSorter::OrderParts(views, {}), expected) << sort << " split at " << split;
    }
  }
  // Equal keys: the tie values decide, then the part.
  std::vector<JobSorter> parts;
  for (int i = 0; i < 2; ++i) parts.push_back(*JobSorter::Create("P"));
  for (JobSorter& part : parts) {
    for (int i = 0; i < 2; ++i) part.Add(AnchorJob(21441), AnchorQueueNow());
  }
  const std::vector<uint64_t> ties0 = {5, 1};
  const std::vector<uint64_t> ties1 = {1, 9};
  const std::vector<std::span<const uint64_t>> ties = {ties0, ties1};
  const std::vector<const JobSorter*> views = {&parts[0], &parts[1]};
  EXPECT_EQ(JobSorter::OrderParts(views, ties),
            (std::vector<ListingRow>{{0, 1}, {1, 0}, {0, 0}, {1, 1}}));

  std::vector<ListingText> texts(2);
  *texts[0].text() += "x\n";
  texts[0].EndPiece();
  *texts[1].text() += "y\n";
  texts[1].EndPiece();
  *texts[1].text() += "z\n";
  texts[1].EndPiece();
  std::ostringstream out;
  const std::vector<ListingRow> order = {{1, 1}, {0, 0}, {1, 0}};
  const std::vector<const ListingText*> text_views = {&texts[0], &texts[1]};
  ListingText::WriteOrdered(out, "H\n", text_views, order);
  EXPECT_EQ(out.str(), "H\nz\nx\ny\n");
}

TEST(SqueueFormatTest, LongFormatNamesWidthsAndErrors) {
  const v1::Job job = AnchorJob(21441);
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), "anchor"};
  struct Case {
    const char* format;
    const char* header;
    const char* line;
    std::vector<std::string> errors;
  };
  const Case cases[] = {
      // No ':' = width 20, left; ".N" right; ":0" as wide as the value; text after the width
      // is a suffix.
      {"jobid", "JOBID               ", "21441               ", {}},
      {"JOBID:.8,name:5|",
       "   JOBID"
       "NAME |",
       "   21441"
       "urgen|",
       {}},
      {"state:0,cluster:0",
       "STATE"
       "CLUSTER",
       "RUNNING"
       "anchor",
       {}},
      // Other spellings, case-insensitive.
      {"Shared:0/,NumTasksX:0/,GRES:0",
       "OVER_SUBSCRIBE/"
       "TASKS/"
       "TRES_PER_NODE",
       "OK/"
       "32/"
       "N/A",
       {}},
      // Unknown names (ExcNodes is a letter only in 22.05) print just their suffix.
      {"jobid:0,Foo:7|,ExcNodes",
       "JOBID|",
       "21441|",
       {"Invalid job format specification: Foo", "Invalid job format specification: ExcNodes"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.format);
    const JobFormat f = ParseJobLongFormat(c.format);
    EXPECT_EQ(f.errors, c.errors);
    EXPECT_EQ(RenderJobHeader(f), std::string(c.header) + "\n");
    EXPECT_EQ(RenderJobLine(f, job, ctx), std::string(c.line) + "\n");
  }
}

// Jobs whose every field has a value, the fields a brief record drops included.
std::vector<v1::Job> RichJobs() {
  std::vector<v1::Job> jobs = AnchorQueue();
  for (v1::Job& j : jobs) {
    v1::JobRequest& r = *j.mutable_request();
    r.set_work_dir("/home/alice/run");
    r.set_std_out("/home/alice/out-%j.txt");
    r.set_std_err("/home/alice/err-%j.txt");
    r.set_std_in("/home/alice/in.txt");
    r.set_comment("a comment");
    r.set_dependency("afterok:1");
    r.set_submit_host("login-1");
    r.set_command("/home/alice/train.sh");
    r.set_submit_dir("/home/alice");
    r.set_export_env("ALL");
    j.set_group_name("research");
    j.set_tres("cpu=4,mem=4G,node=1,billing=4");
    j.set_end_cause("time limit");
    j.set_dependency_status("afterok:1(unfulfilled)");
  }
  return jobs;
}

// Each field whose format asks for a shorter record form prints the same from a record in that
// form as from the full record.
TEST(SqueueRecordFormTest, FieldsPrintTheSameFromTheFormTheyAskFor) {
  using model::JobRecordForm;
  const JobPrintContext ctx{AnchorQueueNow(), &TimeZone::Utc(), "cluster"};
  std::map<JobRecordForm, size_t> fields;
  std::map<JobRecordForm, size_t> differences;  // in fields that ask for a wider form
  for (const JobField& field : SqueueFields()) {
    JobFormat format;
    format.columns.push_back(JobColumn{&field, 0, false, "", ""});
    const JobRecordForm asked = JobFormatRecordForm(format);
    ++fields[asked];
    for (const v1::Job& job : RichJobs()) {
      const std::string full_line = RenderJobLine(format, job, ctx);
      for (JobRecordForm form : {JobRecordForm::kBrief, JobRecordForm::kSlim}) {
        v1::Job short_form;
        model::CopyJobInForm(job, form, &short_form);
        const std::string line = RenderJobLine(format, short_form, ctx);
        if (model::WiderForm(asked, form) == form) {  // the form holds what the field reads
          EXPECT_EQ(line, full_line) << field.name << " '" << field.letter << "'";
        } else if (line != full_line) {
          ++differences[form];
        }
      }
    }
  }
  EXPECT_GT(fields[JobRecordForm::kSlim], 20u);
  EXPECT_GT(fields[JobRecordForm::kBrief], 20u);
  // The fixture holds what each form drops (else the check above proves nothing).
  EXPECT_GT(differences[JobRecordForm::kBrief], 0u);
  EXPECT_GT(differences[JobRecordForm::kSlim], 0u);
}

TEST(SqueueRecordFormTest, CommonFormatsSortsAndFiltersAskForShortRecords) {
  using model::JobRecordForm;
  for (const char* format : {kSqueueDefaultFormat, kSqueueLongFormat, kSqueueStartFormat}) {
    EXPECT_EQ(JobFormatRecordForm(ParseJobFormat(format)), JobRecordForm::kSlim) << format;
  }
  EXPECT_EQ(JobFormatRecordForm(ParseJobFormat("%i %a")), JobRecordForm::kBrief);
  EXPECT_EQ(JobFormatRecordForm(ParseJobFormat("%i %Z")), JobRecordForm::kFull);
  EXPECT_EQ(JobFormatRecordForm(ParseJobLongFormat("JobId,STDOUT")), JobRecordForm::kFull);
  EXPECT_EQ(JobSorter::RecordForm(kSqueueDefaultSort), JobRecordForm::kSlim);
  EXPECT_EQ(JobSorter::RecordForm("S"), JobRecordForm::kSlim);
  EXPECT_EQ(JobSorter::RecordForm("P,-a"), JobRecordForm::kBrief);
  EXPECT_EQ(JobSorter::RecordForm("P,-g"), JobRecordForm::kFull);
  JobFilter filter;
  filter.user_filter = true;
  filter.user_ids = {1000};
  filter.names = {"train"};
  filter.nodes = {"a4-0"};
  EXPECT_EQ(JobFilterRecordForm(filter), JobRecordForm::kSlim);
  filter.partitions = {"gpu"};
  EXPECT_EQ(JobFilterRecordForm(filter), JobRecordForm::kBrief);
}

// Filters that a slim record is enough for select the same jobs from slim records.
TEST(SqueueRecordFormTest, SlimFiltersSelectAsFullRecords) {
  const std::vector<v1::Job> full = RichJobs();
  std::vector<JobFilter> filters(5);
  filters[1].states = model::JobStateFilter{};
  filters[1].states->all = true;
  filters[2].names = {full[0].request().name()};
  filters[3].user_filter = true;
  filters[3].user_ids = {full[1].user_id()};
  for (const v1::Job& job : full) {
    for (const std::string& n : job.nodes()) filters[4].nodes = {n};
  }
  for (const JobFilter& filter : filters) {
    ASSERT_EQ(JobFilterRecordForm(filter), model::JobRecordForm::kSlim);
    for (const v1::Job& job : full) {
      v1::Job slim;
      model::CopySlimJob(job, &slim);
      EXPECT_EQ(JobMatches(filter, slim), JobMatches(filter, job)) << job.job_id();
    }
  }
}

TEST(SqueueRecordFormTest, SortKeysOrderShortRecordsAsFullOnes) {
  using model::JobRecordForm;
  const std::vector<v1::Job> full = RichJobs();
  auto ids = [](const std::vector<v1::Job>& jobs, const std::string& sort) {
    std::vector<const v1::Job*> listed;
    for (const v1::Job& j : jobs) listed.push_back(&j);
    EXPECT_TRUE(SortJobs(&listed, sort, AnchorQueueNow()).ok()) << sort;
    std::vector<uint32_t> out;
    for (const v1::Job* j : listed) out.push_back(j->job_id());
    return out;
  };
  for (JobRecordForm form : {JobRecordForm::kBrief, JobRecordForm::kSlim}) {
    std::vector<v1::Job> short_forms(full.size());
    for (size_t i = 0; i < full.size(); ++i) model::CopyJobInForm(full[i], form, &short_forms[i]);
    for (char letter : std::string("aiAjPqtTpQuUMlLDCNSVeBgGm")) {
      for (const std::string& sort : {std::string(1, letter), "-" + std::string(1, letter)}) {
        if (model::WiderForm(JobSorter::RecordForm(sort), form) != form) continue;
        EXPECT_EQ(ids(short_forms, sort), ids(full, sort)) << sort;
      }
    }
  }
}

}  // namespace
}  // namespace gantry::slurm
