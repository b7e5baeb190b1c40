#include "ctld/user_tokens.h"

#include <pwd.h>

#include <vector>

namespace gantry::ctld {
namespace {

constexpr char kTokensOff[] = "user tokens are not available: the controller has no cluster key";

std::optional<TokenUser> FromPasswd(int rc, const passwd* found) {
  if (rc != 0 || found == nullptr) return std::nullopt;
  return TokenUser{found->pw_uid, found->pw_gid, found->pw_name};
}

}  // namespace

UserTokens::ByName UserTokens::SystemByName() {
  return [](const std::string& name) -> std::optional<TokenUser> {
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    const int rc = getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
    return FromPasswd(rc, found);
  };
}

UserTokens::ByUid UserTokens::SystemByUid() {
  return [](uid_t uid) -> std::optional<TokenUser> {
    passwd entry{};
    passwd* found = nullptr;
    std::vector<char> buffer(16384);
    const int rc = getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found);
    return FromPasswd(rc, found);
  };
}

UserTokens::UserTokens(std::optional<rpc::TokenKey> key, uid_t slurm_user, const Clock* clock,
                       ByName by_name, ByUid by_uid)
    : key_(std::move(key)),
      slurm_user_(slurm_user),
      clock_(clock),
      by_name_(std::move(by_name)),
      by_uid_(std::move(by_uid)) {}

Result<v1::IssueTokenReply> UserTokens::Issue(uid_t caller,
                                              const v1::IssueTokenRequest& request) const {
  if (!key_) return FailedPrecondition(kTokensOff);
  if (request.lifespan_seconds() < 0) {
    return InvalidArgument("lifespan: " + std::to_string(request.lifespan_seconds()) +
                           " is not a number of seconds above 0");
  }
  std::string user;
  if (request.user_name().empty()) {
    const std::optional<TokenUser> self = by_uid_(caller);
    if (!self) return InvalidArgument("uid " + std::to_string(caller) + " has no user name");
    user = self->name;
  } else {
    const std::optional<TokenUser> named = by_name_(request.user_name());
    if (!named) return InvalidArgument("username: no user named " + request.user_name());
    if (named->uid != caller && !MayActForOthers(caller)) {
      return PermissionDenied("Access/permission denied");
    }
    user = named->name;
  }
  const int64_t now = clock_->Now();
  const int64_t lifespan =
      request.lifespan_seconds() == 0 ? rpc::kDefaultTokenLifespan : request.lifespan_seconds();
  v1::IssueTokenReply reply;
  reply.set_expires_at(now + lifespan);
  reply.set_token(rpc::SignUserToken(*key_, {user, now, now + lifespan}));
  return reply;
}

Result<TokenUser> UserTokens::Holder(const std::string& token, const std::string& user_name) const {
  if (!key_) return Unauthenticated(kTokensOff);
  GANTRY_ASSIGN_OR_RETURN(rpc::TokenClaims claims,
                          rpc::VerifyUserToken(*key_, token, clock_->Now()));
  const std::optional<TokenUser> holder = by_name_(claims.user);
  if (!holder) return Unauthenticated("the token's user " + claims.user + " does not exist");
  if (user_name.empty() || user_name == holder->name) return *holder;
  if (!MayActForOthers(holder->uid)) {
    return Unauthenticated("the token of " + holder->name + " may not act as " + user_name +
                           " (only root and SlurmUser may)");
  }
  const std::optional<TokenUser> proxied = by_name_(user_name);
  if (!proxied) return Unauthenticated("no user named " + user_name);
  return *proxied;
}

}  // namespace gantry::ctld
