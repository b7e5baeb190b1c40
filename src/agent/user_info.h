// The job user's account: passwd entry and group list, looked up in the agent (the launched child
// must not call NSS functions between fork and exec).
//
// Thread-safe (getpwuid_r, getgrouplist).
#ifndef GANTRY_AGENT_USER_INFO_H_
#define GANTRY_AGENT_USER_INFO_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace gantry::agent {

struct UserInfo {
  uid_t uid = 0;
  gid_t gid = 0;  // the passwd entry's primary group
  std::string name;
  std::string home;
  std::string shell;
};

// The passwd entry of `uid`; NotFound "uid N: no such user" when there is none.
Result<UserInfo> LookupUser(uid_t uid);

// The groups the user is a member of (getgrouplist), with `gid` first, for setgroups().
std::vector<gid_t> UserGroups(const std::string& name, gid_t gid);

}  // namespace gantry::agent

#endif  // GANTRY_AGENT_USER_INFO_H_
