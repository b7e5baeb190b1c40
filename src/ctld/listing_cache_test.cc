#include "ctld/listing_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "slurm_view/anchor_records_test_util.h"

namespace gantry::ctld {
namespace {

using slurm::testing::AnchorQueue;
using slurm::testing::AnchorQueueNow;

constexpr uint32_t kListingBlock = RecordCache::kBlockJobs;

// The anchor queue spread over three record blocks (ids moved apart, arrays kept whole), plus
// a few hundred pending jobs of one user.
RecordCache::Jobs Jobs() {
  RecordCache::Jobs jobs;
  for (const v1::Job& anchor : AnchorQueue()) {
    v1::Job job = anchor;
    const uint32_t shift =
        job.array_job_id() != 0 ? kListingBlock : (job.job_id() % 3) * kListingBlock;
    job.set_job_id(job.job_id() + shift);
    if (job.array_job_id() != 0) job.set_array_job_id(job.array_job_id() + shift);
    jobs[job.job_id()] = job;
  }
  for (uint32_t i = 0; i < 300; ++i) {
    v1::Job job = slurm::testing::AnchorJob(21442);
    job.set_job_id(21442 + 2 * kListingBlock + i * 7);
    job.set_priority(1000 + i % 13);
    jobs[job.job_id()] = job;
  }
  return jobs;
}

v1::SqueueView View(std::string format, std::string sort = "") {
  v1::SqueueView view;
  view.set_format(std::move(format));
  view.set_sort(std::move(sort));
  return view;
}

// The listing made from the records in one piece (what squeue makes when it lists them).
std::string OnePiece(const v1::SqueueView& view, const RecordCache::Jobs& jobs, UnixTime now) {
  const slurm::SqueueQuery query = *slurm::QueryOf(view);
  slurm::ListingPiece piece = slurm::NewPiece(query, jobs.size());
  for (const auto& [id, job] : jobs) {
    slurm::AddRecord(query, job, slurm::JobPrintContext{now, &TimeZone::Utc(), "c1"}, &piece);
  }
  const slurm::ListingPiece* pieces[] = {&piece};
  return slurm::OrderedText(pieces);
}

// A listing's lines, from its fields.
std::string Text(const ListingCache::Listing& listing) {
  v1::GetJobsReply reply;
  EXPECT_TRUE(reply.ParseFromString(listing.fields.Flatten()));
  std::string text;
  for (const std::string& lines : reply.lines()) {
    EXPECT_EQ(lines.back(), '\n');
    EXPECT_LE(lines.size(), ListingCache::kLinesFieldBytes + 200);
    text += lines;
  }
  EXPECT_EQ(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')), listing.lines);
  return text;
}

struct Fixture {
  RecordCache::Jobs jobs = Jobs();
  RecordCache records{model::JobRecordForm::kSlim};
  ListingCache listings;

  std::shared_ptr<const ListingCache::Listing> Make(const v1::SqueueView& view, UnixTime now) {
    const model::JobRecordForm form = *ListingCache::FormOf(view);
    RecordCache& cache = form == model::JobRecordForm::kSlim ? records : full;
    Result<std::shared_ptr<const ListingCache::Listing>> listing =
        listings.Make(view, cache.Blocks(jobs, {}), now, "c1");
    EXPECT_TRUE(listing.ok()) << listing.status().message();
    return listing.ok() ? *listing : std::make_shared<ListingCache::Listing>();
  }
  void Change(uint32_t id, const std::function<void(v1::Job&)>& edit) {
    edit(jobs.at(id));
    records.Forget(id);
    full.Forget(id);
  }
  RecordCache full{model::JobRecordForm::kFull};
};

TEST(ListingCacheTest, AListingIsTheOneSqueueMakesFromTheRecords) {
  Fixture f;
  for (const char* sort : {"", "u,-i", "-p,j"}) {
    for (const char* format : {slurm::kSqueueDefaultFormat, slurm::kSqueueLongFormat, "%i %a %Q"}) {
      v1::SqueueView view = View(format, sort);
      for (bool expand : {false, true}) {
        view.set_expand_arrays(expand);
        EXPECT_EQ(Text(*f.Make(view, AnchorQueueNow())), OnePiece(view, f.jobs, AnchorQueueNow()))
            << format << " sorted by " << sort;
      }
    }
  }
  v1::SqueueView bob = View("%i %u");
  bob.set_user_filter(true);
  bob.add_user_ids(1002);
  EXPECT_EQ(Text(*f.Make(bob, AnchorQueueNow())), OnePiece(bob, f.jobs, AnchorQueueNow()));
  EXPECT_NE(Text(*f.Make(bob, AnchorQueueNow())).find("bob"), std::string::npos);
  EXPECT_EQ(Text(*f.Make(bob, AnchorQueueNow())).find("alice"), std::string::npos);
}

TEST(ListingCacheTest, AListingIsKeptUntilAJobChangesOrTimeChangesALine) {
  Fixture f;
  const UnixTime now = AnchorQueueNow();
  v1::SqueueView pending = View(slurm::kSqueueDefaultFormat);
  pending.set_states("PD");
  const v1::SqueueView all = View(slurm::kSqueueDefaultFormat);

  f.Make(pending, now);  // asked once: not kept
  const auto first = f.Make(pending, now);
  EXPECT_EQ(f.Make(pending, now), first);
  // Pending jobs' lines do not change with time until an expected start passes (the BeginTime
  // job's, an hour on).
  EXPECT_EQ(f.Make(pending, now + 60), first);
  EXPECT_NE(f.Make(pending, now + 3600), first);
  // Running jobs' TIME does.
  f.Make(all, now);
  const auto running = f.Make(all, now);
  EXPECT_EQ(f.Make(all, now), running);
  const auto later = f.Make(all, now + 5);
  EXPECT_NE(later, running);
  EXPECT_EQ(Text(*later), OnePiece(all, f.jobs, now + 5));
  // A clock set back gets the listing of its own time.
  EXPECT_EQ(Text(*f.Make(all, now + 2)), OnePiece(all, f.jobs, now + 2));

  // A changed job remakes the listing, with its new values.
  const uint32_t id = 21442 + 2 * kListingBlock + 7 * 10;
  f.Change(id, [](v1::Job& job) { job.mutable_request()->set_name("renamed"); });
  const auto changed = f.Make(pending, now + 60);
  EXPECT_NE(changed, first);
  EXPECT_NE(Text(*changed).find("renamed"), std::string::npos);
  EXPECT_EQ(Text(*changed), OnePiece(pending, f.jobs, now + 60));
  f.jobs.erase(id);
  f.records.Forget(id);
  EXPECT_EQ(Text(*f.Make(pending, now + 60)), OnePiece(pending, f.jobs, now + 60));
}

TEST(ListingCacheTest, ManyViewsAreServedAndTheOldestDropped) {
  Fixture f;
  std::vector<v1::SqueueView> views;
  for (size_t i = 0; i < ListingCache::kViews + 3; ++i) {
    views.push_back(View("%i %" + std::to_string(i + 2) + "j"));
  }
  std::vector<std::shared_ptr<const ListingCache::Listing>> made;
  for (const v1::SqueueView& view : views) {
    f.Make(view, AnchorQueueNow());
    made.push_back(f.Make(view, AnchorQueueNow()));
    EXPECT_EQ(Text(*made.back()), OnePiece(view, f.jobs, AnchorQueueNow()));
  }
  EXPECT_EQ(f.Make(views.back(), AnchorQueueNow()), made.back());    // used last: kept
  EXPECT_NE(f.Make(views.front(), AnchorQueueNow()), made.front());  // dropped: made again
}

TEST(ListingCacheTest, AViewIsKeptFromItsSecondRequestOn) {
  Fixture f;
  const v1::SqueueView view = View("%i %9j");
  const auto once = f.Make(view, AnchorQueueNow());
  const auto twice = f.Make(view, AnchorQueueNow());
  EXPECT_NE(twice, once);  // the first was not kept: made again
  EXPECT_EQ(Text(*twice), Text(*once));
  EXPECT_EQ(f.Make(view, AnchorQueueNow()), twice);
  // Views asked once in between do not push it out, however many.
  for (int i = 0; i < 40; ++i)
    f.Make(View("%i %" + std::to_string(i + 10) + "j"), AnchorQueueNow());
  EXPECT_EQ(f.Make(view, AnchorQueueNow()), twice);
}

TEST(ListingCacheTest, AKeptListingIsSlicesOfItsPiecesText) {
  Fixture f;
  const v1::SqueueView by_id = View("%i %j", "i");
  f.Make(by_id, AnchorQueueNow());
  const auto listing = f.Make(by_id, AnchorQueueNow());
  EXPECT_EQ(Text(*listing), OnePiece(by_id, f.jobs, AnchorQueueNow()));
  // In id order a piece's lines mostly follow one another in its text (an array's tasks may
  // come apart from their record): a few slices per piece beside the fields' heads, however
  // many lines.
  const size_t blocks = f.records.Blocks(f.jobs, {}).size();
  const size_t fields = listing->fields.Flatten().size() / ListingCache::kLinesFieldBytes + 1;
  EXPECT_LE(listing->fields.parts.size(), fields + 2 * blocks);
  EXPECT_LT(10 * listing->fields.parts.size(), listing->lines);
}

TEST(ListingCacheTest, AListingThatInterleavesItsPiecesIsOneCopyOfItsText) {
  Fixture f;
  const v1::SqueueView backwards = View("%i %j", "-i");  // every line its own run
  f.Make(backwards, AnchorQueueNow());
  const auto listing = f.Make(backwards, AnchorQueueNow());
  EXPECT_EQ(Text(*listing), OnePiece(backwards, f.jobs, AnchorQueueNow()));
  EXPECT_EQ(listing->fields.parts.size(), 1u);
}

TEST(ListingCacheTest, AOneOffViewIsFreedByCollectNotByItsRequest) {
  Fixture f;
  EXPECT_FALSE(f.listings.Collect());
  const auto once = f.Make(View("%i %5j"), AnchorQueueNow());
  EXPECT_TRUE(f.listings.Collect());
  EXPECT_FALSE(f.listings.Collect());
  EXPECT_EQ(Text(*once), OnePiece(View("%i %5j"), f.jobs, AnchorQueueNow()));  // its own text
  f.Make(View("%i %5j"), AnchorQueueNow());  // kept from now on: nothing to free
  EXPECT_FALSE(f.listings.Collect());
}

TEST(ListingCacheTest, ABadViewIsRefusedNamingTheField) {
  ListingCache listings;
  Result<model::JobRecordForm> bad_sort = ListingCache::FormOf(View("%i", "x"));
  ASSERT_FALSE(bad_sort.ok());
  EXPECT_EQ(bad_sort.status().message(), "squeue view: sort: Invalid sort specification: x");
  Result<std::shared_ptr<const ListingCache::Listing>> local =
      listings.Make(View("%i %V"), {}, AnchorQueueNow(), "c1");
  ASSERT_FALSE(local.ok());
  EXPECT_EQ(local.status().message(),
            "squeue view: format: prints a time of day, which only the command can (its time "
            "zone)");
  // Lines wider than gantryd makes (the command makes those), and an oversized view.
  Result<std::shared_ptr<const ListingCache::Listing>> wide =
      listings.Make(View("%8000i %200j"), {}, AnchorQueueNow(), "c1");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(),
            "squeue view: format: lines up to 8201 bytes wide; gantryd makes listings of lines "
            "up to 8192 (the command makes wider ones)");
  EXPECT_FALSE(slurm::ControllerCanList(*slurm::QueryOf(View("%8000i %200j"))));
  EXPECT_TRUE(slurm::ControllerCanList(*slurm::QueryOf(View("%8000i %100j"))));
  v1::SqueueView huge = View("%i");
  for (int i = 0; i < 20000; ++i) huge.add_names("name");
  EXPECT_EQ(listings.Make(huge, {}, AnchorQueueNow(), "c1").status().message(),
            "squeue view: 120004 bytes; at most 65536");
  // A malformed record fails the listing, and the next good one is made whole.
  auto bad = std::make_shared<RecordCache::Block>();
  bad->bytes = "\x0a\x03\xff\xff\xff";
  bad->entries.push_back({1, 0, 0, 5});
  const std::shared_ptr<const RecordCache::Block> blocks[] = {bad};
  EXPECT_FALSE(listings.Make(View("%i"), blocks, AnchorQueueNow(), "c1").ok());
  Result<std::shared_ptr<const ListingCache::Listing>> empty =
      listings.Make(View("%i"), {}, AnchorQueueNow(), "c1");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->lines, 0u);
}

TEST(ListingCacheTest, FormIsTheShortestTheQueryReads) {
  EXPECT_EQ(*ListingCache::FormOf(View(slurm::kSqueueDefaultFormat)), model::JobRecordForm::kSlim);
  EXPECT_EQ(*ListingCache::FormOf(View("%i %Z")), model::JobRecordForm::kFull);
}

}  // namespace
}  // namespace gantry::ctld
