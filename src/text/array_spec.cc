#include "text/array_spec.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::text {
namespace {

bool ParseUint(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 10) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Adds the ids of one item (N, N-M, N-M:step) to *tasks, refusing to hold more than 2 x
// `limit` before duplicates are removed (ids are below `limit`, so only repeats pass that).
Status AddItem(std::string_view item, uint64_t limit, std::vector<uint32_t>* tasks) {
  const std::string quoted = "\"" + std::string(item) + "\"";
  uint64_t step = 1;
  if (const size_t colon = item.find(':'); colon != std::string_view::npos) {
    if (!ParseUint(item.substr(colon + 1), &step) || step == 0) {
      return InvalidArgument("array item " + quoted + ": the step after ':' must be a number >= 1");
    }
    item = item.substr(0, colon);
  }
  uint64_t first = 0;
  uint64_t last = 0;
  if (const size_t dash = item.find('-'); dash == std::string_view::npos) {
    if (!ParseUint(item, &first)) {
      return InvalidArgument("array item " + quoted + " is not a number or range");
    }
    last = first;
  } else if (!ParseUint(item.substr(0, dash), &first) || !ParseUint(item.substr(dash + 1), &last)) {
    return InvalidArgument("array item " + quoted + " is not a number or range");
  } else if (last < first) {
    return InvalidArgument("array range " + quoted + " runs backwards");
  }
  if (last >= limit) {
    return InvalidArgument("array index " + std::to_string(last) + " is not below MaxArraySize (" +
                           std::to_string(limit) + ")");
  }
  const uint64_t count = (last - first) / step + 1;
  if (tasks->size() + count > 2 * limit) {
    return InvalidArgument("array index list \"" + std::string(item) + "...\": more than " +
                           std::to_string(2 * limit) + " indexes with repeats");
  }
  for (uint64_t id = first; id <= last; id += step) tasks->push_back(static_cast<uint32_t>(id));
  return Status::Ok();
}

Result<std::vector<uint32_t>> ParseItems(std::string_view text, uint64_t limit) {
  if (text.empty()) return InvalidArgument("the array index list is empty");
  std::vector<uint32_t> tasks;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    GANTRY_RETURN_IF_ERROR(AddItem(item, limit, &tasks));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  return tasks;
}

std::optional<uint32_t> ParseJobNumber(std::string_view text) {
  uint32_t id = 0;
  if (text.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id == 0) return std::nullopt;
  return id;
}

}  // namespace

Result<ArraySpec> ParseArraySpec(std::string_view text, uint32_t max_array_size) {
  ArraySpec spec;
  if (const size_t percent = text.find('%'); percent != std::string_view::npos) {
    uint64_t throttle = 0;
    if (!ParseUint(text.substr(percent + 1), &throttle) || throttle > UINT32_MAX) {
      return InvalidArgument("array throttle \"" + std::string(text.substr(percent + 1)) +
                             "\" after '%' must be a number");
    }
    spec.throttle = static_cast<uint32_t>(throttle);
    text = text.substr(0, percent);
  }
  GANTRY_ASSIGN_OR_RETURN(spec.tasks, ParseItems(text, max_array_size));
  return spec;
}

Result<std::vector<uint32_t>> ParseTaskIds(std::string_view text) {
  return ParseItems(text, kMaxArraySizeLimit);
}

std::optional<ParsedJobId> ParseJobIdText(std::string_view text) {
  ParsedJobId parsed;
  const size_t underscore = text.find('_');
  const std::optional<uint32_t> id = ParseJobNumber(text.substr(0, underscore));
  if (!id) return std::nullopt;
  parsed.job_id = *id;
  if (underscore == std::string_view::npos) return parsed;
  std::string_view tasks = text.substr(underscore + 1);
  if (tasks == "*") return parsed;
  if (tasks.size() >= 2 && tasks.front() == '[' && tasks.back() == ']') {
    tasks = tasks.substr(1, tasks.size() - 2);
  }
  Result<std::vector<uint32_t>> ids = ParseTaskIds(tasks);
  if (!ids.ok()) return std::nullopt;
  parsed.whole = false;
  parsed.tasks = std::move(ids).value();
  return parsed;
}

std::string FormatTaskIds(std::span<const uint32_t> tasks) {
  std::string out;
  for (size_t i = 0; i < tasks.size();) {
    size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(tasks[i]);
    if (j > i) out += "-" + std::to_string(tasks[j]);
    i = j + 1;
  }
  return out;
}

ArrayShape ShapeOf(std::span<const uint32_t> tasks) {
  ArrayShape shape;
  if (tasks.empty()) return shape;
  shape.count = static_cast<uint32_t>(tasks.size());
  shape.min = tasks.front();
  shape.max = tasks.back();
  if (tasks.size() >= 2) {
    const uint32_t gap = tasks[1] - tasks[0];
    bool uniform = true;
    for (size_t i = 2; i < tasks.size() && uniform; ++i) uniform = tasks[i] - tasks[i - 1] == gap;
    if (uniform) shape.step = gap;
  }
  return shape;
}

}  // namespace gantry::text
