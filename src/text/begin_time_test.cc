#include "text/begin_time.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace gantry::text {
namespace {

using ::testing::HasSubstr;

// The instant the reference outputs were captured: Wednesday 2026-12-02T11:43:07Z.
constexpr UnixTime kNow = 1796211787;

// A fixed offset east of UTC, to show that resolution uses the injected zone's wall clock.
class FixedOffsetZone final : public TimeZone {
 public:
  explicit FixedOffsetZone(int64_t offset_seconds) : offset_(offset_seconds) {}
  CivilTime ToCivil(UnixTime t) const override { return Utc().ToCivil(t + offset_); }
  UnixTime FromCivil(const CivilTime& c) const override { return Utc().FromCivil(c) - offset_; }

 private:
  int64_t offset_;
};

// Parses with the reference `now` in UTC and renders the result as Slurm prints it.
std::string Begin(std::string_view text) {
  const Result<UnixTime> r = ParseBeginTime(text, kNow, TimeZone::Utc());
  if (!r.ok()) return "error: " + r.status().message();
  return FormatIsoTime(*r, TimeZone::Utc());
}

std::string Past(std::string_view text) {
  const Result<UnixTime> r = ParsePastTime(text, kNow, TimeZone::Utc());
  if (!r.ok()) return "error: " + r.status().message();
  return FormatIsoTime(*r, TimeZone::Utc());
}

struct Case {
  std::string_view text;
  std::string_view want;
};

void ExpectAll(const Case* begin, const Case* end) {
  for (const Case* c = begin; c != end; ++c) EXPECT_EQ(Begin(c->text), c->want) << c->text;
}

TEST(ParseBeginTimeTest, TimeOfDayIsTheNextOccurrence) {
  const Case cases[] = {
      {"12:00", "2026-12-02T12:00:00"},     // still ahead today
      {"11:44", "2026-12-02T11:44:00"},     //
      {"11:43", "2026-12-03T11:43:00"},     // same minute: hours and minutes only, so tomorrow
      {"10:00", "2026-12-03T10:00:00"},     // already passed: tomorrow
      {"0:00", "2026-12-03T00:00:00"},      // one-digit hour
      {"16:30:15", "2026-12-02T16:30:15"},  // HH:MM:SS
      {"4:30pm", "2026-12-02T16:30:00"},    // AM/PM, any case, optional space
      {"4:30 PM", "2026-12-02T16:30:00"},   //
      {"12:00pm", "2026-12-02T12:00:00"},   // 12 PM is noon
      {"12:00am", "2026-12-03T00:00:00"},   // 12 AM is midnight
      {"9:05am", "2026-12-03T09:05:00"},    //
      {"11:59 am", "2026-12-02T11:59:00"},  //
  };
  ExpectAll(std::begin(cases), std::end(cases));
}

TEST(ParseBeginTimeTest, NamedTimesOfDay) {
  const Case cases[] = {
      {"midnight", "2026-12-03T00:00:00"},   // always the next 00:00
      {"noon", "2026-12-02T12:00:00"},       //
      {"elevenses", "2026-12-03T11:00:00"},  // 11:00 has passed
      {"fika", "2026-12-02T15:00:00"},       //
      {"teatime", "2026-12-02T16:00:00"},    //
      {"NOON", "2026-12-02T12:00:00"},       // case-insensitive...
      {"MidNight", "2026-12-03T00:00:00"},   //
  };
  ExpectAll(std::begin(cases), std::end(cases));
}

TEST(ParseBeginTimeTest, NowWithOffsets) {
  const Case cases[] = {
      {"now", "2026-12-02T11:43:07"},             // keeps the seconds
      {"now+90", "2026-12-02T11:44:37"},          // unit defaults to seconds
      {"now+90seconds", "2026-12-02T11:44:37"},   //
      {"now+1second", "2026-12-02T11:43:08"},     //
      {"now+30minutes", "2026-12-02T12:13:07"},   //
      {"now+30 minutes", "2026-12-02T12:13:07"},  // spaces allowed inside the offset
      {"now + 1 hour", "2026-12-02T12:43:07"},    //
      {"now+1hour", "2026-12-02T12:43:07"},       //
      {"NOW+1HOURS", "2026-12-02T12:43:07"},      //
      {"now+2days", "2026-12-04T11:43:07"},       //
      {"now+1week", "2026-12-09T11:43:07"},       //
      {"now+52weeks", "2027-12-01T11:43:07"},     //
      {"now-1day", "2026-12-01T11:43:07"},        // sacct -S now-1day
      {"now+1day 10:00", "2026-12-03T10:00:00"},  // a later time of day replaces the clock
      {"now+0", "2026-12-02T11:43:07"},           //
  };
  ExpectAll(std::begin(cases), std::end(cases));
}

TEST(ParseBeginTimeTest, TodayAndTomorrowAreMidnightUnlessATimeIsGiven) {
  const Case cases[] = {
      {"today", "2026-12-02T00:00:00"},  // 00:00 today, already past (job eligible at once)
      {"tomorrow", "2026-12-03T00:00:00"},      {"tomorrow noon", "2026-12-03T12:00:00"},
      {"noon tomorrow", "2026-12-03T12:00:00"}, {"tomorrow 9:30am", "2026-12-03T09:30:00"},
      {"today 10:00", "2026-12-02T10:00:00"},  // an explicit day is not moved
      {"today teatime", "2026-12-02T16:00:00"},
  };
  ExpectAll(std::begin(cases), std::end(cases));
}

TEST(ParseBeginTimeTest, CalendarDates) {
  const Case cases[] = {
      {"2026-12-24", "2026-12-24T00:00:00"},
      {"2026-12-24T10:00", "2026-12-24T10:00:00"},
      {"2026-12-24T10:00:30", "2026-12-24T10:00:30"},
      {"2026-12-24 10:00", "2026-12-24T10:00:00"},
      {"2026-12-02T11:43:07", "2026-12-02T11:43:07"},  // sacct -S in the reference run
      {"2026-12-5", "2026-12-05T00:00:00"},            // one-digit day
      {"2027-02-29", "2027-03-01T00:00:00"},           // rolls over like mktime
      {"12/24", "2026-12-24T00:00:00"},
      {"12/24/26", "2026-12-24T00:00:00"},
      {"12.24.26", "2026-12-24T00:00:00"},
      {"122426", "2026-12-24T00:00:00"},
      {"1224", "2026-12-24T00:00:00"},
      {"12/24-10:00", "2026-12-24T10:00:00"},  // MM/DD-HH:MM
      {"12/24 4:00pm", "2026-12-24T16:00:00"},
      {"1/5", "2027-01-05T00:00:00"},          // January has passed: next year
      {"0115", "2027-01-15T00:00:00"},         //
      {"12/02", "2027-12-02T00:00:00"},        // today's date at 00:00 has passed: next year
      {"12/02-12:00", "2026-12-02T12:00:00"},  // ...but not with a time still ahead
      {"02/31/27", "2027-03-03T00:00:00"},     // day 31 of February rolls into March
      {"12/24/00", "2026-12-24T00:00:00"},     // year "00" counts as no year, as in Slurm
      {"9999-12-31T23:59:59", "9999-12-31T23:59:59"},
  };
  ExpectAll(std::begin(cases), std::end(cases));
}

TEST(ParseBeginTimeTest, UtsIsARawUnixTime) {
  EXPECT_EQ(Begin("uts1800000000"), "2027-01-15T08:00:00");
  EXPECT_EQ(Begin("UTS 1800000000"), "2027-01-15T08:00:00");
  EXPECT_THAT(Begin("uts999999"), HasSubstr("at least 1000000"));
  EXPECT_THAT(Begin("uts1800000000x"), HasSubstr("at least 1000000"));
  EXPECT_THAT(Begin("uts"), HasSubstr("at least 1000000"));
  EXPECT_THAT(Begin("uts99999999999999999999999"), HasSubstr("after 9999-12-31T23:59:59Z"));
}

TEST(ParseBeginTimeTest, ErrorsNameTheTextAndTheRule) {
  const Case cases[] = {
      {"", "invalid time \"\": no date or time given"},
      {"   ", "invalid time \"   \": no date or time given"},
      {"25:00", "invalid time \"25:00\": hour 25 is out of range 0-23"},
      {"10:60", "invalid time \"10:60\": minute 60 is out of range 0-59"},
      {"10:00:61", "invalid time \"10:00:61\": second 61 is out of range 0-59"},
      {"10:5", "invalid time \"10:5\": the minutes must have two digits (HH:MM)"},
      {"13:00pm", "invalid time \"13:00pm\": PM needs an hour from 1 to 12"},
      {"13:00am", "invalid time \"13:00am\": AM needs an hour from 1 to 12"},
      {"13/01", "invalid time \"13/01\": month 13 is out of range 1-12"},
      {"12/32", "invalid time \"12/32\": day 32 is out of range 1-31"},
      {"12/24/2", "invalid time \"12/24/2\": the year must have two digits (MM/DD/YY)"},
      {"2026-13-01", "invalid time \"2026-13-01\": the month must be 01 to 12 (YYYY-MM-DD)"},
      {"2026-12-32", "invalid time \"2026-12-32\": day 32 is out of range 1-31"},
      {"next tuesday", "invalid time \"next tuesday\": unexpected \"n\""},
      {"nowish", "invalid time \"nowish\": \"now\" may only be followed by +N or -N"},
      {"now+", "invalid time \"now+\": the offset from now needs a number"},
      {"now+hours", "invalid time \"now+hours\": the offset from now needs a number"},
      {"now+1h", "invalid time \"now+1h\": the offset from now must be a number optionally"},
      {"now+3fortnights", "invalid time \"now+3fortnights\": the offset from now must be"},
      {"now+99999999999999weeks", "the offset from now is too large"},
      {"now-3000weeks", "the offset from now leaves the range 1970-01-01 to 9999-12-31"},
      {"1970-01-01", "the time is not after 1970-01-01T00:00:00Z"},
      {"1969-07-20T20:17", "the time is not after 1970-01-01T00:00:00Z"},
      {"12/24/2026", "month 26 is out of range 1-12"},  // MM/DD/YYYY is not a Slurm form
  };
  for (const Case& c : cases) {
    const std::string got = Begin(c.text);
    EXPECT_THAT(got, HasSubstr(std::string(c.want))) << c.text;
    EXPECT_EQ(got.rfind("error: ", 0), 0u) << c.text;
  }
  EXPECT_THAT(Begin(std::string_view("noon\0x", 6)),
              HasSubstr("invalid time \"noon\\x00x\": contains a NUL byte"));
}

TEST(ParseBeginTimeTest, KeepsSlurmQuirks) {
  // An upper-case 'T' is skipped as the date/time separator before words are matched, so these
  // fail in Slurm too, while other capitalised words work.
  EXPECT_THAT(Begin("TODAY"), HasSubstr("unexpected \"O\""));
  EXPECT_THAT(Begin("Tomorrow"), HasSubstr("unexpected \"o\""));
  EXPECT_THAT(Begin("Teatime"), HasSubstr("unexpected \"e\""));
  // Text after a newline is ignored.
  EXPECT_EQ(Begin("noon\ngarbage"), "2026-12-02T12:00:00");
  // Slurm adds the absolute index of the '+' to its position when "now" is not the first word,
  // so the offset is read from the wrong place: " now+1hour" reads "hour" without a number.
  EXPECT_THAT(Begin(" now+1hour"), HasSubstr("the offset from now needs a number"));
}

TEST(ParseBeginTimeTest, ResolvesInTheInjectedTimeZone) {
  const FixedOffsetZone plus2(2 * 3600);  // 11:43:07Z is 13:43:07 local
  const auto at = [&](std::string_view text) {
    const Result<UnixTime> r = ParseBeginTime(text, kNow, plus2);
    return r.ok() ? FormatIsoTime(*r, plus2) : r.status().message();
  };
  EXPECT_EQ(at("13:00"), "2026-12-03T13:00:00");  // passed locally, though not in UTC
  EXPECT_EQ(at("14:00"), "2026-12-02T14:00:00");
  EXPECT_EQ(at("today"), "2026-12-02T00:00:00");
  EXPECT_EQ(at("now"), "2026-12-02T13:43:07");
  const Result<UnixTime> noon = ParseBeginTime("noon", kNow, plus2);
  ASSERT_TRUE(noon.ok());
  EXPECT_EQ(FormatIsoTime(*noon, TimeZone::Utc()), "2026-12-03T10:00:00");
}

TEST(ParseBeginTimeTest, RefusesANowOutsideTheSupportedRange) {
  EXPECT_FALSE(ParseBeginTime("noon", 0, TimeZone::Utc()).ok());
  EXPECT_FALSE(ParseBeginTime("noon", kMaxBeginTime + 1, TimeZone::Utc()).ok());
}

TEST(ParsePastTimeTest, ResolvesIntoThePastLikeSacct) {
  const Case cases[] = {
      {"10:00", "2026-12-02T10:00:00"},  // today even though it has passed
      {"12:00", "2026-12-02T12:00:00"},  // ...and today when still ahead
      {"0115", "2026-01-15T00:00:00"},   // this year: January is not after December
      {"1224", "2026-12-24T00:00:00"},   // same month counts as this year
      {"2026-12-02T11:43:07", "2026-12-02T11:43:07"},
      {"now-1day", "2026-12-01T11:43:07"},
      {"midnight", "2026-12-02T00:00:00"},
      {"1970-01-01", "1970-01-01T00:00:00"},  // the epoch itself (Toil's sacct -S)
  };
  for (const Case& c : cases) EXPECT_EQ(Past(c.text), c.want) << c.text;
  // East of UTC the epoch's local midnight lies before it: the window starts at the epoch.
  const FixedOffsetZone plus2(2 * 3600);
  const Result<UnixTime> epoch = ParsePastTime("1970-01-01", kNow, plus2);
  ASSERT_TRUE(epoch.ok()) << epoch.status().message();
  EXPECT_EQ(*epoch, 0);
  EXPECT_FALSE(ParseBeginTime("1970-01-01T00:00:00", kNow, TimeZone::Utc()).ok());
  // March is not after December, so "03/01" is this year's, in the zone's calendar.
  const FixedOffsetZone minus5(-5 * 3600);
  const Result<UnixTime> r = ParsePastTime("03/01", kNow, minus5);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(FormatIsoTime(*r, minus5), "2026-03-01T00:00:00");
}

TEST(FormatIsoTimeTest, PrintsLikeSlurmMakeTimeStr) {
  EXPECT_EQ(FormatIsoTime(kNow, TimeZone::Utc()), "2026-12-02T11:43:07");
  EXPECT_EQ(FormatIsoTime(1, TimeZone::Utc()), "1970-01-01T00:00:01");
  EXPECT_EQ(FormatIsoTime(kMaxBeginTime, TimeZone::Utc()), "9999-12-31T23:59:59");
  EXPECT_EQ(FormatIsoTime(kNow, FixedOffsetZone(-5 * 3600)), "2026-12-02T06:43:07");
}

TEST(BeginTimeRoundTripTest, FormattedTimesParseBack) {
  for (UnixTime t :
       {UnixTime{1}, UnixTime{1000000}, kNow, kNow + 1, kNow - 86400 * 400, kMaxBeginTime}) {
    const Result<UnixTime> back =
        ParseBeginTime(FormatIsoTime(t, TimeZone::Utc()), kNow, TimeZone::Utc());
    ASSERT_TRUE(back.ok()) << t;
    EXPECT_EQ(*back, t);
  }
}

}  // namespace
}  // namespace gantry::text
