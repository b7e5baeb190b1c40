#include "rpc/credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gantry/v1/controller.pb.h"

namespace gantry::rpc {
namespace {

constexpr int64_t kNow = 1'800'000'000;

ClusterKey Key(char fill) { return ClusterKey{std::string(32, fill)}; }

CallBinding Call(std::string method = "gantry.v1.SubmitJobRequest", std::string audience = "c1",
                 std::string body = "b0") {
  return CallBinding{std::move(method), std::move(audience), std::move(body)};
}

TEST(CredentialTest, SignedCredentialSpeaksForItsUidAndGid) {
  const std::string cred = SignCredential(Key('a'), 1001, 1002, kNow, Call());
  Result<CheckedCredential> checked = CheckCredential(Key('a'), cred, kNow + 10, Call());
  ASSERT_TRUE(checked.ok()) << checked.status().message();
  EXPECT_EQ(checked->who.uid, 1001u);
  EXPECT_EQ(checked->who.gid, 1002u);
  EXPECT_EQ(checked->signed_at, kNow);
}

TEST(CredentialTest, EachCredentialIsDistinct) {
  EXPECT_NE(SignCredential(Key('a'), 1, 1, kNow, Call()),
            SignCredential(Key('a'), 1, 1, kNow, Call()));
}

TEST(CredentialTest, RefusesWhatWasNotSignedForThisCall) {
  const std::string cred = SignCredential(Key('a'), 1001, 1001, kNow, Call());
  struct Case {
    std::string name;
    ClusterKey key;
    std::string credential;
    int64_t now;
    CallBinding call;
    std::string message;
  };
  std::string forged = cred;
  forged.replace(3, 4, "0");  // uid 1001 -> 0 (root), signature unchanged
  const Case cases[] = {
      {"other key", Key('b'), cred, kNow, Call(), "signature"},
      {"other method", Key('a'), cred, kNow, Call("gantry.v1.SignalJobRequest"), "signature"},
      {"other cluster", Key('a'), cred, kNow, Call("gantry.v1.SubmitJobRequest", "c2"),
       "signature"},
      {"other body", Key('a'), cred, kNow, Call("gantry.v1.SubmitJobRequest", "c1", "b1"),
       "signature"},
      {"forged uid", Key('a'), forged, kNow, Call(), "signature"},
      {"expired", Key('a'), cred, kNow + kCredentialTtlSeconds + 1, Call(), "expired"},
      {"from the future", Key('a'), cred, kNow - kCredentialTtlSeconds - 1, Call(), "expired"},
      {"old version", Key('a'), "v1:1:1:2:3:4", kNow, Call(), "malformed"},
      {"a 0 before the uid", Key('a'), "v2:0" + cred.substr(3), kNow, Call(), "malformed"},
      {"malformed", Key('a'), "v2:x:1:2:3:4", kNow, Call(), "malformed"},
      {"empty", Key('a'), "", kNow, Call(), "malformed"},
      {"too many fields", Key('a'), cred + ":x", kNow, Call(), "malformed"},
  };
  for (const Case& c : cases) {
    Result<CheckedCredential> checked = CheckCredential(c.key, c.credential, c.now, c.call);
    ASSERT_FALSE(checked.ok()) << c.name;
    EXPECT_EQ(checked.status().code(), StatusCode::kPermissionDenied) << c.name;
    EXPECT_NE(checked.status().message().find(c.message), std::string::npos)
        << c.name << ": " << checked.status().message();
  }
}

TEST(CredentialTest, AVerifierAcceptsEachCredentialOnce) {
  CredentialVerifier verifier(Key('a'));
  const std::string cred = SignCredential(Key('a'), 1001, 1001, kNow, Call());
  ASSERT_TRUE(verifier.VerifyKeyCredential(cred, Call(), kNow).ok());
  Result<PeerIdentity> again = verifier.VerifyKeyCredential(cred, Call(), kNow + 1);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("replayed"), std::string::npos);
  // Past its lifetime it is refused as expired, and the verifier has forgotten it.
  Result<PeerIdentity> late =
      verifier.VerifyKeyCredential(cred, Call(), kNow + kCredentialTtlSeconds + 2);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("expired"), std::string::npos);
  EXPECT_TRUE(verifier
                  .VerifyKeyCredential(SignCredential(Key('a'), 1, 1, kNow + 100, Call()), Call(),
                                       kNow + 100)
                  .ok());
}

TEST(CredentialTest, BindingCoversTheRequestTypeAndBytes) {
  v1::SignalJobRequest cancel;
  cancel.add_job_ids("7");
  v1::SignalJobRequest same = cancel;
  v1::SignalJobRequest other = cancel;
  other.add_job_ids("8");
  const CallBinding binding = BindCall(cancel, "c1");
  EXPECT_EQ(binding.method, "gantry.v1.SignalJobRequest");
  EXPECT_EQ(binding.audience, "c1");
  EXPECT_EQ(binding.body_sha256, BindCall(same, "c1").body_sha256);
  EXPECT_NE(binding.body_sha256, BindCall(other, "c1").body_sha256);
  EXPECT_NE(binding.body_sha256, BindCall(v1::PingRequest(), "c1").body_sha256);
}

TEST(ReplayCacheTest, ForgetsTokensWhenTheyExpire) {
  ReplayCache cache;
  EXPECT_TRUE(cache.Admit("t1", 100, 10).ok());
  EXPECT_EQ(cache.Admit("t1", 100, 50).code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(cache.Admit("t2", 200, 50).ok());
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.Admit("t3", 300, 100).ok());  // t1 expired at 100
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.Admit("t1", 400, 100).ok());
}

class KeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-key-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& text, mode_t mode) {
    const std::string path = dir_ + "/cluster.key";
    std::ofstream(path) << text;
    chmod(path.c_str(), mode);
    return path;
  }
  std::string dir_;
};

TEST_F(KeyFileTest, NewKeyLoadsBack) {
  Result<std::string> text = NewClusterKeyText();
  ASSERT_TRUE(text.ok());
  Result<ClusterKey> key = LoadClusterKey(Write(*text, 0600));
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(key->bytes.size(), 32u);
}

TEST_F(KeyFileTest, RefusesBadKeyFiles) {
  EXPECT_NE(LoadClusterKey(Write(std::string(64, 'a'), 0644)).status().message().find("0600"),
            std::string::npos);
  EXPECT_NE(LoadClusterKey(Write("abc", 0600)).status().message().find("64 hex"),
            std::string::npos);
  EXPECT_NE(LoadClusterKey(Write(std::string(64, 'z'), 0600)).status().message().find("hex"),
            std::string::npos);
  EXPECT_FALSE(LoadClusterKey(dir_ + "/missing").ok());
}

}  // namespace
}  // namespace gantry::rpc
