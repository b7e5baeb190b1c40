#include "agent/user_info.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gantry::agent {

Result<UserInfo> LookupUser(uid_t uid) {
  const int64_t size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  passwd pw{};
  passwd* found = nullptr;
  int rc = 0;
  while ((rc = getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found)) == ERANGE &&
         buffer.size() < (1u << 20)) {
    buffer.resize(buffer.size() * 2);
  }
  if (rc != 0) {
    return Unavailable("uid " + std::to_string(uid) + ": getpwuid_r: " + std::strerror(rc));
  }
  if (found == nullptr) return NotFound("uid " + std::to_string(uid) + ": no such user");
  UserInfo info;
  info.uid = pw.pw_uid;
  info.gid = pw.pw_gid;
  info.name = pw.pw_name ? pw.pw_name : "";
  info.home = pw.pw_dir ? pw.pw_dir : "";
  info.shell = pw.pw_shell ? pw.pw_shell : "";
  return info;
}

std::vector<gid_t> UserGroups(const std::string& name, gid_t gid) {
  int count = 32;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  while (getgrouplist(name.c_str(), gid, groups.data(), &count) < 0) {
    if (count <= static_cast<int>(groups.size())) count = static_cast<int>(groups.size()) * 2;
    if (count > 65536) return {gid};
    groups.resize(static_cast<size_t>(count));
  }
  groups.resize(static_cast<size_t>(count));
  return groups;
}

}  // namespace gantry::agent
