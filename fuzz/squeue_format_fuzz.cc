// Fuzz target for squeue's output formats (-o and -O), which gantryd renders for its listings:
// ParseFormatSpec and ParseLongFormatSpec never fail and what they split prints back (by the rules
// format_spec.h gives) into a format that splits the same; ParseJobFormat and ParseJobLongFormat
// report one error per unknown field; the header and each job of a fixed sample queue (the
// reference cluster's jobs) render without crashing, and when the format's JobFormatLineBound is
// at most kMaxControllerLineBytes (what gantryd renders itself), every line fits that bound.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "gantry/v1/job.pb.h"
#include "slurm_view/anchor_records_test_util.h"
#include "slurm_view/format_spec.h"
#include "slurm_view/squeue_format.h"
#include "text/ascii.h"

namespace {

using gantry::slurm::FieldSpec;
using gantry::slurm::FormatSpec;
using gantry::slurm::JobColumn;
using gantry::slurm::JobField;
using gantry::slurm::JobFormat;
using gantry::slurm::JobPrintContext;
using gantry::slurm::LongFieldSpec;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

// A -o format as ParseFormatSpec splits it.
std::string Print(const FormatSpec& spec) {
  std::string out = spec.prefix;
  for (const FieldSpec& f : spec.fields) {
    out += '%';
    if (f.right) out += '.';
    if (f.auto_width) out += '#';
    // "0" keeps a '.' or '#' letter from reading as the flag.
    const bool flag_letter =
        (f.letter == '.' && !f.right && !f.auto_width) || (f.letter == '#' && !f.auto_width);
    if (f.width > 0 || flag_letter) out += std::to_string(f.width);
    // The letter may be NUL: printed when something follows it or nothing else marks the field.
    if (f.letter != 0 || !f.suffix.empty() || (!f.right && !f.auto_width && f.width == 0)) {
      out += f.letter;
    }
    out += f.suffix;
  }
  return out;
}

bool Same(const FieldSpec& a, const FieldSpec& b) {
  return a.letter == b.letter && a.width == b.width && a.right == b.right &&
         a.auto_width == b.auto_width && a.suffix == b.suffix;
}

// A -O format as ParseLongFormatSpec splits it (always with the ':' and the width).
std::string Print(const std::vector<LongFieldSpec>& fields) {
  std::string out;
  for (const LongFieldSpec& f : fields) {
    if (!out.empty()) out += ',';
    out += f.name + ":" + (f.right ? "." : "") + std::to_string(f.width) + f.suffix;
  }
  return out;
}

bool Same(const LongFieldSpec& a, const LongFieldSpec& b) {
  return a.name == b.name && a.width == b.width && a.right == b.right && a.suffix == b.suffix;
}

struct Sample {
  std::vector<gantry::v1::Job> jobs;
  JobPrintContext ctx;
  size_t longest_value = 0;  // over every field and job, and every header
};

const Sample& SampleQueue() {
  static const Sample sample = [] {
    Sample s;
    s.jobs = gantry::slurm::testing::AnchorQueue();
    s.ctx.now = gantry::slurm::testing::AnchorQueueNow();
    s.ctx.tz = &gantry::TimeZone::Utc();
    s.ctx.cluster = "anchor";
    std::string scratch;
    for (const JobField& field : gantry::slurm::SqueueFields()) {
      s.longest_value = std::max(s.longest_value, field.header.size());
      for (const gantry::v1::Job& job : s.jobs) {
        s.longest_value = std::max(s.longest_value, field.value(job, s.ctx, scratch).size());
      }
    }
    return s;
  }();
  return sample;
}

void CheckErrors(const JobFormat& format, bool all) {
  size_t unknown = 0;
  for (const JobColumn& c : format.columns) unknown += c.field == nullptr;
  Check(format.errors.size() == unknown);
  if (all) Check(unknown == 0);
  for (const std::string& error : format.errors) Check(!error.empty());
}

void CheckRendering(const JobFormat& format) {
  const Sample& sample = SampleQueue();
  (void)gantry::slurm::JobFormatRecordForm(format);
  (void)gantry::slurm::JobFormatPrintsLocalTime(format);
  const size_t bound = gantry::slurm::JobFormatLineBound(format);
  if (bound > gantry::slurm::kMaxControllerLineBytes) return;
  // The bound counts each column at least kNaturalColumnBytes wide: values longer than that
  // may go past it by the difference.
  const size_t overflow = sample.longest_value > gantry::slurm::kNaturalColumnBytes
                              ? sample.longest_value - gantry::slurm::kNaturalColumnBytes
                              : 0;
  const size_t limit = bound + format.columns.size() * overflow + 1;  // + '\n'
  const std::string header = gantry::slurm::RenderJobHeader(format);
  Check(!header.empty() && header.back() == '\n');
  Check(header.size() <= limit);
  std::string all;
  for (const gantry::v1::Job& job : sample.jobs) {
    const std::string line = gantry::slurm::RenderJobLine(format, job, sample.ctx);
    Check(!line.empty() && line.back() == '\n');
    Check(line.size() <= limit);
    const size_t before = all.size();
    gantry::slurm::AppendJobLine(format, job, sample.ctx, &all);
    Check(std::string_view(all).substr(before) == line);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const FormatSpec spec = gantry::slurm::ParseFormatSpec(text);
  Check(spec.prefix.find('%') == std::string::npos);
  const FormatSpec spec_again = gantry::slurm::ParseFormatSpec(Print(spec));
  Check(spec_again.prefix == spec.prefix);
  Check(spec_again.fields.size() == spec.fields.size());
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    Check(spec.fields[i].width >= 0);
    Check(Same(spec_again.fields[i], spec.fields[i]));
  }

  const std::vector<LongFieldSpec> fields = gantry::slurm::ParseLongFormatSpec(text);
  const std::vector<LongFieldSpec> fields_again = gantry::slurm::ParseLongFormatSpec(Print(fields));
  Check(fields_again.size() == fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    Check(fields[i].width >= 0);
    Check(Same(fields_again[i], fields[i]));
  }

  const JobFormat format = gantry::slurm::ParseJobFormat(text);
  CheckErrors(format, gantry::text::EqualsIgnoreCase(text, "%all"));
  CheckRendering(format);
  const JobFormat long_format = gantry::slurm::ParseJobLongFormat(text);
  CheckErrors(long_format, false);
  CheckRendering(long_format);
  return 0;
}
