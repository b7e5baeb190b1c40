#include "text/begin_time.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>

#include "text/ascii.h"

namespace gantry::text {

namespace {

constexpr std::string_view kForms =
    "expected HH:MM[:SS] [AM|PM], midnight, noon, elevenses, fika, teatime, "
    "now[+N[seconds|minutes|hours|days|weeks]], today, tomorrow, MMDD[YY], MM/DD[/YY], "
    "MM.DD[.YY] or YYYY-MM-DD[THH:MM[:SS]]";

// Larger "now+N" counts are refused before they can overflow (10^12 weeks is far past 9999).
constexpr int64_t kMaxOffsetCount = 1'000'000'000'000;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }  // isblank() in the C locale

struct Unit {
  std::string_view name;
  int64_t seconds;
};
// Order matters: the plural is tried before the singular, as in Slurm.
constexpr std::array<Unit, 10> kUnits = {{
    {"seconds", 1},
    {"second", 1},
    {"minutes", 60},
    {"minute", 60},
    {"hours", 3600},
    {"hour", 3600},
    {"days", 86400},
    {"day", 86400},
    {"weeks", 604800},
    {"week", 604800},
}};

// One run of Slurm's parse_time() over `text`. The scanning mirrors Slurm's index arithmetic
// (including its odd position updates after "now", which only matter when "now" is not at the
// start) but reads past the end as '\0' instead of reading out of bounds.
class TimeParser {
 public:
  TimeParser(std::string_view text, UnixTime now, const TimeZone& tz, bool past)
      : text_(text), now_(now), tz_(tz), past_(past) {}

  Result<UnixTime> Parse() {
    if (text_.find('\0') != std::string_view::npos) return Fail("contains a NUL byte");
    if (now_ <= 0 || now_ > kMaxBeginTime) {
      return Fail("the current time " + std::to_string(now_) + " is out of range");
    }
    if (MatchesWord(0, "uts")) return ParseUts();

    const CivilTime today = tz_.ToCivil(now_);
    for (int64_t pos = 0; At(pos) != '\0' && At(pos) != '\n'; ++pos) {
      const char c = At(pos);
      if (IsBlank(c) || c == '-' || c == 'T') continue;
      if (MatchesWord(pos, "today")) {
        SetDate(today);
        pos += 4;
        continue;
      }
      if (MatchesWord(pos, "tomorrow")) {
        SetDate(tz_.ToCivil(now_ + 86400));
        pos += 7;
        continue;
      }
      if (MatchNamedTime(&pos)) continue;
      if (MatchesWord(pos, "now")) {
        GANTRY_RETURN_IF_ERROR(ParseNow(&pos));
        continue;
      }
      if (!IsAsciiDigit(c)) {
        return Fail("unexpected " + Quote(text_.substr(static_cast<size_t>(pos), 1)) + " (" +
                    std::string(kForms) + ")");
      }
      if (At(pos + 1) == ':' || At(pos + 2) == ':') {
        GANTRY_RETURN_IF_ERROR(ParseClock(&pos));
      } else {
        GANTRY_RETURN_IF_ERROR(ParseDate(&pos));
      }
    }
    return Resolve(today);
  }

 private:
  char At(int64_t i) const {
    return i >= 0 && static_cast<uint64_t>(i) < text_.size() ? text_[static_cast<size_t>(i)] : '\0';
  }

  // Case-insensitive match of `word` at `pos` (Slurm's xstrncasecmp prefix test).
  bool MatchesWord(int64_t pos, std::string_view word) const {
    for (size_t k = 0; k < word.size(); ++k) {
      if (AsciiLower(At(pos + static_cast<int64_t>(k))) != word[k]) return false;
    }
    return true;
  }

  Status Fail(std::string_view rule) const {
    return InvalidArgument("invalid time " + Quote(text_) + ": " + std::string(rule));
  }

  void SetDate(const CivilTime& c) {
    year_ = c.year;
    month_ = c.month;
    day_ = c.day;
  }
  void SetClock(int hour, int minute, int second) {
    hour_ = hour;
    minute_ = minute;
    second_ = second;
  }

  bool MatchNamedTime(int64_t* pos) {
    struct Named {
      std::string_view word;
      int hour;
    };
    static constexpr std::array<Named, 5> kNamed = {{
        {"midnight", 0},
        {"noon", 12},
        {"elevenses", 11},
        {"fika", 15},
        {"teatime", 16},
    }};
    for (const Named& n : kNamed) {
      if (MatchesWord(*pos, n.word)) {
        SetClock(n.hour, 0, 0);
        *pos += static_cast<int64_t>(n.word.size()) - 1;
        return true;
      }
    }
    return false;
  }

  // "uts<seconds>": strtol() rules (leading spaces and a sign allowed), at least 1000000.
  Result<UnixTime> ParseUts() const {
    size_t i = 3;
    while (i < text_.size() && IsAsciiSpace(text_[i])) ++i;
    bool negative = false;
    if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) negative = text_[i++] == '-';
    const size_t digits_start = i;
    int64_t value = 0;
    for (; i < text_.size() && IsAsciiDigit(text_[i]); ++i) {
      if (value <= kMaxBeginTime) value = value * 10 + (text_[i] - '0');
    }
    if (i == digits_start || i != text_.size() || negative || value < 1000000) {
      return Fail("\"uts\" must be followed by a Unix time of at least 1000000");
    }
    if (value > kMaxBeginTime) return Fail("after 9999-12-31T23:59:59Z");
    return value;
  }

  // "now", optionally followed by blanks and "+N[unit]" or "-N[unit]". Mirrors Slurm, which adds
  // the absolute index of the sign to pos (harmless when "now" starts the text).
  Status ParseNow(int64_t* pos) {
    int64_t delta = 0;
    for (int64_t i = *pos + 3;; ++i) {
      const char c = At(i);
      if (c == '+' || c == '-') {
        *pos += i;
        GANTRY_RETURN_IF_ERROR(ParseOffset(pos, &delta));
        if (c == '-') delta = -delta;
        break;
      }
      if (IsBlank(c)) continue;
      if (c == '\0' || c == '\n') {
        *pos += i - 1;
        break;
      }
      return Fail(
          "\"now\" may only be followed by +N or -N with an optional unit (seconds, "
          "minutes, hours, days or weeks)");
    }
    // now_ is in (0, kMaxBeginTime] and |delta| <= kMaxOffsetCount weeks: no overflow.
    const UnixTime later = now_ + delta;
    if (later <= 0 || later > kMaxBeginTime) {
      return Fail("the offset from now leaves the range 1970-01-01 to 9999-12-31");
    }
    const CivilTime c = tz_.ToCivil(later);
    SetDate(c);
    SetClock(c.hour, c.minute, c.second);
    return Status::Ok();
  }

  // The count and unit after "now+" (Slurm's _get_delta). On success *pos is the last character
  // consumed.
  Status ParseOffset(int64_t* pos, int64_t* delta) const {
    int64_t count = 0;
    bool digits = false;
    int64_t offset = *pos + 1;
    for (; At(offset) != '\0' && At(offset) != '\n'; ++offset) {
      const char c = At(offset);
      if (IsAsciiSpace(c)) continue;
      const Unit* unit = nullptr;
      for (const Unit& u : kUnits) {
        if (MatchesWord(offset, u.name)) {
          unit = &u;
          break;
        }
      }
      if (unit != nullptr) {
        offset += static_cast<int64_t>(unit->name.size());
        count *= unit->seconds;
        break;
      }
      if (IsAsciiDigit(c)) {
        count = count * 10 + (c - '0');
        if (count > kMaxOffsetCount) return Fail("the offset from now is too large");
        digits = true;
        continue;
      }
      return Fail(
          "the offset from now must be a number optionally followed by seconds, "
          "minutes, hours, days or weeks");
    }
    if (!digits) return Fail("the offset from now needs a number, e.g. now+1hour");
    *pos = offset - 1;
    *delta = count;
    return Status::Ok();
  }

  // "HH:MM[:SS] [AM|PM]" (Slurm's _get_time). On success *pos is the last character consumed.
  Status ParseClock(int64_t* pos) {
    int64_t offset = *pos;
    // The first character is a digit (checked by the caller).
    int hour = At(offset++) - '0';
    if (At(offset) != ':') {
      if (!IsAsciiDigit(At(offset))) return Fail("the hour must have one or two digits");
      hour = hour * 10 + (At(offset++) - '0');
    }
    if (hour > 23) return Fail("hour " + std::to_string(hour) + " is out of range 0-23");
    if (At(offset) != ':') return Fail("expected ':' after the hour");
    ++offset;
    if (!IsAsciiDigit(At(offset)) || !IsAsciiDigit(At(offset + 1))) {
      return Fail("the minutes must have two digits (HH:MM)");
    }
    const int minute = (At(offset) - '0') * 10 + (At(offset + 1) - '0');
    offset += 2;
    if (minute > 59) return Fail("minute " + std::to_string(minute) + " is out of range 0-59");
    int second = 0;
    if (At(offset) == ':') {
      ++offset;
      if (!IsAsciiDigit(At(offset)) || !IsAsciiDigit(At(offset + 1))) {
        return Fail("the seconds must have two digits (HH:MM:SS)");
      }
      second = (At(offset) - '0') * 10 + (At(offset + 1) - '0');
      offset += 2;
      if (second > 59) return Fail("second " + std::to_string(second) + " is out of range 0-59");
    }
    while (IsAsciiSpace(At(offset))) ++offset;
    if (MatchesWord(offset, "pm")) {
      hour += 12;
      if (hour > 23) {
        if (hour != 24) return Fail("PM needs an hour from 1 to 12");
        hour = 12;
      }
      offset += 2;
    } else if (MatchesWord(offset, "am")) {
      if (hour > 11) {
        if (hour != 12) return Fail("AM needs an hour from 1 to 12");
        hour = 0;
      }
      offset += 2;
    }
    *pos = offset - 1;
    SetClock(hour, minute, second);
    return Status::Ok();
  }

  // "YYYY-MM-DD", or "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]" (Slurm's _get_date). On success *pos
  // is the last character consumed.
  Status ParseDate(int64_t* pos) {
    int64_t offset = *pos;
    if (At(offset + 4) == '-' && At(offset + 7) == '-') {
      int year = 0;
      for (int k = 0; k < 4; ++k) {
        if (!IsAsciiDigit(At(offset))) return Fail("the year must have four digits (YYYY-MM-DD)");
        year = year * 10 + (At(offset++) - '0');
      }
      ++offset;  // '-'
      // Like Slurm, the first month character is not checked; anything but a digit yields an
      // out-of-range month below.
      int month = At(offset++) - '0';
      if (IsAsciiDigit(At(offset))) month = month * 10 + (At(offset++) - '0');
      if (month < 1 || month > 12) return Fail("the month must be 01 to 12 (YYYY-MM-DD)");
      ++offset;  // '-'
      if (!IsAsciiDigit(At(offset))) return Fail("the day must be a number (YYYY-MM-DD)");
      int day = At(offset++) - '0';
      if (IsAsciiDigit(At(offset))) day = day * 10 + (At(offset++) - '0');
      if (day < 1 || day > 31) {
        return Fail("day " + std::to_string(day) + " is out of range 1-31");
      }
      *pos = offset - 1;
      year_ = year;
      month_ = month;
      day_ = day;
      return Status::Ok();
    }

    // The first character is a digit (checked by the caller).
    int month = At(offset++) - '0';
    if (IsAsciiDigit(At(offset))) month = month * 10 + (At(offset++) - '0');
    if (month < 1 || month > 12) {
      return Fail("month " + std::to_string(month) + " is out of range 1-12 (" +
                  std::string(kForms) + ")");
    }
    if (At(offset) == '.' || At(offset) == '/') ++offset;
    if (!IsAsciiDigit(At(offset))) return Fail("expected a day after the month (MMDD or MM/DD)");
    int day = At(offset++) - '0';
    if (IsAsciiDigit(At(offset))) day = day * 10 + (At(offset++) - '0');
    if (day < 1 || day > 31) return Fail("day " + std::to_string(day) + " is out of range 1-31");
    if (At(offset) == '.' || At(offset) == '/') ++offset;
    int two_digit_year = 0;
    if (IsAsciiDigit(At(offset))) {
      two_digit_year = At(offset++) - '0';
      if (!IsAsciiDigit(At(offset))) return Fail("the year must have two digits (MM/DD/YY)");
      two_digit_year = two_digit_year * 10 + (At(offset++) - '0');
    }
    *pos = offset - 1;
    month_ = month;
    day_ = day;
    if (two_digit_year != 0) year_ = 2000 + two_digit_year;  // "00" means no year, as in Slurm
    return Status::Ok();
  }

  // Fills in what the text left out and converts to an absolute time.
  Result<UnixTime> Resolve(const CivilTime& today) {
    if (!hour_ && !month_) return Fail("no date or time given (" + std::string(kForms) + ")");
    if (!hour_) {
      SetClock(0, 0, second_);  // a date alone means 00:00 that day
    } else if (!month_) {
      const bool still_today =
          past_ || *hour_ > today.hour || (*hour_ == today.hour && minute_ > today.minute);
      SetDate(still_today ? today : tz_.ToCivil(now_ + 86400));
    }
    if (!year_) {
      if (past_) {
        year_ = *month_ > today.month ? today.year - 1 : today.year;
      } else {
        const bool ahead = *month_ > today.month || (*month_ == today.month && day_ > today.day) ||
                           (*month_ == today.month && day_ == today.day && *hour_ > today.hour) ||
                           (*month_ == today.month && day_ == today.day && *hour_ == today.hour &&
                            minute_ > today.minute);
        year_ = ahead ? today.year : today.year + 1;
      }
    }
    UnixTime t = tz_.FromCivil({*year_, *month_, day_, *hour_, minute_, second_});
    // A window's start may be the epoch itself (sacct -S 1970-01-01, as Toil sends it), also
    // east of UTC where local midnight of that day lies just before it.
    if (past_ && t < 0 && t > -86400) t = 0;
    if (t < 0 || (t == 0 && !past_)) return Fail("the time is not after 1970-01-01T00:00:00Z");
    if (t > kMaxBeginTime) return Fail("the time is after 9999-12-31T23:59:59Z");
    return t;
  }

  std::string_view text_;
  UnixTime now_;
  const TimeZone& tz_;
  bool past_;

  std::optional<int> year_;
  std::optional<int> month_;  // 1-12; set together with day_
  int day_ = 0;
  std::optional<int> hour_;  // set together with minute_ and second_
  int minute_ = 0;
  int second_ = 0;
};

}  // namespace

Result<UnixTime> ParseBeginTime(std::string_view text, UnixTime now, const TimeZone& tz) {
  return TimeParser(text, now, tz, /*past=*/false).Parse();
}

Result<UnixTime> ParsePastTime(std::string_view text, UnixTime now, const TimeZone& tz) {
  return TimeParser(text, now, tz, /*past=*/true).Parse();
}

std::string FormatIsoTime(UnixTime t, const TimeZone& tz) {
  const CivilTime c = tz.ToCivil(t);
  std::array<char, 96> buf{};
  std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d", c.year, c.month, c.day,
                c.hour, c.minute, c.second);
  return buf.data();
}

}  // namespace gantry::text
