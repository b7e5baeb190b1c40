#include "sim/swf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/trace_file.h"

namespace gantry::sim {
namespace {

constexpr char kTrace[] =
    "; Version: 2.2\n"
    "; Computer: Intel iPSC/860\n"
    ";\n"
    "; MaxNodes: 128\n"
    ";              http://example.org/ (a value continued: not a field)\n"
    "; Queue:  0  interactive\n"
    "; Queue:  1  batch\n"
    "    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1\n"
    "\n"
    "    2     1460     30   3726   64   12.5   100   64   4000  200  1   4   2   3  1  0  1  "
    "60\r\n"
    "    3     1460     -1     10    1     -1    -1   -1     -1    -1  5   4   1   2 -1 -1 -1 -1\n";

TEST(SwfTest, ReadsJobsAndHeader) {
  Result<SwfTrace> trace = ParseSwf(kTrace, "t.swf");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->jobs.size(), 3u);
  const SwfJob& second = trace->jobs[1];
  EXPECT_EQ(second.job_number, 2);
  EXPECT_EQ(second.submit_s, 1460);
  EXPECT_EQ(second.wait_s, 30);
  EXPECT_EQ(second.run_s, 3726);
  EXPECT_EQ(second.allocated_procs, 64);
  EXPECT_DOUBLE_EQ(second.avg_cpu_s, 12.5);
  EXPECT_EQ(second.used_memory_kib, 100);
  EXPECT_EQ(second.requested_procs, 64);
  EXPECT_EQ(second.requested_time_s, 4000);
  EXPECT_EQ(second.requested_memory_kib, 200);
  EXPECT_EQ(second.status, 1);
  EXPECT_EQ(second.user, 4);
  EXPECT_EQ(second.group, 2);
  EXPECT_EQ(second.executable, 3);
  EXPECT_EQ(second.queue, 1);
  EXPECT_EQ(second.partition, 0);
  EXPECT_EQ(second.preceding_job, 1);
  EXPECT_EQ(second.think_time_s, 60);
  EXPECT_EQ(trace->jobs[0].wait_s, -1);  // not known
  EXPECT_EQ(trace->jobs[2].status, 5);   // cancelled

  EXPECT_EQ(trace->HeaderNumber("MaxNodes"), 128);
  EXPECT_EQ(trace->HeaderNumber("Computer"), std::nullopt);  // not a number
  EXPECT_EQ(trace->HeaderNumber("MaxProcs"), std::nullopt);  // absent
  std::vector<std::string> queues;
  for (const auto& [key, value] : trace->header) {
    if (key == "Queue") queues.push_back(value);
  }
  EXPECT_EQ(queues, (std::vector<std::string>{"0  interactive", "1  batch"}));
}

TEST(SwfTest, FormatsWhatParsesBackTheSame) {
  Result<SwfTrace> trace = ParseSwf(kTrace, "t.swf");
  ASSERT_TRUE(trace.ok());
  const std::string text = FormatSwf(*trace);
  Result<SwfTrace> again = ParseSwf(text, "formatted");
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << text;
  EXPECT_EQ(again->jobs, trace->jobs);
  EXPECT_EQ(again->header, trace->header);
  EXPECT_EQ(FormatSwf(*again), text);
}

// Each damage names the file, the line, the field, the value and the rule.
TEST(SwfTest, RefusesDamagedTracesNamingLineFieldAndRule) {
  const std::string ok = "1 0 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"1 0 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1\n",
       "t:1: an SWF job line has 18 fields, this one 17"},
      {"1 0 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1 7\n",
       "t:1: more than the 18 fields of an SWF job line"},
      {"1 0 -1 1x 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 4 (run time): \"1x\" is not a whole number"},
      {"1 0 -1 10 1 abc -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 6 (average CPU time): \"abc\" is not a number"},
      {"1 0 -1 -5 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 4 (run time): \"-5\" is negative (-1, \"not known\", is the only negative "
       "value)"},
      {"0 0 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 1 (job number): 0: must be 1 or more"},
      {ok + ";\n" + ok, "t:3: field 1 (job number): job 1 is already on line 1"},
      {"1 -1 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 2 (submit time): -1: a replay needs every job's"},
      {"1 50 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
       "2 40 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:2: field 2 (submit time): 40 is before line 1's 50 (SWF lists jobs by submit time)"},
      {"1 0 -1 10 1 -1 -1 -1 -1 -1 9 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 11 (status): 9: not an SWF status (-1, 0 to 5)"},
      {"1 0 -1 99999999999999999999 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
       "t:1: field 4 (run time): \"99999999999999999999\" is not a whole number"},
  };
  for (const Case& c : cases) {
    Result<SwfTrace> trace = ParseSwf(c.text, "t");
    ASSERT_FALSE(trace.ok()) << c.text;
    EXPECT_EQ(trace.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(trace.status().message(), c.error) << c.text;
  }
}

TEST(SwfTest, AnEmptyTraceHasNoJobs) {
  Result<SwfTrace> trace = ParseSwf("; Version: 2.2\n\n", "t");
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->jobs.empty());
}

// The trace shipped in data/traces/, read from its gzip file.
TEST(SwfTest, ReadsTheShippedNasaTrace) {
  const std::string path =
      std::string(GANTRY_SOURCE_DIR) + "/data/traces/NASA-iPSC-1993-3.1-cln.swf.gz";
  Result<std::string> text = ReadTraceText(path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<SwfTrace> trace = ParseSwf(*text, path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->jobs.size(), 18239u);
  EXPECT_EQ(trace->HeaderNumber("MaxNodes"), 128);
  EXPECT_EQ(trace->jobs.front().job_number, 1);
  EXPECT_EQ(trace->jobs.front().run_s, 1451);
  EXPECT_EQ(trace->jobs.front().allocated_procs, 128);
}

class TraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/gantry-trace-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string dir_;
};

TEST_F(TraceFileTest, ReadsPlainText) {
  Result<std::string> text = ReadTraceText(Write("plain.swf", "; Version: 2.2\n"));
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "; Version: 2.2\n");
}

TEST_F(TraceFileTest, SaysWhatIsWrong) {
  Result<std::string> missing = ReadTraceText(dir_ + "/none.swf");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "trace " + dir_ + "/none.swf: No such file or directory");
  // A gzip header, then no deflate stream but garbage; a header cut short.
  const std::string header("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  Result<std::string> garbage = ReadTraceText(Write("garbage.swf.gz", header + "\xff\xff\xff\xff"));
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      garbage.status().message().rfind("trace " + dir_ + "/garbage.swf.gz: damaged gzip data: ", 0),
      0u)
      << garbage.status().message();
  Result<std::string> cut = ReadTraceText(Write("cut.swf.gz", header.substr(0, 4)));
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidArgument) << cut.status().message();
  EXPECT_EQ(ReadTraceText(Write("long.swf", std::string(100, 'x')), 99).status().message(),
            "trace " + dir_ + "/long.swf: longer than 99 bytes once uncompressed");
}

}  // namespace
}  // namespace gantry::sim
