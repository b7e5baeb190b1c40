#include "slurm_view/squeue_listing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "slurm_view/anchor_records_test_util.h"

namespace gantry::slurm {
namespace {

using testing::AnchorQueue;
using testing::AnchorQueueNow;

// A zone five hours east of UTC, to tell the columns that print a time of day.
class FiveHoursEast final : public TimeZone {
 public:
  CivilTime ToCivil(UnixTime t) const override { return Utc().ToCivil(t + 5 * 3600); }
  UnixTime FromCivil(const CivilTime& c) const override { return Utc().FromCivil(c) - 5 * 3600; }
};

v1::SqueueView ViewOf(std::string format, std::string sort = "") {
  v1::SqueueView view;
  view.set_format(std::move(format));
  view.set_sort(std::move(sort));
  return view;
}

// The anchor queue, plus jobs whose lines or keys depend on the time in other ways: a pending
// job expected to start in ten minutes, one whose expected start has passed, and a preempted
// one.
std::vector<v1::Job> Jobs() {
  std::vector<v1::Job> jobs = AnchorQueue();
  v1::Job later = testing::AnchorJob(21442);
  later.set_job_id(30001);
  later.set_expected_start_time(AnchorQueueNow() + 600);
  jobs.push_back(later);
  v1::Job passed = later;
  passed.set_job_id(30002);
  passed.set_expected_start_time(AnchorQueueNow() - 600);
  jobs.push_back(passed);
  v1::Job preempted = testing::AnchorJob(21437);
  preempted.set_job_id(30003);
  preempted.set_preempt_time(AnchorQueueNow() - 60);
  jobs.push_back(preempted);
  return jobs;
}

// The listing of `jobs` in pieces of `size` records, at `now`, and the earliest stale_at.
struct Made {
  std::string text;
  UnixTime stale_at = kNeverStale;
};
Made MakeListing(const SqueueQuery& query, const std::vector<v1::Job>& jobs, UnixTime now,
                 size_t size, const TimeZone& tz = TimeZone::Utc()) {
  std::vector<ListingPiece> pieces;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i % size == 0) pieces.push_back(NewPiece(query, size));
    AddRecord(query, jobs[i], JobPrintContext{now, &tz, "anchor"}, &pieces.back());
  }
  std::vector<const ListingPiece*> views;
  Made made;
  for (const ListingPiece& piece : pieces) {
    views.push_back(&piece);
    made.stale_at = std::min(made.stale_at, piece.stale_at);
  }
  made.text = OrderedText(views);
  return made;
}

TEST(SqueueListingTest, QueryOfNamesTheFieldOfABadValue) {
  Result<SqueueQuery> bad_sort = QueryOf(ViewOf("%i", "i,x"));
  ASSERT_FALSE(bad_sort.ok());
  EXPECT_EQ(bad_sort.status().message(), "squeue view: sort: Invalid sort specification: x");
  v1::SqueueView states = ViewOf("%i");
  states.set_states("R,NOPE");
  Result<SqueueQuery> bad_states = QueryOf(states);
  ASSERT_FALSE(bad_states.ok());
  EXPECT_EQ(bad_states.status().message().rfind("squeue view: states: ", 0), 0u);

  v1::SqueueView view = ViewOf("%i %Q");
  view.set_format_long("JobId:8");  // wins over format
  view.add_partitions("a4");
  view.set_user_filter(true);
  Result<SqueueQuery> query = QueryOf(view);
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->format.columns.size(), 1u);
  EXPECT_EQ(query->sort, kSqueueDefaultSort);
  EXPECT_EQ(query->filter.partitions, std::vector<std::string>{"a4"});
  EXPECT_TRUE(query->filter.user_filter);
  EXPECT_TRUE(query->filter.user_ids.empty());
}

// Every column and sort key, at a later time: a line or an order that changed was marked stale
// by then. (A mark that is never needed costs only a remade piece; a missing one shows old
// text.)
TEST(SqueueListingTest, WhatChangesWithTimeIsMarkedStale) {
  const std::vector<v1::Job> jobs = Jobs();
  const UnixTime now = AnchorQueueNow();
  std::vector<std::pair<std::string, std::string>> views;  // format, sort
  for (const JobField& field : SqueueFields()) {
    if (field.letter != 0) views.emplace_back(std::string("%i %") + field.letter, "i");
  }
  for (char key : std::string("ijPtTpQuUMlLDCNSVeaqmBgGA")) {
    views.emplace_back("%i", std::string(1, key));
  }
  views.emplace_back("%i", "");  // the default sort (which ends with the expected start)
  for (const auto& [format, sort] : views) {
    const SqueueQuery query = *QueryOf(ViewOf(format, sort));
    // Each job alone for its lines (one job's mark would hide another's missing one), and
    // the jobs in pairs for the order.
    std::vector<std::vector<v1::Job>> sets;
    for (size_t i = 0; i < jobs.size(); ++i) {
      sets.push_back({jobs[i]});
      if (i > 0) sets.push_back({jobs[i - 1], jobs[i]});
    }
    for (const std::vector<v1::Job>& set : sets) {
      const Made at_now = MakeListing(query, set, now, set.size());
      for (UnixTime later : {now + 1, now + 59, now + 601, now + 86400}) {
        if (MakeListing(query, set, later, set.size()).text == at_now.text) continue;
        EXPECT_LE(at_now.stale_at, later)
            << "format " << format << " sort " << sort << " job " << set.back().job_id();
      }
    }
  }
  // What does not change is not marked: pending jobs without an expected start.
  const SqueueQuery query = *QueryOf(ViewOf(kSqueueLongFormat));
  std::vector<v1::Job> pending;
  for (const v1::Job& job : AnchorQueue()) {
    if (IsPendingJob(job) && StartTimeOf(job) == 0) pending.push_back(job);
  }
  ASSERT_FALSE(pending.empty());
  EXPECT_EQ(MakeListing(query, pending, now, 100).stale_at, kNeverStale);
  // A running job's TIME changes each second.
  EXPECT_EQ(MakeListing(query, AnchorQueue(), now, 100).stale_at, now + 1);
}

TEST(SqueueListingTest, TheColumnsThatPrintATimeOfDayAreKnown) {
  const FiveHoursEast east;
  for (const JobField& field : SqueueFields()) {
    if (field.name.empty()) continue;
    const SqueueQuery query = *QueryOf([&] {
      v1::SqueueView view;
      view.set_format_long(std::string(field.name) + ":0");
      return view;
    }());
    const std::string utc = MakeListing(query, Jobs(), AnchorQueueNow(), 100).text;
    const std::string shifted = MakeListing(query, Jobs(), AnchorQueueNow(), 100, east).text;
    EXPECT_EQ(utc != shifted, JobFormatPrintsLocalTime(query.format)) << field.name;
    EXPECT_EQ(ControllerCanList(query), !JobFormatPrintsLocalTime(query.format)) << field.name;
  }
  SqueueQuery named = *QueryOf(ViewOf("%i"));
  named.filter.job_ids = {21442};
  EXPECT_FALSE(ControllerCanList(named));
}

// However the records are cut into pieces (one per record block in gantryd), the listing is
// the same: sort keys rank across pieces, and ties go as slurmctld lists (an array's records).
TEST(SqueueListingTest, PiecesListAsOne) {
  const std::vector<v1::Job> jobs = Jobs();
  for (const char* sort : {"", "u,-i", "j,P,-p", "T,N,A", "P"}) {
    for (const char* format : {kSqueueDefaultFormat, kSqueueLongFormat, "%i %u %T %r"}) {
      v1::SqueueView view = ViewOf(format, sort);
      for (bool expand : {false, true}) {
        view.set_expand_arrays(expand);
        const SqueueQuery query = *QueryOf(view);
        const std::string whole = MakeListing(query, jobs, AnchorQueueNow(), jobs.size()).text;
        EXPECT_FALSE(whole.empty());
        for (size_t size : {1, 2, 5}) {
          EXPECT_EQ(MakeListing(query, jobs, AnchorQueueNow(), size).text, whole)
              << "format " << format << " sort " << sort << " pieces of " << size;
        }
      }
    }
  }
}

TEST(SqueueListingTest, TheFilterSelectsTheRows) {
  v1::SqueueView view = ViewOf("%i");
  view.set_states("R");
  view.set_user_filter(true);
  view.add_user_ids(1002);  // bob
  const std::string text = MakeListing(*QueryOf(view), Jobs(), AnchorQueueNow(), 3).text;
  EXPECT_EQ(text, "21443\n21441\n");
}

}  // namespace
}  // namespace gantry::slurm
