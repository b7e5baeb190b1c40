#include "sim/swf.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <unordered_map>

namespace gantry::sim {
namespace {

// The 18 fields, in their order on a line: one table for parsing, errors and formatting.
struct Field {
  const char* name;
  int64_t SwfJob::*integer;  // nullptr for the one fractional field (average CPU time)
};
constexpr std::array<Field, 18> kFields = {{
    {"job number", &SwfJob::job_number},
    {"submit time", &SwfJob::submit_s},
    {"wait time", &SwfJob::wait_s},
    {"run time", &SwfJob::run_s},
    {"allocated processors", &SwfJob::allocated_procs},
    {"average CPU time", nullptr},
    {"used memory", &SwfJob::used_memory_kib},
    {"requested processors", &SwfJob::requested_procs},
    {"requested time", &SwfJob::requested_time_s},
    {"requested memory", &SwfJob::requested_memory_kib},
    {"status", &SwfJob::status},
    {"user id", &SwfJob::user},
    {"group id", &SwfJob::group},
    {"executable number", &SwfJob::executable},
    {"queue number", &SwfJob::queue},
    {"partition number", &SwfJob::partition},
    {"preceding job", &SwfJob::preceding_job},
    {"think time", &SwfJob::think_time_s},
}};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

template <typename T>
bool ParseWhole(std::string_view text, T* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// ";Key: value" (Key: a letter, then letters and digits) as {Key, value}; nullopt otherwise
// (free text, a continued value, an empty comment).
std::optional<std::pair<std::string, std::string>> HeaderField(std::string_view comment) {
  comment = Trim(comment);
  size_t key_end = 0;
  while (key_end < comment.size() &&
         (std::isalpha(static_cast<unsigned char>(comment[key_end])) != 0 ||
          (key_end > 0 && std::isdigit(static_cast<unsigned char>(comment[key_end])) != 0))) {
    ++key_end;
  }
  if (key_end == 0 || key_end >= comment.size() || comment[key_end] != ':') return std::nullopt;
  return std::make_pair(std::string(comment.substr(0, key_end)),
                        std::string(Trim(comment.substr(key_end + 1))));
}

std::string FormatDouble(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return ec == std::errc() ? std::string(buffer, end) : std::string("-1");
}

}  // namespace

std::optional<int64_t> SwfTrace::HeaderNumber(std::string_view key) const {
  for (const auto& [k, value] : header) {
    if (k != key) continue;
    int64_t number = 0;
    if (ParseWhole(std::string_view(value), &number)) return number;
    return std::nullopt;
  }
  return std::nullopt;
}

Result<SwfTrace> ParseSwf(std::string_view text, std::string_view name) {
  SwfTrace trace;
  std::unordered_map<int64_t, size_t> line_of_job;  // job number -> its line
  int64_t last_submit = -1;
  size_t last_submit_line = 0;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view raw = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    const std::string_view line = Trim(raw);
    if (line.empty()) continue;
    const std::string where = std::string(name) + ":" + std::to_string(line_number) + ": ";
    if (line.front() == ';') {
      if (auto field = HeaderField(line.substr(1))) trace.header.push_back(std::move(*field));
      continue;
    }
    SwfJob job;
    size_t index = 0;
    std::string_view rest = line;
    while (!rest.empty()) {
      size_t end = 0;
      while (end < rest.size() && !IsSpace(rest[end])) ++end;
      const std::string_view token = rest.substr(0, end);
      rest = Trim(rest.substr(end));
      if (index >= kFields.size()) {
        return InvalidArgument(where + "more than the 18 fields of an SWF job line");
      }
      const Field& field = kFields[index];
      const std::string what = "field " + std::to_string(index + 1) + " (" + field.name + "): ";
      const std::string quoted = "\"" + std::string(token.substr(0, 40)) + "\"";
      double value = 0;
      if (field.integer != nullptr) {
        int64_t whole = 0;
        if (!ParseWhole(token, &whole)) {
          return InvalidArgument(where + what + quoted + " is not a whole number");
        }
        job.*field.integer = whole;
        value = static_cast<double>(whole);
      } else {
        if (!ParseWhole(token, &value) || !std::isfinite(value)) {
          return InvalidArgument(where + what + quoted + " is not a number");
        }
        job.avg_cpu_s = value;
      }
      if (value < 0 && value != -1) {
        return InvalidArgument(where + what + quoted +
                               " is negative (-1, \"not known\", is the only negative value)");
      }
      ++index;
    }
    if (index != kFields.size()) {
      return InvalidArgument(where + "an SWF job line has 18 fields, this one " +
                             std::to_string(index));
    }
    if (job.job_number < 1) {
      return InvalidArgument(where + "field 1 (job number): " + std::to_string(job.job_number) +
                             ": must be 1 or more");
    }
    if (auto [it, added] = line_of_job.emplace(job.job_number, line_number); !added) {
      return InvalidArgument(where + "field 1 (job number): job " + std::to_string(job.job_number) +
                             " is already on line " + std::to_string(it->second));
    }
    if (job.submit_s < 0) {
      return InvalidArgument(where + "field 2 (submit time): -1: a replay needs every job's");
    }
    if (job.submit_s < last_submit) {
      return InvalidArgument(where + "field 2 (submit time): " + std::to_string(job.submit_s) +
                             " is before line " + std::to_string(last_submit_line) + "'s " +
                             std::to_string(last_submit) + " (SWF lists jobs by submit time)");
    }
    if (job.status > 5) {
      return InvalidArgument(where + "field 11 (status): " + std::to_string(job.status) +
                             ": not an SWF status (-1, 0 to 5)");
    }
    last_submit = job.submit_s;
    last_submit_line = line_number;
    trace.jobs.push_back(job);
  }
  return trace;
}

std::string FormatSwf(const SwfTrace& trace) {
  std::string out;
  for (const auto& [key, value] : trace.header) {
    out += ";" + key + ": " + value + "\n";
  }
  for (const SwfJob& job : trace.jobs) {
    for (size_t i = 0; i < kFields.size(); ++i) {
      if (i > 0) out += ' ';
      out += kFields[i].integer != nullptr ? std::to_string(job.*kFields[i].integer)
                                           : FormatDouble(job.avg_cpu_s);
    }
    out += '\n';
  }
  return out;
}

}  // namespace gantry::sim
