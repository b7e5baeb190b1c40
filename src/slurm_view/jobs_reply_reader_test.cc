#include "slurm_view/jobs_reply_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gantry/v1/controller.pb.h"
#include "model/job_brief.h"

namespace gantry::slurm {
namespace {

constexpr UnixTime kNow = 1764000000;

v1::Job MakeJob(uint32_t id, std::string name, std::vector<std::string> nodes) {
  v1::Job job;
  job.set_job_id(id);
  job.mutable_request()->set_name(std::move(name));
  job.mutable_request()->add_partitions("gpu");
  for (std::string& n : nodes) job.add_nodes(std::move(n));
  return job;
}

std::vector<v1::Job> SampleJobs() {
  return {MakeJob(1, "train-a-rather-long-job-name", {"n1", "n2"}), MakeJob(2, "b", {}),
          MakeJob(3, "", {"n3"})};
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// The reply as gantryd's command socket writes it: the head, then the jobs.
std::string HeadFirst(const std::vector<v1::Job>& jobs) {
  std::string out;
  out.push_back(0x10);
  PutVarint(&out, kNow);
  out.push_back(0x18);
  PutVarint(&out, jobs.size());
  for (const v1::Job& job : jobs) {
    const std::string bytes = job.SerializeAsString();
    out.push_back(0x0A);
    PutVarint(&out, bytes.size());
    out += bytes;
  }
  return out;
}

struct Seen {
  std::vector<JobsReplyHead> heads;
  std::vector<std::string> jobs;  // serialized, to compare whole records
  std::vector<UnixTime> now_at_job;
};

JobsReplyVisitor Recorder(Seen* seen) {
  JobsReplyVisitor visitor;
  visitor.start = [seen](const JobsReplyHead& head) { seen->heads.push_back(head); };
  visitor.job = [seen](const v1::Job& job) {
    seen->jobs.push_back(job.SerializeAsString());
    seen->now_at_job.push_back(seen->heads.empty() ? 0 : seen->heads.back().now);
    return Status::Ok();
  };
  return visitor;
}

// As the reader hands them out: a record without a request shows an empty one.
std::vector<std::string> Serialized(std::vector<v1::Job> jobs) {
  std::vector<std::string> out;
  for (v1::Job& job : jobs) {
    job.mutable_request();
    out.push_back(job.SerializeAsString());
  }
  return out;
}

TEST(JobsReplyReaderTest, EveryJobArrivesWholeHoweverTheReplyIsCut) {
  const std::string reply = HeadFirst(SampleJobs());
  for (size_t piece = 1; piece <= reply.size(); ++piece) {
    Seen seen;
    JobsReplyReader reader(Recorder(&seen));
    for (size_t at = 0; at < reply.size(); at += piece) {
      ASSERT_TRUE(reader.Feed(std::string_view(reply).substr(at, piece)).ok()) << piece;
    }
    Result<JobsReplyHead> head = reader.Finish();
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(head->now, kNow);
    EXPECT_EQ(head->jobs_at_most, 3u);
    ASSERT_EQ(seen.heads.size(), 1u) << "start comes once";
    EXPECT_EQ(seen.jobs, Serialized(SampleJobs())) << "pieces of " << piece << " bytes";
    EXPECT_EQ(seen.now_at_job, std::vector<UnixTime>(3, kNow)) << "the head comes first";
  }
}

TEST(JobsReplyReaderTest, JobsWaitForANowThatComesLast) {
  // The usual serialization (gRPC): jobs (field 1) before now (field 2).
  v1::GetJobsReply reply;
  for (const v1::Job& job : SampleJobs()) *reply.add_jobs() = job;
  reply.set_now(kNow);
  const std::string bytes = reply.SerializeAsString();
  for (size_t piece : {size_t{1}, size_t{7}, bytes.size()}) {
    Seen seen;
    JobsReplyReader reader(Recorder(&seen));
    for (size_t at = 0; at < bytes.size(); at += piece) {
      ASSERT_TRUE(reader.Feed(std::string_view(bytes).substr(at, piece)).ok());
    }
    ASSERT_TRUE(reader.Finish().ok());
    EXPECT_EQ(seen.jobs, Serialized(SampleJobs()));
    EXPECT_EQ(seen.now_at_job, std::vector<UnixTime>(3, kNow));
  }
}

TEST(JobsReplyReaderTest, AReplyWithoutJobsOrNowStillStarts) {
  Seen seen;
  JobsReplyReader reader(Recorder(&seen));
  Result<JobsReplyHead> head = reader.Finish();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->now, 0);
  EXPECT_EQ(seen.heads.size(), 1u);
  EXPECT_TRUE(seen.jobs.empty());
}

TEST(JobsReplyReaderTest, AReusedRecordKeepsNothingOfTheOneBefore) {
  // The second job has none of the first one's name, nodes or request fields.
  v1::Job bare;
  bare.set_job_id(9);
  const std::vector<v1::Job> jobs = {MakeJob(8, "first", {"n1"}), bare};
  Seen seen;
  JobsReplyReader reader(Recorder(&seen));
  ASSERT_TRUE(reader.Feed(HeadFirst(jobs)).ok());
  ASSERT_TRUE(reader.Finish().ok());
  EXPECT_EQ(seen.jobs, Serialized(jobs));
}

TEST(JobsReplyReaderTest, ASlimListingReusesOneMessageAndKeepsNothingOfTheRecordBefore) {
  v1::Job bare;
  bare.set_job_id(9);
  std::vector<v1::Job> jobs = SampleJobs();
  jobs.push_back(bare);
  for (v1::Job& job : jobs) {
    v1::Job slim;
    model::CopySlimJob(job, &slim);
    job = slim;
  }
  Seen seen;
  JobsReplyReader reader(Recorder(&seen), /*slim=*/true);
  ASSERT_TRUE(reader.Feed(HeadFirst(jobs)).ok());
  ASSERT_TRUE(reader.Finish().ok());
  EXPECT_EQ(seen.jobs, Serialized(jobs));
}

TEST(JobsReplyReaderTest, ManyRecordsArriveWholeAcrossArenaRestarts) {
  // More records than the reader's arena holds at once (it starts again after 512 KiB).
  std::vector<v1::Job> jobs;
  for (uint32_t id = 1; id <= 3000; ++id) {
    jobs.push_back(MakeJob(id, std::string(200 + id % 7, 'x'), {"n" + std::to_string(id)}));
  }
  Seen seen;
  JobsReplyReader reader(Recorder(&seen));
  ASSERT_TRUE(reader.Feed(HeadFirst(jobs)).ok());
  ASSERT_TRUE(reader.Finish().ok());
  EXPECT_EQ(seen.jobs, Serialized(jobs));
}

TEST(JobsReplyReaderTest, MalformedAndTruncatedRepliesAreErrors) {
  const std::string reply = HeadFirst(SampleJobs());
  {
    Seen seen;
    JobsReplyReader reader(Recorder(&seen));
    ASSERT_TRUE(reader.Feed(reply.substr(0, reply.size() - 1)).ok());
    Result<JobsReplyHead> head = reader.Finish();
    EXPECT_EQ(head.status().message(), "the controller's job list ended in the middle of a record");
  }
  {
    Seen seen;
    JobsReplyReader reader(Recorder(&seen));
    EXPECT_EQ(reader.Feed(std::string("\x0B", 1)).message(),  // field 1 as a group
              "the controller's job list is malformed");
  }
  {
    Seen seen;
    JobsReplyReader reader(Recorder(&seen));
    std::string bad = "\x10\x01\x0A\x02\xFF\xFF";  // a record that is no Job
    EXPECT_EQ(reader.Feed(bad).message(), "the controller's job list has a malformed record");
  }
}

TEST(JobsReplyReaderTest, TheVisitorsErrorEndsTheListing) {
  JobsReplyVisitor visitor;
  int calls = 0;
  visitor.job = [&calls](const v1::Job&) {
    ++calls;
    return InvalidArgument("stop");
  };
  JobsReplyReader reader(visitor);
  EXPECT_EQ(reader.Feed(HeadFirst(SampleJobs())).message(), "stop");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace gantry::slurm
