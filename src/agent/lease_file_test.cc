#include "agent/lease_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "agent/test_support.h"

namespace gantry::agent {
namespace {

using testing::TempDir;

TEST(LeaseRecord, RoundTripsInAFixedSize) {
  const LeaseRecord record{123456789, 4242, 98765};
  const std::string bytes = FormatLeaseRecord(record);
  EXPECT_EQ(bytes.size(), kLeaseRecordSize);
  EXPECT_EQ(bytes.rfind("lease 123456789 4242 98765 ", 0), 0u) << bytes;
  Result<LeaseRecord> parsed = ParseLeaseRecord(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, record);
}

// A read that raced a write, or anything else, is refused rather than misread.
TEST(LeaseRecord, RefusesTornOrForeignBytes) {
  const std::string good = FormatLeaseRecord(LeaseRecord{123456789, 4242, 98765});
  std::string torn = good;
  torn[7] = '9';  // one digit of the deadline from another write
  std::string wrong_checksum = good;
  wrong_checksum[good.find(' ', 27) - 1] ^= 1;
  struct Case {
    std::string bytes;
    std::string error;
  } cases[] = {
      {torn, "lease record: checksum mismatch (torn or damaged)"},
      {good.substr(0, 40), "lease record: expected 64 bytes ending in a newline, got 40"},
      {"", "lease record: expected 64 bytes ending in a newline, got 0"},
      {std::string(63, ' ') + "\n", "lease record: expected \"lease DEADLINE PID TICKS SUM\""},
  };
  for (const Case& c : cases) {
    Result<LeaseRecord> parsed = ParseLeaseRecord(c.bytes);
    ASSERT_FALSE(parsed.ok()) << c.bytes;
    EXPECT_EQ(parsed.status().message(), c.error);
  }
  EXPECT_FALSE(ParseLeaseRecord(wrong_checksum).ok());
}

// The file keeps its size and is rewritten in place; a new opener sees what was there.
TEST(LeaseFile, RewritesInPlaceAndHandsOnTheLastRecord) {
  TempDir tmp;
  const std::string path = tmp / "lease";
  EXPECT_EQ(ReadLeaseFile(path).status().code(), StatusCode::kNotFound);
  {
    Result<LeaseFile> file = LeaseFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_EQ(file->inherited().deadline_ms, 0);
    ASSERT_TRUE(file->Write(LeaseRecord{5000, 10, 20}).ok());
    ASSERT_TRUE(file->Write(LeaseRecord{6000, 10, 20}).ok());
  }
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), kLeaseRecordSize);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  Result<LeaseRecord> read = ReadLeaseFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, (LeaseRecord{6000, 10, 20}));
  Result<LeaseFile> again = LeaseFile::Open(path);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->inherited(), (LeaseRecord{6000, 10, 20}));
}

}  // namespace
}  // namespace gantry::agent
