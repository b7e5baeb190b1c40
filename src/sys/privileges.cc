#include "sys/privileges.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gantry::sys {

Status BecomeUser(const std::string& user, const std::vector<std::string>& own) {
  errno = 0;
  const passwd* pw = getpwnam(user.c_str());
  if (pw == nullptr) {
    return InvalidArgument("SlurmUser: \"" + user + "\" is not a user of this host" +
                           (errno != 0 ? std::string(" (") + std::strerror(errno) + ")" : ""));
  }
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  for (const std::string& path : own) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) continue;
    if (lchown(path.c_str(), uid, gid) != 0) {
      return Unavailable("cannot give " + path + " to " + user + ": " + std::strerror(errno));
    }
  }
  if (initgroups(user.c_str(), gid) != 0) {
    return Unavailable("initgroups(" + user + "): " + std::strerror(errno));
  }
  if (setresgid(gid, gid, gid) != 0) {
    return Unavailable("setresgid(" + std::to_string(gid) + "): " + std::strerror(errno));
  }
  if (setresuid(uid, uid, uid) != 0) {
    return Unavailable("setresuid(" + std::to_string(uid) + "): " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace gantry::sys
