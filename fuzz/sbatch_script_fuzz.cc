// Fuzz target for what sbatch reads from a batch script: CheckBatchScript, the #SBATCH/#SLURM
// directives (ScanDirectives), then those arguments through sbatch's option parser and option
// values (ParseArgs, ApplySbatchOption, VerifySbatchOptions, ResolveGpuOptions), as RunSbatch does.
// Any script is accepted or refused with non-empty messages; an accepted script starts with "#!"
// and has no DOS line breaks; directive arguments are non-empty, single-line, and quoted back into
// a script they scan back to the same arguments; a refused option has a message and a non-zero
// exit code; --gpus and --gpus-per-task always make GPUs per node, at least the per-task count.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time.h"
#include "slurm/option_parser.h"
#include "slurm/sbatch_options.h"
#include "slurm/sbatch_script.h"
#include "text/gres.h"

namespace {

using gantry::Result;
using gantry::TimeZone;
using gantry::UnixTime;
using gantry::slurm::ArgOrder;
using gantry::slurm::Directives;
using gantry::slurm::OptionResult;
using gantry::slurm::ParsedArgs;
using gantry::slurm::ParsedOption;
using gantry::slurm::SbatchOptions;

constexpr UnixTime kNow = 1767225600;  // 2026-01-01T00:00:00Z (for --begin)

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

void CheckMessages(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) Check(!line.empty());
}

// A directive line that ScanDirectives reads back as `args`: each argument double-quoted with
// every character escaped.
std::string Directive(const std::vector<std::string>& args) {
  std::string line = "#SBATCH";
  for (const std::string& arg : args) {
    line += " \"";
    for (const char c : arg) {
      line += '\\';
      line += c;
    }
    line += '"';
  }
  return line + "\n";
}

void CheckOutcome(const OptionResult& r) {
  if (!r.ok) {
    Check(!r.message.empty());
    Check(r.exit_code != 0);
  }
}

// Options applied as RunSbatch applies a script's directives.
void CheckOptions(const std::vector<std::string>& args) {
  const ParsedArgs parsed =
      gantry::slurm::ParseArgs("sbatch", args, gantry::slurm::SbatchShortOptions(),
                               gantry::slurm::SbatchLongOptions(), ArgOrder::kRequireOrder);
  SbatchOptions options;
  for (const ParsedOption& o : parsed.options) {
    Check(o.spelling.size() >= 2 && o.spelling[0] == '-');
    if (o.id == gantry::slurm::kOptWrap || o.id == gantry::slurm::kOptHelp ||
        o.id == gantry::slurm::kOptUsage || o.id == gantry::slurm::kOptVersion) {
      continue;
    }
    const OptionResult r =
        gantry::slurm::ApplySbatchOption(&options, o.id, o.value, kNow, TimeZone::Utc());
    CheckOutcome(r);
    if (!r.ok) return;
  }
  if (!parsed.error.empty()) return;
  const OptionResult verified = gantry::slurm::VerifySbatchOptions(options);
  CheckOutcome(verified);
  if (!verified.ok) return;
  const SbatchOptions given = options;
  gantry::slurm::ResolveGpuOptions(&options);
  // --gpus and --gpus-per-task counts are positive, so they always make GPUs per node.
  if (!given.gres && (given.gpus || given.gpus_per_task)) Check(options.gres.has_value());
  if (!given.gres && options.gres) {
    Result<std::vector<gantry::text::GresSpec>> gres =
        gantry::text::ParseGres(*options.gres, gantry::text::GresSyntax::kJobRequest);
    Check(gres.ok());
    Check(gres->size() == 1 && (*gres)[0].name == "gpu" && (*gres)[0].count > 0);
    if (given.gpus_per_task) Check((*gres)[0].count >= given.gpus_per_task->count);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view script(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> problems = gantry::slurm::CheckBatchScript(script);
  CheckMessages(problems);
  if (problems.empty()) {
    Check(script.substr(0, 2) == "#!");
    Check(script.find("\r\n") == std::string_view::npos);
  }

  Result<Directives> directives = gantry::slurm::ScanDirectives(script, "(null)");
  if (!directives.ok()) {
    Check(directives.status().message().rfind("(null): line ", 0) == 0);
    return 0;
  }
  CheckMessages(directives->warnings);
  for (const std::string& arg : directives->args) {
    Check(!arg.empty());
    Check(arg.find('\n') == std::string::npos);
  }
  Result<Directives> again =
      gantry::slurm::ScanDirectives("#!/bin/sh\n" + Directive(directives->args), "again");
  Check(again.ok());
  Check(again->args == directives->args);

  CheckOptions(directives->args);
  return 0;
}
