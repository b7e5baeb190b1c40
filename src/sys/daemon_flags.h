// The daemons' command lines: "--name VALUE" or "--name=VALUE", and -h/--help, -V/--version.
// Pure functions (HelpOrVersion prints to stdout); thread-compatible.
#ifndef GANTRY_SYS_DAEMON_FLAGS_H_
#define GANTRY_SYS_DAEMON_FLAGS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::sys {

// The value of flag `flag` when args[*i] is it ("--conf PATH": *i moves past PATH; or
// "--conf=PATH"); nullopt otherwise (also for a flag with no value after it).
std::optional<std::string> FlagValue(const std::vector<std::string>& args, size_t* i,
                                     std::string_view flag);

// For -h/--help (prints `usage`) and -V/--version (prints "<program> <version>"): the exit code,
// 0. nullopt for any other argument.
std::optional<int> HelpOrVersion(std::string_view arg, const char* usage, std::string_view program,
                                 std::string_view version);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_DAEMON_FLAGS_H_
