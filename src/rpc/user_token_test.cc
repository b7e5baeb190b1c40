#include "rpc/user_token.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace gantry::rpc {
namespace {

constexpr int64_t kTokenNow = 1999999000;

// A token with any header and payload, signed with `key` as an issuer other than Gantry would.
std::string SignRaw(const TokenKey& key, std::string_view header, std::string_view payload) {
  const std::string signed_part = Base64UrlEncode(header) + "." + Base64UrlEncode(payload);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.bytes.data(), static_cast<int>(key.bytes.size()),
       reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size(), digest,
       &length);
  return signed_part + "." +
         Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(digest), length));
}
constexpr char kHs256[] = R"({"alg":"HS256","typ":"JWT"})";

// SHA-256("k"): a key the reference token below was signed with by Python's hmac module.
TokenKey ReferenceKey() {
  const std::string hex = "8254c329a92850f6d539dd376f4816ee2764517da5e0235514af433164480d7a";
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return TokenKey{bytes};
}
constexpr char kReferenceToken[] =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJleHAiOjIwMDAwMDAwMDAsImlhdCI6MTk5OTk5ODIwMCwic3VuIjoiYWxpY2UifQ."
    "7wSA8EHP4rJ91hh5npZ4MccxJzUaC3NQ1jt1TWJREGg";

TEST(UserTokenTest, SignsWhatAnotherImplementationSigns) {
  EXPECT_EQ(SignUserToken(ReferenceKey(), {"alice", 1999998200, 2000000000}), kReferenceToken);
}

TEST(UserTokenTest, VerifiesItsClaims) {
  Result<TokenClaims> claims = VerifyUserToken(ReferenceKey(), kReferenceToken, kTokenNow);
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  EXPECT_EQ(claims->user, "alice");
  EXPECT_EQ(claims->issued_at, 1999998200);
  EXPECT_EQ(claims->expires_at, 2000000000);
}

TEST(UserTokenTest, RefusesAnExpiredToken) {
  Result<TokenClaims> claims = VerifyUserToken(ReferenceKey(), kReferenceToken, 2000000000);
  EXPECT_EQ(claims.status(), Unauthenticated("token expired at 2000000000"));
}

TEST(UserTokenTest, RefusesAnotherKeysToken) {
  const TokenKey other = TokenKeyOf(ClusterKey{std::string(32, 'x')});
  EXPECT_EQ(VerifyUserToken(other, kReferenceToken, kTokenNow).status(),
            Unauthenticated("token signature does not match"));
}

TEST(UserTokenTest, RefusesAChangedPayload) {
  // The same header and signature over a payload that names bob.
  const std::string payload = Base64UrlEncode(R"({"exp":2000000000,"iat":1999998200,"sun":"bob"})");
  const std::string token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + payload +
                            ".7wSA8EHP4rJ91hh5npZ4MccxJzUaC3NQ1jt1TWJREGg";
  EXPECT_EQ(VerifyUserToken(ReferenceKey(), token, kTokenNow).status(),
            Unauthenticated("token signature does not match"));
}

TEST(UserTokenTest, RefusesAnyAlgorithmButHs256) {
  const std::string payload = Base64UrlEncode(R"({"exp":2000000000,"iat":1,"sun":"root"})");
  EXPECT_EQ(VerifyUserToken(ReferenceKey(),
                            Base64UrlEncode(R"({"alg":"none"})") + "." + payload + ".", kTokenNow)
                .status(),
            Unauthenticated("token algorithm none is not accepted (only HS256)"));
  // Even signed with the right key, another algorithm's name is refused.
  EXPECT_EQ(VerifyUserToken(ReferenceKey(), SignRaw(ReferenceKey(), R"({"alg":"HS512"})", "{}"),
                            kTokenNow)
                .status(),
            Unauthenticated("token algorithm HS512 is not accepted (only HS256)"));
  EXPECT_EQ(VerifyUserToken(ReferenceKey(),
                            Base64UrlEncode(R"({"typ":"JWT"})") + "." + payload + ".x", kTokenNow)
                .status(),
            Unauthenticated("malformed token: its header names no algorithm"));
}

TEST(UserTokenTest, NamesWhatIsMalformed) {
  const TokenKey key = ReferenceKey();
  struct Case {
    std::string payload;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"iat":1,"sun":"a"})",
            "malformed token: claim \"exp\" is missing or not an integer"},
           {R"({"exp":"2000000000","iat":1,"sun":"a"})",
            "malformed token: claim \"exp\" is missing or not an integer"},
           {R"({"exp":2000000000,"sun":"a"})",
            "malformed token: claim \"iat\" is missing or not an integer"},
           {R"({"exp":2000000000,"iat":1})", "malformed token: it names no user (claim \"sun\")"},
           {R"({"exp":2000000000,"iat":1,"sun":""})",
            "malformed token: it names no user (claim \"sun\")"},
           {R"([1,2])", "malformed token: its payload is not a JSON object"},
       }) {
    EXPECT_EQ(VerifyUserToken(key, SignRaw(key, kHs256, c.payload), kTokenNow).status(),
              Unauthenticated(c.error))
        << c.payload;
  }
  EXPECT_EQ(VerifyUserToken(key, "abc", kTokenNow).status(),
            Unauthenticated("malformed token: expected three base64url parts joined by '.'"));
  EXPECT_EQ(VerifyUserToken(key, "a.b.c.d", kTokenNow).status(),
            Unauthenticated("malformed token: expected three base64url parts joined by '.'"));
  EXPECT_EQ(VerifyUserToken(key, "!!.b.c", kTokenNow).status(),
            Unauthenticated("malformed token: its header is not a JSON object"));
}

TEST(UserTokenTest, AcceptsTheUsernameClaim) {
  const TokenKey key = TokenKeyOf(ClusterKey{std::string(32, 'k')});
  const std::string token =
      SignRaw(key, kHs256, R"({"exp":2000000000,"iat":1,"username":"carol"})");
  Result<TokenClaims> claims = VerifyUserToken(key, token, kTokenNow);
  ASSERT_TRUE(claims.ok());
  EXPECT_EQ(claims->user, "carol");
}

TEST(UserTokenTest, Base64UrlRoundTrips) {
  for (const std::string bytes :
       {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00"}) {
    EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(bytes)), bytes);
  }
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlDecode("a+b="), std::nullopt);
  EXPECT_EQ(Base64UrlDecode("abcde"), std::nullopt);
}

}  // namespace
}  // namespace gantry::rpc
