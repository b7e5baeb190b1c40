// gantryd's side of user tokens (rpc/user_token.h): `scontrol token` mints them, and a call that
// arrives in an AsUser envelope (gantry-restd passing on its client's token) is made as the
// user the token names.
//
// Rules, as Slurm's auth/jwt:
//  - Anyone may mint a token for themselves; only root and SlurmUser for another user.
//  - A token acts as the user it names (the name is looked up now: a user that no longer exists
//    is refused). A root or SlurmUser token may name another user to act as (slurmrestd's
//    X-SLURM-USER-NAME); any other token naming a user other than its own is refused.
// Without a key (a controller started without a cluster key) every token call is refused.
// Thread-safe: const after construction; the user lookups are the system's reentrant ones.
#ifndef GANTRY_CTLD_USER_TOKENS_H_
#define GANTRY_CTLD_USER_TOKENS_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "base/status.h"
#include "base/time.h"
#include "gantry/v1/controller.pb.h"
#include "rpc/user_token.h"

namespace gantry::ctld {

struct TokenUser {
  uid_t uid = 0;
  gid_t gid = 0;  // the user's primary group
  std::string name;
};

class UserTokens {
 public:
  // User lookups by name and by uid: the password database unless a test fakes them.
  using ByName = std::function<std::optional<TokenUser>(const std::string& name)>;
  using ByUid = std::function<std::optional<TokenUser>(uid_t uid)>;
  static ByName SystemByName();
  static ByUid SystemByUid();

  // `key` empty: tokens are off. `slurm_user` may act for others, as root may.
  UserTokens(std::optional<rpc::TokenKey> key, uid_t slurm_user, const Clock* clock,
             ByName by_name = SystemByName(), ByUid by_uid = SystemByUid());

  // scontrol token for `caller`.
  Result<v1::IssueTokenReply> Issue(uid_t caller, const v1::IssueTokenRequest& request) const;

  // The user a call carrying `token` acts as (with `user_name` from X-SLURM-USER-NAME, or "").
  // Unauthenticated naming the reason when the token or the name is refused.
  Result<TokenUser> Holder(const std::string& token, const std::string& user_name) const;

 private:
  bool MayActForOthers(uid_t uid) const { return uid == 0 || uid == slurm_user_; }

  std::optional<rpc::TokenKey> key_;
  uid_t slurm_user_;
  const Clock* clock_;
  ByName by_name_;
  ByUid by_uid_;
};

}  // namespace gantry::ctld

#endif  // GANTRY_CTLD_USER_TOKENS_H_
