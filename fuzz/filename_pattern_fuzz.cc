// Fuzzes Slurm IO file name patterns (text/filename_pattern.h).
// Input: byte 0 picks the context (bit 0: job step, bit 1: array task), bytes 1-4 the ids, the
// rest is the pattern. Invariants:
//   - expansion never crashes and fails exactly for an empty pattern or one holding a NUL byte;
//   - with context values free of '%' and '\', the result holds no more '%' than the pattern;
//   - a pattern without '%' and '\' expands to itself, so does a result without them;
//   - the result grows by a bounded amount, and ExpandStdioPath under "/w" is an absolute path
//     ("/dev/null" when a batch pattern selects another task);
//   - round trip: a pattern built from well-formed tokens (literals, "%%", "%<width><letter>")
//     expands to what each token stands for, computed independently of the expander.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "text/filename_pattern.h"

namespace {

using gantry::Result;
using gantry::text::ExpandFilenamePattern;
using gantry::text::ExpandStdioPath;
using gantry::text::FilenameContext;
using gantry::text::SingleTaskIoId;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

size_t CountOf(std::string_view text, char c) {
  size_t count = 0;
  for (char x : text) count += x == c ? 1 : 0;
  return count;
}

std::string Padded(uint64_t value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// What "%<width><letter>" stands for, written from the documentation rather than the expander.
std::string TokenValue(char letter, size_t width, const FilenameContext& ctx) {
  const bool step = ctx.step_id.has_value();
  switch (letter) {
    case 'A':
      return Padded(ctx.array_task_id ? ctx.array_job_id : ctx.job_id, width);
    case 'a':
      return Padded(ctx.array_task_id.value_or(4294967294u), width);
    case 'J':
      return Padded(ctx.job_id, width) + (step ? "." + std::to_string(*ctx.step_id) : "");
    case 'j':
      return Padded(ctx.job_id, width);
    case 'N':
      return ctx.node_name;
    case 'n':
      return Padded(ctx.node_index, width);
    case 's':
      return Padded(step ? *ctx.step_id : 4294967291u, width);
    case 't':
      return Padded(ctx.task_id, width);
    case 'u':
      return ctx.user;
    default:  // 'x'
      return ctx.job_name;
  }
}

bool IsPerTask(char letter) {
  return letter == 't' || letter == 'n' || letter == 'N' || letter == 'u';
}

// Builds a well-formed pattern from `bytes` and what it must expand to. For a job step it avoids
// what Slurm's two passes get wrong, which the unit tests pin down: a character right after
// %t/%n/%N/%u is not scanned, a width on %u or a zero width on %t/%n/%N keeps stray characters,
// and "%%" right before another token misbehaves: before %t/%n/%N/%u srun brings back the '%' of
// earlier "%%" pairs, and when slurmstepd makes a second pass over a per-task name, the '%' srun
// left reads what follows as a specifier or a width ("%%%j" is "%128" for srun).
void RoundTrip(std::string_view bytes, const FilenameContext& ctx) {
  constexpr std::string_view kLetters = "AaJjNnstux";
  constexpr std::string_view kSafeLiterals = "-_./,:abcAB";
  const bool step = ctx.step_id.has_value();
  std::string pattern;
  std::string expected;
  bool need_literal = false;  // after a per-task token of a step
  bool after_percents = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t b = static_cast<uint8_t>(bytes[i]);
    const uint8_t kind = b % 4;
    const char letter = kLetters[(b >> 2) % kLetters.size()];
    if (step && after_percents && kind >= 2) need_literal = true;
    after_percents = false;
    if (kind <= 1 || need_literal) {
      char literal = kSafeLiterals[b % kSafeLiterals.size()];
      if (!step && kind == 0 && b != '%' && b != '\\' && b != 0) {
        literal = static_cast<char>(b);  // the batch pass copies any other byte
      }
      pattern += literal;
      expected += literal;
      need_literal = false;
      continue;
    }
    if (kind == 2) {
      pattern += "%%";
      expected += '%';
      after_percents = true;
      continue;
    }
    const uint8_t w = i + 1 < bytes.size() ? static_cast<uint8_t>(bytes[++i]) : 0;
    std::string width_text;
    if (w % 3 == 1) width_text = std::to_string(w % 10);
    if (w % 3 == 2) width_text = (w % 2 ? "0" : "1") + std::to_string(w % 10);
    size_t width = width_text.empty() ? 0 : std::strtoul(width_text.c_str(), nullptr, 10);
    if (step && IsPerTask(letter) && (letter == 'u' || (!width_text.empty() && width == 0))) {
      width_text.clear();
      width = 0;
    }
    if (width > 10) width = 10;
    pattern += '%';
    pattern += width_text;
    pattern += letter;
    expected += TokenValue(letter, width, ctx);
    need_literal = step && IsPerTask(letter);
  }
  if (pattern.empty()) return;
  const Result<std::string> got = ExpandFilenamePattern(pattern, ctx);
  Check(got.ok());
  if (*got != expected)
    fprintf(stderr, "pattern [%s] expected [%s] got [%s]\n", pattern.c_str(), expected.c_str(),
            got->c_str());
  Check(*got == expected);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  const uint8_t flags = data[0];
  FilenameContext ctx;
  ctx.job_id = 100u + data[1] * 257u;
  if (flags & 2) {
    ctx.array_job_id = ctx.job_id - 1;
    ctx.array_task_id = data[2];
  }
  if (flags & 1) {
    ctx.step_id = data[3] % 8;
    ctx.node_index = data[4] % 4;
    ctx.task_id = data[4] / 4;
  }
  ctx.node_name = "node" + std::to_string(data[2] % 16);
  ctx.user = "alice";
  ctx.job_name = (flags & 4) ? "" : "my job";
  const std::string_view pattern(reinterpret_cast<const char*>(data + 5), size - 5);

  const Result<std::string> out = ExpandFilenamePattern(pattern, ctx);
  const bool refusable = pattern.empty() || pattern.find('\0') != std::string_view::npos;
  if (refusable) Check(!out.ok());
  // Otherwise only a job step's second pass can refuse: a width beyond PATH_MAX.
  if (!out.ok() && !refusable) {
    Check(ctx.step_id.has_value());
    Check(out.status().message().find("PATH_MAX") != std::string::npos);
  }
  if (out.ok()) {
    Check(CountOf(*out, '%') <= CountOf(pattern, '%'));
    if (pattern.find_first_of("%\\") == std::string_view::npos) Check(*out == pattern);
    if (!out->empty() && out->find_first_of("%\\") == std::string::npos) {
      const Result<std::string> again = ExpandFilenamePattern(*out, ctx);
      Check(again.ok() && *again == *out);
    }
    // Each value is at most 23 bytes, or a width of at most 4096 for a step's second pass.
    Check(out->size() <= 32 * pattern.size() + 4096 * CountOf(pattern, '%'));

    const Result<std::string> path = ExpandStdioPath(pattern, ctx, "/w");
    Check(path.ok());
    Check(!path->empty() && path->front() == '/');
    const std::optional<uint32_t> single = SingleTaskIoId(pattern);
    if (!ctx.step_id && single && *single != ctx.task_id) Check(*path == "/dev/null");
  } else {
    Check(!out.status().message().empty());
  }

  RoundTrip(pattern, ctx);
  return 0;
}
