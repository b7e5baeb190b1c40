#include "text/duration.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace gantry::text {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

struct ParseCase {
  std::string_view text;
  int64_t seconds;
};

TEST(ParseDurationSecondsTest, AcceptsEverySlurmForm) {
  const ParseCase cases[] = {
      {"0", 0},                        // M
      {"5", 300},                      // M
      {"90", 5400},                    // minutes are not capped at 59
      {"5:30", 330},                   // M:S
      {"0:90", 90},                    // seconds are not capped at 59 either
      {"1:99", 159},                   //
      {"1:00:00", 3600},               // H:M:S
      {"2:30:15", 9015},               //
      {"00:00:00", 0},                 //
      {"1-0", 86400},                  // D-H
      {"1-2", 93600},                  //
      {"7-0", 604800},                 // PriorityMaxAge's default
      {"1-2:30", 95400},               // D-H:M
      {"1-2:30:15", 95415},            // D-H:M:S
      {"1-01:01:01", 90061},           //
      {"5-", 432000},                  // Slurm's sscanf stops after "D-": D days
      {"0007", 420},                   // leading zeros
      {"24855-03:14:07", 2147483647},  // the largest value Slurm's int holds
      {"35791394", 2147483640},        // the most minutes that fit
  };
  for (const ParseCase& c : cases) {
    const Result<int64_t> r = ParseDurationSeconds(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.status().ToString();
    EXPECT_EQ(*r, c.seconds) << c.text;
  }
}

TEST(ParseDurationSecondsTest, NoLimitSpellingsAreCaseInsensitive) {
  for (std::string_view text :
       {"-1", "INFINITE", "infinite", "Infinite", "UNLIMITED", "unlimited", "UnLimited"}) {
    const Result<int64_t> r = ParseDurationSeconds(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_EQ(*r, kInfiniteDuration) << text;
  }
}

TEST(ParseDurationSecondsTest, RefusesWhatSlurmRefuses) {
  for (std::string_view text : {
           "",             // Slurm: NO_VAL
           " 5",           // spaces are not allowed anywhere
           "5 ",           //
           "1 :00",        //
           "abc",          // sbatch -t abc: "Invalid --time specification"
           "99:99:99:99",  // sbatch -t 99:99:99:99: same error (four ':' fields)
           "1h",           // no units
           "+5",           // no signs
           "1.5",          // no decimals
           "-",            //
           "1-2-3",        // one '-' at most
           "1:2-3",        // '-' only before the clock fields
           ":5",           // empty fields
           "5:",           //
           "1::2",         //
           "1-:2",         //
           "1-2:",         //
           "1-2:3:4:5",    //
           "infinity",     //
           "-1 ",          //
       }) {
    const Result<int64_t> r = ParseDurationSeconds(text);
    EXPECT_FALSE(r.ok()) << '"' << text << "\" parsed as " << (r.ok() ? *r : 0);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_THAT(r.status().message(),
                  AllOf(HasSubstr("invalid duration \"" + std::string(text) + "\""),
                        HasSubstr("expected M, M:S, H:M:S, D-H, D-H:M or D-H:M:S")));
    }
  }
}

TEST(ParseDurationSecondsTest, RefusesNegativeValuesThatSlurmWouldWrap) {
  // Slurm 22.05 accepted `sbatch -t -5` (anchors errors.txt: "Submitted batch job 21452"):
  // sscanf reads -5 days and the result wraps in the unsigned time limit. Gantry refuses it.
  for (std::string_view text : {"-5", "-2", "-0", "-10"}) {
    const Result<int64_t> r = ParseDurationSeconds(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("negative durations are not allowed")) << text;
  }
}

TEST(ParseDurationSecondsTest, RefusesValuesTooLargeForSlurmInsteadOfWrapping) {
  for (std::string_view text : {"24855-03:14:08", "24856-0", "35791395", "99999999999999999999",
                                "1:99999999999999999999", "596523:14:08"}) {
    const Result<int64_t> r = ParseDurationSeconds(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.status().message(),
                HasSubstr("longer than the maximum 24855-03:14:07 (2147483647 seconds)"))
        << text;
  }
}

TEST(ParseDurationSecondsTest, RefusesEmbeddedNulBytes) {
  for (std::string_view text : {std::string_view("1\0"
                                                 "2",
                                                 3),
                                std::string_view("5\0", 2), std::string_view("\0", 1)}) {
    EXPECT_FALSE(ParseDurationSeconds(text).ok()) << text.size();
  }
}

TEST(ParseDurationSecondsTest, ErrorMessageEscapesUnprintableBytes) {
  const Result<int64_t> r = ParseDurationSeconds(std::string_view("1\0\n\"", 4));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("invalid duration \"1\\x00\\x0a\\\"\""));
}

TEST(ParseDurationMinutesTest, RoundsSecondsUpLikeTimeStr2mins) {
  const ParseCase cases[] = {
      {"0", 0},
      {"30", 30},
      {"0:01", 1},
      {"1:30", 2},
      {"1:00", 1},
      {"59:59", 60},
      {"1:00:01", 61},
      {"2:00:00", 120},
      {"1-0", 1440},
      {"0:00:59", 1},
      {"24855-03:14:07", 35791395},
  };
  for (const ParseCase& c : cases) {
    const Result<int64_t> r = ParseDurationMinutes(c.text);
    ASSERT_TRUE(r.ok()) << c.text;
    EXPECT_EQ(*r, c.seconds) << c.text;
  }
  const Result<int64_t> unlimited = ParseDurationMinutes("UNLIMITED");
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(*unlimited, kInfiniteDuration);
  EXPECT_FALSE(ParseDurationMinutes("abc").ok());
}

struct FormatCase {
  int64_t value;
  std::string_view text;
};

TEST(FormatDurationSecondsTest, MatchesSecs2timeStr) {
  const FormatCase cases[] = {
      {0, "00:00:00"},        // PreemptExemptTime = 00:00:00 (show config)
      {13, "00:00:13"},       // RunTime=00:00:13 (scontrol show job)
      {28, "00:00:28"},       // sacct Elapsed 00:00:28
      {3600, "01:00:00"},     //
      {86399, "23:59:59"},    //
      {86400, "1-00:00:00"},  //
      {90061, "1-01:01:01"},  //
      {2147483647, "24855-03:14:07"},
      {4294967294, "49710-06:28:14"},  // what secs2time_str would print for NO_VAL
      {kInfiniteDuration, "UNLIMITED"},
      {-2, "INVALID"},
      {INT64_MIN, "INVALID"},
  };
  for (const FormatCase& c : cases) EXPECT_EQ(FormatDurationSeconds(c.value), c.text) << c.value;
}

TEST(FormatDurationMinutesTest, MatchesMins2timeStr) {
  const FormatCase cases[] = {
      {120, "02:00:00"},  // TimeLimit=02:00:00 (scontrol show job)
      {0, "00:00:00"},
      {10, "00:10:00"},
      {1439, "23:59:00"},
      {1440, "1-00:00:00"},
      {10080, "7-00:00:00"},
      {4294967294, "2982616-04:14:00"},  // what mins2time_str would print for NO_VAL
      {kInfiniteDuration, "UNLIMITED"},  // MaxTime=UNLIMITED (scontrol show partition)
      {-7199, "INVALID"},
  };
  for (const FormatCase& c : cases) EXPECT_EQ(FormatDurationMinutes(c.value), c.text) << c.value;
}

TEST(FormatElapsedTest, MatchesSqueuePrintSecs) {
  const FormatCase cases[] = {
      {0, "0:00"},            // squeue TIME of a pending job
      {39, "0:39"},           // squeue: 0:39
      {65, "1:05"},           //
      {1800, "30:00"},        // squeue -l TIME_LIMIT 30:00
      {3599, "59:59"},        //
      {3600, "1:00:00"},      // squeue -l TIME_LIMIT 1:00:00
      {14400, "4:00:00"},     // squeue -l TIME_LIMIT 4:00:00
      {86399, "23:59:59"},    //
      {86400, "1-00:00:00"},  //
      {90061, "1-01:01:01"},  //
      {31536000, "365-00:00:00"},
      {31536001, "INVALID"},  // squeue prints INVALID beyond a year
      {kInfiniteDuration, "UNLIMITED"},
      {-2, "INVALID"},
  };
  for (const FormatCase& c : cases) EXPECT_EQ(FormatElapsed(c.value), c.text) << c.value;
}

TEST(DurationRoundTripTest, FormattedDurationsParseBack) {
  for (int64_t seconds :
       {int64_t{0}, int64_t{1}, int64_t{59}, int64_t{60}, int64_t{61}, int64_t{3599}, int64_t{3600},
        int64_t{86399}, int64_t{86400}, int64_t{90061}, int64_t{31536000}, kMaxDurationSeconds,
        kInfiniteDuration}) {
    const Result<int64_t> from_clock = ParseDurationSeconds(FormatDurationSeconds(seconds));
    ASSERT_TRUE(from_clock.ok()) << seconds;
    EXPECT_EQ(*from_clock, seconds);
    const std::string elapsed = FormatElapsed(seconds);
    if (elapsed != "INVALID") {
      const Result<int64_t> from_elapsed = ParseDurationSeconds(elapsed);
      ASSERT_TRUE(from_elapsed.ok()) << elapsed;
      EXPECT_EQ(*from_elapsed, seconds) << elapsed;
    }
  }
  for (int64_t minutes : {int64_t{0}, int64_t{1}, int64_t{120}, int64_t{1440}, int64_t{35791394},
                          kInfiniteDuration}) {
    const Result<int64_t> back = ParseDurationMinutes(FormatDurationMinutes(minutes));
    ASSERT_TRUE(back.ok()) << minutes;
    EXPECT_EQ(*back, minutes);
  }
}

}  // namespace
}  // namespace gantry::text
