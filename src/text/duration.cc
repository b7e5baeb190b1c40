#include "text/duration.h"

#include <array>

#include "text/ascii.h"

namespace gantry::text {

namespace {

constexpr std::string_view kForms =
    "expected M, M:S, H:M:S, D-H, D-H:M or D-H:M:S, or -1, INFINITE or UNLIMITED";

Status Invalid(std::string_view text, std::string_view rule) {
  return InvalidArgument("invalid duration " + Quote(text) + ": " + std::string(rule));
}

// Two-digit zero-padded field, as printf's "%2.2ld" prints a non-negative number.
void AppendTwoDigits(std::string& out, int64_t value) {
  out += static_cast<char>('0' + value / 10);
  out += static_cast<char>('0' + value % 10);
}

// A non-negative number in decimal.
void AppendNumber(std::string& out, int64_t value) {
  char digits[20];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  while (n > 0) out += digits[--n];
}

// "D-HH:MM:SS" or "HH:MM:SS" for a non-negative number of seconds.
std::string DaysClock(int64_t days, int64_t hours, int64_t minutes, int64_t seconds) {
  std::string out;
  if (days != 0) {
    out = std::to_string(days);
    out += '-';
  }
  AppendTwoDigits(out, hours);
  out += ':';
  AppendTwoDigits(out, minutes);
  out += ':';
  AppendTwoDigits(out, seconds);
  return out;
}

}  // namespace

Result<int64_t> ParseDurationSeconds(std::string_view text) {
  if (text.empty()) return Invalid(text, "empty (" + std::string(kForms) + ")");
  if (EqualsIgnoreCase(text, "-1") || EqualsIgnoreCase(text, "INFINITE") ||
      EqualsIgnoreCase(text, "UNLIMITED")) {
    return kInfiniteDuration;
  }
  if (text.front() == '-') {
    const bool number = text.size() > 1 && text.find_first_not_of("0123456789", 1) == text.npos;
    if (!number) return Invalid(text, std::string(kForms));
    return Invalid(text,
                   "negative durations are not allowed (-1, INFINITE or UNLIMITED mean "
                   "no limit)");
  }

  // Split into numeric fields: an optional "D-" prefix, then up to three ':'-separated fields.
  // This accepts exactly what Slurm's _is_valid_timespec + sscanf accept for non-negative text.
  constexpr int64_t kFieldCap = kMaxDurationSeconds + 1;  // anything larger is refused anyway
  std::array<int64_t, 4> fields{};                        // [days?], then clock fields
  size_t count = 0;       // clock fields seen (after the dash, if any)
  bool has_days = false;  // saw "D-"
  bool in_field = false;  // the current field has at least one digit
  int64_t value = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const bool end = i == text.size();
    const char c = end ? ':' : text[i];  // the end closes the last field like a ':'
    if (IsAsciiDigit(c)) {
      value = value * 10 + (c - '0');
      if (value > kFieldCap) value = kFieldCap;  // saturate; the total check refuses it
      in_field = true;
      continue;
    }
    if (c == '-') {
      if (has_days || count > 0) {
        return Invalid(text,
                       "'-' may appear once, between days and hours (" + std::string(kForms) + ")");
      }
      // The leading-'-' case was handled above, so a day count is present.
      has_days = true;
      fields[0] = value;
      value = 0;
      in_field = false;
      continue;
    }
    if (c == ':') {
      if (!in_field) {
        // "D-" with nothing after it is D days (Slurm's sscanf stops there).
        if (end && has_days && count == 0) break;
        return Invalid(text, "missing number (" + std::string(kForms) + ")");
      }
      if (count == 3) {
        return Invalid(text, "too many ':' fields (" + std::string(kForms) + ")");
      }
      fields[1 + count++] = value;
      value = 0;
      in_field = false;
      continue;
    }
    return Invalid(text, "unexpected character (" + std::string(kForms) + ")");
  }
  int64_t days = 0, hours = 0, minutes = 0, seconds = 0;
  if (has_days) {
    days = fields[0];
    hours = fields[1];
    minutes = fields[2];
    seconds = fields[3];
  } else if (count == 3) {
    hours = fields[1];
    minutes = fields[2];
    seconds = fields[3];
  } else {
    minutes = fields[1];
    seconds = fields[2];
  }
  // Every field is at most kFieldCap (~2^31), so this cannot overflow int64.
  const int64_t total = days * 86400 + hours * 3600 + minutes * 60 + seconds;
  if (total > kMaxDurationSeconds) {
    return Invalid(text, "longer than the maximum " + FormatDurationSeconds(kMaxDurationSeconds) +
                             " (" + std::to_string(kMaxDurationSeconds) + " seconds)");
  }
  return total;
}

Result<int64_t> ParseDurationMinutes(std::string_view text) {
  GANTRY_ASSIGN_OR_RETURN(const int64_t seconds, ParseDurationSeconds(text));
  if (seconds == kInfiniteDuration) return kInfiniteDuration;
  return (seconds + 59) / 60;
}

std::string FormatDurationSeconds(int64_t seconds) {
  if (seconds == kInfiniteDuration) return "UNLIMITED";
  if (seconds < 0) return "INVALID";
  return DaysClock(seconds / 86400, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60);
}

std::string FormatDurationMinutes(int64_t minutes) {
  if (minutes == kInfiniteDuration) return "UNLIMITED";
  if (minutes < 0) return "INVALID";
  return DaysClock(minutes / 1440, minutes / 60 % 24, minutes % 60, 0);
}

void AppendElapsed(int64_t seconds, std::string* out) {
  if (seconds == kInfiniteDuration) {
    out->append("UNLIMITED");
    return;
  }
  if (seconds < 0 || seconds > int64_t{365} * 24 * 3600) {
    out->append("INVALID");
    return;
  }
  const int64_t days = seconds / 86400;
  const int64_t hours = seconds / 3600 % 24;
  const int64_t minutes = seconds / 60 % 60;
  if (days != 0) {
    AppendNumber(*out, days);
    out->push_back('-');
    AppendTwoDigits(*out, hours);
    out->push_back(':');
    AppendTwoDigits(*out, minutes);
  } else if (hours != 0) {
    AppendNumber(*out, hours);
    out->push_back(':');
    AppendTwoDigits(*out, minutes);
  } else {
    AppendNumber(*out, minutes);
  }
  out->push_back(':');
  AppendTwoDigits(*out, seconds % 60);
}

std::string FormatElapsed(int64_t seconds) {
  std::string out;
  AppendElapsed(seconds, &out);
  return out;
}

}  // namespace gantry::text
