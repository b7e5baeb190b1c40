#include "ctld/user_tokens.h"

#include <gtest/gtest.h>

#include <map>

#include "ctld/testing.h"

namespace gantry::ctld {
namespace {

constexpr UnixTime kTokenNow = 1'800'000'000;
constexpr uid_t kSlurmUser = 64030;

// root, the cluster's SlurmUser and two users.
const std::map<std::string, TokenUser>& Users() {
  static const auto* users = new std::map<std::string, TokenUser>{
      {"root", {0, 0, "root"}},
      {"slurm", {kSlurmUser, kSlurmUser, "slurm"}},
      {"alice", {1001, 100, "alice"}},
      {"bob", {1002, 100, "bob"}},
  };
  return *users;
}

testing::FakeClock Clock(UnixTime now) {
  testing::FakeClock clock;
  clock.now = now;
  return clock;
}

class UserTokensTest : public ::testing::Test {
 protected:
  UserTokensTest()
      : tokens_(
            rpc::TokenKeyOf(rpc::ClusterKey{std::string(32, 'k')}), kSlurmUser, &clock_,
            [](const std::string& name) -> std::optional<TokenUser> {
              const auto it = Users().find(name);
              if (it == Users().end()) return std::nullopt;
              return it->second;
            },
            [](uid_t uid) -> std::optional<TokenUser> {
              for (const auto& [name, user] : Users()) {
                if (user.uid == uid) return user;
              }
              return std::nullopt;
            }) {}

  // A token issued to `caller` for `user_name` ("" = the caller).
  std::string TokenFor(uid_t caller, const std::string& user_name = "", int64_t lifespan = 0) {
    v1::IssueTokenRequest request;
    request.set_user_name(user_name);
    request.set_lifespan_seconds(lifespan);
    Result<v1::IssueTokenReply> reply = tokens_.Issue(caller, request);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return reply.ok() ? reply->token() : "";
  }

  testing::FakeClock clock_ = Clock(kTokenNow);
  UserTokens tokens_;
};

TEST_F(UserTokensTest, AUsersTokenActsAsThatUser) {
  Result<TokenUser> holder = tokens_.Holder(TokenFor(1001), "");
  ASSERT_TRUE(holder.ok()) << holder.status().ToString();
  EXPECT_EQ(holder->uid, 1001u);
  EXPECT_EQ(holder->gid, 100u);
  EXPECT_EQ(tokens_.Holder(TokenFor(1001), "alice")->uid, 1001u);
}

TEST_F(UserTokensTest, TheDefaultLifespanIsSlurms) {
  v1::IssueTokenRequest request;
  EXPECT_EQ(tokens_.Issue(1001, request)->expires_at(), kTokenNow + 1800);
  request.set_lifespan_seconds(60);
  EXPECT_EQ(tokens_.Issue(1001, request)->expires_at(), kTokenNow + 60);
}

TEST_F(UserTokensTest, ATokenStopsWorkingWhenItExpires) {
  const std::string token = TokenFor(1001, "", 60);
  clock_.now = kTokenNow + 59;
  EXPECT_TRUE(tokens_.Holder(token, "").ok());
  clock_.now = kTokenNow + 60;
  EXPECT_EQ(tokens_.Holder(token, "").status(),
            Unauthenticated("token expired at " + std::to_string(kTokenNow + 60)));
}

TEST_F(UserTokensTest, OnlyRootAndSlurmUserMintForOthers) {
  v1::IssueTokenRequest for_bob;
  for_bob.set_user_name("bob");
  EXPECT_EQ(tokens_.Issue(1001, for_bob).status(), PermissionDenied("Access/permission denied"));
  EXPECT_EQ(tokens_.Holder(TokenFor(0, "bob"), "")->uid, 1002u);
  EXPECT_EQ(tokens_.Holder(TokenFor(kSlurmUser, "bob"), "")->uid, 1002u);
  for_bob.set_user_name("nobody-here");
  EXPECT_EQ(tokens_.Issue(0, for_bob).status(),
            InvalidArgument("username: no user named nobody-here"));
  for_bob.set_user_name("");
  for_bob.set_lifespan_seconds(-5);
  EXPECT_EQ(tokens_.Issue(1001, for_bob).status(),
            InvalidArgument("lifespan: -5 is not a number of seconds above 0"));
}

TEST_F(UserTokensTest, OnlyRootAndSlurmUserTokensActForOthers) {
  EXPECT_EQ(tokens_.Holder(TokenFor(1001), "bob").status(),
            Unauthenticated("the token of alice may not act as bob (only root and SlurmUser may)"));
  EXPECT_EQ(tokens_.Holder(TokenFor(0), "bob")->uid, 1002u);
  EXPECT_EQ(tokens_.Holder(TokenFor(kSlurmUser), "alice")->uid, 1001u);
  EXPECT_EQ(tokens_.Holder(TokenFor(0), "ghost").status(), Unauthenticated("no user named ghost"));
}

TEST_F(UserTokensTest, AnotherClustersTokenIsRefused) {
  const testing::FakeClock clock = Clock(kTokenNow);
  const UserTokens other(rpc::TokenKeyOf(rpc::ClusterKey{std::string(32, 'o')}), kSlurmUser,
                         &clock);
  EXPECT_EQ(other.Holder(TokenFor(1001), "").status(),
            Unauthenticated("token signature does not match"));
}

TEST_F(UserTokensTest, WithoutAKeyNothingIsIssuedOrAccepted) {
  const testing::FakeClock clock = Clock(kTokenNow);
  const UserTokens off(std::nullopt, kSlurmUser, &clock);
  EXPECT_EQ(off.Issue(1001, {}).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(off.Holder(TokenFor(1001), "").status().code(), StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace gantry::ctld
