#include "slurm/sbatch_script.h"

#include "text/ascii.h"

namespace gantry::slurm {
namespace {

constexpr std::string_view kSbatch = "#SBATCH";
constexpr std::string_view kSlurm = "#SLURM";

struct Argument {
  bool found = false;
  std::string text;
  size_t consumed = 0;
  bool unmatched = false;
  char quote = 0;
};

// One argument from `line` (sbatch's _get_argument).
Argument NextArgument(std::string_view line) {
  Argument arg;
  size_t i = 0;
  while (i < line.size() && text::IsAsciiSpace(line[i])) ++i;
  bool escape = false;
  bool quoted = false;
  char quote = 0;
  while (i < line.size() && (quoted || !text::IsAsciiSpace(line[i])) && line[i] != '\n') {
    const char c = line[i];
    if (escape) {
      escape = false;
    } else if (c == '\\') {
      escape = true;
      ++i;
      continue;
    } else if (quoted) {
      if (c == quote) {
        quoted = false;
        ++i;
        continue;
      }
    } else if (c == '"' || c == '\'') {
      quoted = true;
      quote = c;
      ++i;
      continue;
    } else if (c == '#') {
      break;
    }
    arg.found = true;
    arg.text += c;
    ++i;
  }
  if (quoted) {
    arg.unmatched = true;
    arg.quote = quote;
  }
  arg.consumed = i;
  return arg;
}

}  // namespace

std::vector<std::string> CheckBatchScript(std::string_view script) {
  if (script.empty()) return {"Batch script is empty!"};
  bool blank = true;
  for (char c : script) blank = blank && text::IsAsciiSpace(c);
  if (blank) return {"Batch script contains only whitespace!"};
  if (script.substr(0, 2) != "#!") {
    return {"This does not look like a batch script.  The first",
            "line must start with #! followed by the path to an interpreter.",
            "For instance: #!/bin/sh"};
  }
  if (script.find("\r\n") != std::string_view::npos) {
    return {"Batch script contains DOS line breaks (\\r\\n)",
            "instead of expected UNIX line breaks (\\n)."};
  }
  return {};
}

Result<Directives> ScanDirectives(std::string_view script, std::string_view file) {
  Directives out;
  bool warned = false;
  int line_number = 0;
  size_t pos = 0;
  while (pos < script.size()) {
    size_t end = script.find('\n', pos);
    if (end == std::string_view::npos) end = script.size();
    const std::string_view line = script.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    std::string_view rest;
    if (line.substr(0, kSbatch.size()) == kSbatch) {
      rest = line.substr(kSbatch.size());
    } else if (line.substr(0, kSlurm.size()) == kSlurm) {
      rest = line.substr(kSlurm.size());
      if (!warned) {
        out.warnings.push_back(
            "Change from #SLURM to #SBATCH in your script and verify the options are valid in "
            "sbatch");
        warned = true;
      }
    } else {
      size_t i = 0;
      while (i < line.size() && text::IsAsciiSpace(line[i])) ++i;
      if (i < line.size() && line[i] != '#') break;  // the first command ends the directives
      continue;
    }
    while (true) {
      Argument arg = NextArgument(rest);
      if (arg.unmatched) {
        return InvalidArgument(std::string(file) + ": line " + std::to_string(line_number) +
                               ": Unmatched `" + std::string(1, arg.quote) + "` in [" +
                               std::string(rest) + "]");
      }
      if (!arg.found) break;
      out.args.push_back(std::move(arg.text));
      rest = rest.substr(arg.consumed);
    }
  }
  return out;
}

std::string WrapScript(std::string_view command) {
  return "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + std::string(command) + "\n";
}

}  // namespace gantry::slurm
