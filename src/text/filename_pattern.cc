#include "text/filename_pattern.h"

#include <cassert>
#include <limits>

#include "text/ascii.h"

namespace gantry::text {

namespace {

// Slurm's NO_VAL: srun's %J leaves out the step id when the step id is NO_VAL.
constexpr uint32_t kNoVal = 0xfffffffe;
// PATH_MAX: no file name Slurm can open is longer.
constexpr uint64_t kPathMax = 4096;

// isspace() in the C locale, which Slurm's strtoul calls run in.
bool IsCSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// strtoul(text + pos, &end, 10) for a run of digits starting at `pos`: the value, saturated at
// ULONG_MAX (64 bits) as strtoul does on overflow, with `pos` moved past the digits. Sets
// `*overflowed` when given.
uint64_t ParseDigits(std::string_view text, size_t& pos, bool* overflowed = nullptr) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t value = 0;
  bool overflow = false;
  while (pos < text.size() && IsAsciiDigit(text[pos])) {
    const uint64_t digit = static_cast<uint64_t>(text[pos] - '0');
    if (value > (kMax - digit) / 10) overflow = true;
    if (!overflow) value = value * 10 + digit;
    ++pos;
  }
  if (overflowed != nullptr) *overflowed = overflow;
  return overflow ? kMax : value;
}

// printf("%0*u", width, value).
std::string PadUnsigned(uint64_t value, uint32_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// printf("%0*d", width, (int)value): the sign comes first and counts toward the width.
std::string PadSigned(uint32_t value, uint32_t width) {
  const int64_t signed_value = static_cast<int32_t>(value);
  if (signed_value >= 0) return PadUnsigned(static_cast<uint64_t>(signed_value), width);
  std::string digits = std::to_string(-signed_value);
  if (digits.size() + 1 < width) digits.insert(0, width - 1 - digits.size(), '0');
  return "-" + digits;
}

// [from, to) of `text`; `to` may run past the end (Slurm's step pass reads one byte past a
// trailing specifier, the string's NUL), which copies up to the end.
void AppendRange(std::string& out, std::string_view text, size_t from, size_t to) {
  if (to > text.size()) to = text.size();
  assert(from <= to);
  out.append(text.substr(from, to - from));
}

uint32_t ArrayTaskId(const FilenameContext& ctx) {
  return ctx.array_task_id.value_or(kFilenameNoArrayTask);
}

uint32_t ArrayMasterId(const FilenameContext& ctx) {
  return ctx.array_task_id ? ctx.array_job_id : ctx.job_id;
}

// The batch step's value for `letter` padded to `width`, or nullopt when `letter` is not a
// specifier (Slurm's _batch_path_check).
std::optional<std::string> BatchValue(char letter, uint32_t width, const FilenameContext& ctx) {
  switch (letter) {
    case 'a':
      return PadUnsigned(ArrayTaskId(ctx), width);
    case 'A':
      return PadUnsigned(ArrayMasterId(ctx), width);
    case 'J':  // jobid.stepid, but the batch step has no ".stepid"
    case 'j':
      return PadUnsigned(ctx.job_id, width);
    case 'n':
      return PadUnsigned(ctx.node_index, width);
    case 'N':
      return ctx.node_name;
    case 's':
      return PadUnsigned(kFilenameBatchStepId, width);
    case 't':
      return PadUnsigned(ctx.task_id, width);
    case 'u':
      return ctx.user;
    case 'x':
      return ctx.job_name;
    default:
      return std::nullopt;
  }
}

// slurmstepd's batch pass (_create_batch_fname). `q` is the start of the text not yet copied,
// `p` the scan position.
std::string ExpandBatch(std::string_view s, const FilenameContext& ctx) {
  const size_t n = s.size();
  std::string out;
  size_t q = 0;
  size_t p = 0;
  while (p < n) {
    if (s[p] != '%') {
      ++p;
      continue;
    }
    if (p + 1 < n && s[p + 1] == '%') {  // "%%": keep the first '%', skip the second
      AppendRange(out, s, q, p + 1);
      p += 2;
      q = p;
      continue;
    }
    ++p;
    uint32_t width = 0;
    if (p < n && IsAsciiDigit(s[p])) {
      AppendRange(out, s, q, p - 1);  // the text before the '%'
      const uint64_t wanted = ParseDigits(s, p);
      width = wanted > kFilenameMaxPadding ? kFilenameMaxPadding : static_cast<uint32_t>(wanted);
      q = p - 1;  // the last digit: kept if no specifier follows
    }
    if (p == n) break;  // a trailing '%' (or "%<digits>") ends the pattern
    const std::optional<std::string> value = BatchValue(s[p], width, ctx);
    if (!value) continue;  // not a specifier: scanning goes on from this character
    AppendRange(out, s, q, p - 1);
    out += *value;
    ++p;
    q = p;
  }
  AppendRange(out, s, q, p);
  return out;
}

// srun's pass (src/srun/libsrun/fname.c): expands %A %a %J %j %s %x, keeps %t %n %N %u (with
// their width, at most 10) for slurmstepd and sets `per_task` when one of them is present.
// `percents` holds the '%' of "%%" that srun drops but puts back in front of a %t/%n/%N/%u.
std::string ExpandSrun(std::string_view s, const FilenameContext& ctx, bool& per_task) {
  const size_t n = s.size();
  const uint32_t step_id = ctx.step_id.value_or(kNoVal);
  std::string out;
  std::string percents;
  size_t q = 0;
  size_t p = 0;
  bool double_percent = false;
  per_task = false;
  while (p < n) {
    uint32_t width = 0;
    if (s[p] == '%') {
      if (p + 1 < n && s[p + 1] == '%') {
        ++p;
        double_percent = true;
        AppendRange(out, s, q, p);
        percents += '%';
        ++p;
        q = p;
        continue;
      }
      ++p;
      if (p < n && IsAsciiDigit(s[p])) {
        AppendRange(out, s, q, p - 1);
        const uint64_t wanted = ParseDigits(s, p);
        width = wanted > kFilenameMaxPadding ? kFilenameMaxPadding : static_cast<uint32_t>(wanted);
        q = p - 1;
        if (p == n) break;
      }
      const char letter = p < n ? s[p] : '\0';
      switch (letter) {
        case 'a':
        case 'A':
        case 'J':
        case 'j':
        case 's': {
          AppendRange(out, s, q, p - 1);
          if (letter == 'a') {
            out += PadUnsigned(ArrayTaskId(ctx), width);
          } else if (letter == 'A') {
            out += PadUnsigned(ArrayMasterId(ctx), width);
          } else if (letter == 's') {
            out += PadSigned(step_id, width);
          } else {
            out += PadSigned(ctx.job_id, width);
            if (letter == 'J' && step_id != kNoVal) out += "." + PadSigned(step_id, 0);
          }
          percents.clear();
          ++p;
          q = p;
          break;
        }
        case 'x':
          AppendRange(out, s, q, p - 1);
          out += ctx.job_name;
          ++p;
          q = p;
          break;
        case 'u':
        case 't':
        case 'n':
        case 'N':
          per_task = true;
          if (double_percent) out += percents;
          if (width != 0) {
            out += '%';  // the width goes back in front of the letter for slurmstepd
            out += std::to_string(width);
          } else {
            AppendRange(out, s, q, p);
          }
          percents.clear();
          q = p;
          ++p;
          break;
        default:
          break;
      }
      double_percent = false;
    } else if (double_percent) {
      // "%%" followed by [digits] and t, n, N or u: srun puts the dropped '%' back.
      double_percent = false;
      if (IsAsciiDigit(s[p])) width = static_cast<uint32_t>(ParseDigits(s, p));  // unsigned int
      const char letter = p < n ? s[p] : '\0';
      if (letter == 'u' || letter == 't' || letter == 'n' || letter == 'N') {
        per_task = true;
        out += percents;
        if (width != 0) {
          out += std::to_string(width);
          q = p;
        }
        percents.clear();
        ++p;
      }
    } else {
      ++p;
    }
  }
  AppendRange(out, s, q, p);
  return out;
}

// slurmstepd's pass for a job step (_create_step_fname and _step_path_check) over what srun
// left: %t %n %N %u. Reproduces its pointer arithmetic: the width's digits are removed by an
// offset of 2 (3 when the width is exactly 10) while %u always removes 1, and after an expanded
// letter the scan skips the next character (which is still copied). This pass does not cap the
// width, and srun can hand it a wide one (in "%t%%33t" the '%' right after %t is skipped, so
// "%33t" is read next): a width beyond PATH_MAX is refused rather than printed.
Result<std::string> ExpandStepd(std::string_view pattern, std::string_view s,
                                const FilenameContext& ctx) {
  const size_t n = s.size();
  std::string out;
  size_t q = 0;
  size_t p = 0;
  while (p < n) {
    if (s[p] != '%') {
      ++p;
      continue;
    }
    bool double_percent = false;
    size_t offset = 1;
    uint32_t width = 0;
    if (p + 1 < n && s[p + 1] == '%') {
      ++p;
      double_percent = true;
    }
    ++p;
    if (p < n && IsAsciiDigit(s[p])) {
      const uint64_t wanted = ParseDigits(s, p);
      offset = wanted == kFilenameMaxPadding ? 3 : 2;
      width = static_cast<uint32_t>(wanted);
      if (p == n) break;
    }
    const char letter = p < n ? s[p] : '\0';
    switch (letter) {
      case '%':  // a third '%', as in "%%%"
        AppendRange(out, s, q, p - 1);
        q = p;
        break;
      case 't':
      case 'n':
      case 'N':
      case 'u': {
        AppendRange(out, s, q, p - (letter == 'u' ? 1 : offset));
        if (!double_percent) {
          if ((letter == 't' || letter == 'n') && width > kPathMax) {
            return InvalidArgument("invalid filename pattern " + Quote(pattern) +
                                   ": slurmstepd would zero-pad %" + letter + " to " +
                                   std::to_string(width) + " digits, longer than PATH_MAX (" +
                                   std::to_string(kPathMax) + ")");
          }
          if (letter == 't') out += PadUnsigned(ctx.task_id, width);
          if (letter == 'n') out += PadUnsigned(ctx.node_index, width);
          if (letter == 'N') out += ctx.node_name;
          if (letter == 'u') out += ctx.user;
          ++p;
        }
        q = p;
        ++p;
        break;
      }
      default:
        break;
    }
  }
  AppendRange(out, s, q, p);
  return out;
}

// slurmstepd's remove_path_slashes: "\\" is one '\', any other '\' is dropped.
std::string RemovePathSlashes(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
    } else if (i + 1 < s.size() && s[i + 1] == '\\') {
      out += '\\';
      ++i;
    }
  }
  return out;
}

// srun's _remove_path_slashes: every '\' is dropped.
std::string RemoveAllBackslashes(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '\\') out += c;
  }
  return out;
}

Status CheckPattern(std::string_view pattern) {
  if (pattern.empty()) {
    return InvalidArgument("invalid filename pattern \"\": empty (Slurm has no file to open)");
  }
  if (pattern.find('\0') != std::string_view::npos) {
    return InvalidArgument("invalid filename pattern " + Quote(pattern) +
                           ": contains a NUL byte (Slurm reads the pattern as a C string)");
  }
  return Status::Ok();
}

// `name` under `workdir`: one '/' between them unless `workdir` ends with one; an empty
// `workdir` leaves `name` as it is.
std::string JoinUnder(std::string_view workdir, std::string_view name) {
  std::string path(workdir);
  if (!path.empty() && path.back() != '/') path += '/';
  path += name;
  return path;
}

bool HasBackslash(std::string_view s) { return s.find('\\') != std::string_view::npos; }

// A job step's file name. `relative` tells whether it is opened under the working directory:
// srun opens a name without %t/%n/%N/%u itself, relative when it does not start with '/';
// slurmstepd prefixes its cwd when the name srun passed it does not start with '/'.
Result<std::string> ExpandStep(std::string_view pattern, const FilenameContext& ctx,
                               bool& relative) {
  if (HasBackslash(pattern)) {
    std::string name = RemoveAllBackslashes(pattern);
    relative = name.empty() || name.front() != '/';
    return name;
  }
  bool per_task = false;
  std::string from_srun = ExpandSrun(pattern, ctx, per_task);
  relative = from_srun.empty() || from_srun.front() != '/';
  if (!per_task) return from_srun;
  return ExpandStepd(pattern, from_srun, ctx);
}

std::string ExpandBatchName(std::string_view pattern, const FilenameContext& ctx) {
  if (HasBackslash(pattern)) return RemovePathSlashes(pattern);
  return ExpandBatch(pattern, ctx);
}

}  // namespace

Result<std::string> ExpandFilenamePattern(std::string_view pattern, const FilenameContext& ctx) {
  GANTRY_RETURN_IF_ERROR(CheckPattern(pattern));
  if (ctx.step_id) {
    bool relative = false;
    return ExpandStep(pattern, ctx, relative);
  }
  return ExpandBatchName(pattern, ctx);
}

std::string ResolveOutputPath(std::string_view expanded, std::string_view workdir) {
  if (!expanded.empty() && expanded.front() == '/') return std::string(expanded);
  return JoinUnder(workdir, expanded);
}

Result<std::string> ExpandStdioPath(std::string_view pattern, const FilenameContext& ctx,
                                    std::string_view workdir) {
  GANTRY_RETURN_IF_ERROR(CheckPattern(pattern));
  if (ctx.step_id) {
    bool relative = false;
    GANTRY_ASSIGN_OR_RETURN(const std::string name, ExpandStep(pattern, ctx, relative));
    return relative ? JoinUnder(workdir, name) : name;
  }
  const std::optional<uint32_t> single = SingleTaskIoId(pattern);
  if (single && *single != ctx.task_id) return std::string("/dev/null");
  const bool relative = pattern.front() != '/';
  if (HasBackslash(pattern)) {
    // Slurm appends the unescaped name to the working directory without a '/'.
    std::string path = relative ? std::string(workdir) : std::string();
    path += RemovePathSlashes(pattern);
    return path;
  }
  const std::string name = ExpandBatch(pattern, ctx);
  return relative ? JoinUnder(workdir, name) : name;
}

std::string_view DefaultOutputPattern(bool is_array) {
  return is_array ? "slurm-%A_%a.out" : "slurm-%j.out";
}

std::optional<uint32_t> SingleTaskIoId(std::string_view pattern) {
  size_t pos = 0;
  while (pos < pattern.size() && IsCSpace(pattern[pos])) ++pos;
  bool negative = false;
  if (pos < pattern.size() && (pattern[pos] == '+' || pattern[pos] == '-')) {
    negative = pattern[pos] == '-';
    ++pos;
  }
  if (pos == pattern.size() || !IsAsciiDigit(pattern[pos])) {
    // No digits: strtoul leaves its end at the start, so only the empty text passes (as 0).
    if (pattern.empty()) return 0;
    return std::nullopt;
  }
  bool overflowed = false;
  uint64_t value = ParseDigits(pattern, pos, &overflowed);
  if (pos != pattern.size()) return std::nullopt;
  // strtoul negates in-range values; an out-of-range one is ULONG_MAX, whatever its sign.
  if (negative && !overflowed) value = 0 - value;
  const int32_t as_int = static_cast<int32_t>(static_cast<uint32_t>(value));
  if (as_int < 0) return std::nullopt;
  return static_cast<uint32_t>(as_int);
}

}  // namespace gantry::text
