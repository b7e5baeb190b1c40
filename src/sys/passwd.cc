#include "sys/passwd.h"

#include <grp.h>
#include <pwd.h>

#include <vector>

namespace gantry::sys {

std::optional<std::string> LookupUserName(uint32_t uid) {
  passwd pw{};
  passwd* result = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &result) == 0 && result != nullptr) {
    return std::string(pw.pw_name);
  }
  return std::nullopt;
}

std::optional<uint32_t> LookupUid(std::string_view name) {
  const std::string key(name);
  passwd pw{};
  passwd* result = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(key.c_str(), &pw, buf.data(), buf.size(), &result) == 0 && result != nullptr) {
    return static_cast<uint32_t>(pw.pw_uid);
  }
  return std::nullopt;
}

std::optional<std::string> LookupGroupName(uint32_t gid) {
  group gr{};
  group* result = nullptr;
  std::vector<char> buf(16384);
  if (getgrgid_r(gid, &gr, buf.data(), buf.size(), &result) == 0 && result != nullptr) {
    return std::string(gr.gr_name);
  }
  return std::nullopt;
}

}  // namespace gantry::sys
