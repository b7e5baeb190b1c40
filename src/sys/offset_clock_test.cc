#include "sys/offset_clock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "sys/files.h"

namespace gantry::sys {
namespace {

class SteppedClock final : public Clock {
 public:
  UnixTime Now() const override { return 1'800'000'000; }
  int64_t MonotonicMs() const override { return ms; }
  int64_t ms = 1000;
};

class OffsetClockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/offset-clock-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/offset";
  }
  void TearDown() override {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  void Write(const std::string& text) { ASSERT_TRUE(WriteFileAtomically(path_, text, 0644).ok()); }

  std::string dir_;
  std::string path_;
  SteppedClock base_;
};

TEST_F(OffsetClockTest, ShiftsWallTimeButNotMonotonicTime) {
  Write("3600\n");
  FileOffsetClock clock(path_, &base_);
  EXPECT_EQ(clock.Now(), 1'800'003'600);
  EXPECT_EQ(clock.MonotonicMs(), 1000);
}

TEST_F(OffsetClockTest, RereadsTheFileAfterAWhile) {
  Write("-600");
  FileOffsetClock clock(path_, &base_);
  EXPECT_EQ(clock.OffsetSeconds(), -600);
  Write("+90");
  base_.ms += 100;
  EXPECT_EQ(clock.OffsetSeconds(), -600);  // read 100 ms ago
  base_.ms += 150;
  EXPECT_EQ(clock.OffsetSeconds(), 90);
}

TEST_F(OffsetClockTest, MissingOrMalformedFilesMeanNoOffset) {
  FileOffsetClock clock(path_, &base_);
  for (const char* text : {"", "soon", "12x", "99999999999999999999", "3600 600"}) {
    base_.ms += 1000;
    if (*text != '\0') Write(text);
    EXPECT_EQ(clock.OffsetSeconds(), 0) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace gantry::sys
