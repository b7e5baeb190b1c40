#include "sys/daemon_flags.h"

#include <cstdio>

namespace gantry::sys {

std::optional<std::string> FlagValue(const std::vector<std::string>& args, size_t* i,
                                     std::string_view flag) {
  const std::string& arg = args[*i];
  if (arg == flag && *i + 1 < args.size()) return args[++*i];
  if (arg.size() > flag.size() && arg.starts_with(flag) && arg[flag.size()] == '=') {
    return arg.substr(flag.size() + 1);
  }
  return std::nullopt;
}

std::optional<int> HelpOrVersion(std::string_view arg, const char* usage, std::string_view program,
                                 std::string_view version) {
  if (arg == "-h" || arg == "--help") {
    std::fputs(usage, stdout);
    return 0;
  }
  if (arg == "-V" || arg == "--version") {
    std::printf("%.*s %.*s\n", static_cast<int>(program.size()), program.data(),
                static_cast<int>(version.size()), version.data());
    return 0;
  }
  return std::nullopt;
}

}  // namespace gantry::sys
