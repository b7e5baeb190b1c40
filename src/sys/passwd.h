// The password and group databases, reentrant (getpwuid_r, getpwnam_r, getgrgid_r: safe on any
// thread).
// Thread-safe.
#ifndef GANTRY_SYS_PASSWD_H_
#define GANTRY_SYS_PASSWD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::sys {

// A uid's passwd name; nullopt when it has none.
std::optional<std::string> LookupUserName(uint32_t uid);
// A user name's uid; nullopt when there is no such user.
std::optional<uint32_t> LookupUid(std::string_view name);
// A gid's group name; nullopt when it has none.
std::optional<std::string> LookupGroupName(uint32_t gid);

}  // namespace gantry::sys

#endif  // GANTRY_SYS_PASSWD_H_
