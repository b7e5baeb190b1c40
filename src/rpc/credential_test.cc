#include "rpc/credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gantry::rpc {
namespace {

constexpr int64_t kNow = 1'800'000'000;

ClusterKey Key(char fill) { return ClusterKey{std::string(32, fill)}; }

TEST(CredentialTest, SignedCredentialSpeaksForItsUidAndGid) {
  const std::string cred = SignCredential(Key('a'), 1001, 1002, kNow, "/m");
  Result<PeerIdentity> who = CheckCredential(Key('a'), cred, kNow + 10, "/m");
  ASSERT_TRUE(who.ok()) << who.status().message();
  EXPECT_EQ(who->uid, 1001u);
  EXPECT_EQ(who->gid, 1002u);
}

TEST(CredentialTest, EachCredentialIsDistinct) {
  EXPECT_NE(SignCredential(Key('a'), 1, 1, kNow, ""), SignCredential(Key('a'), 1, 1, kNow, ""));
}

TEST(CredentialTest, RefusesWhatWasNotSignedByTheKey) {
  const std::string cred = SignCredential(Key('a'), 1001, 1001, kNow, "/m");
  struct Case {
    std::string name;
    ClusterKey key;
    std::string credential;
    int64_t now;
    std::string method;
    std::string message;
  };
  std::string forged = cred;
  forged.replace(3, 4, "0000");  // uid 1001 -> 0000 (root), signature unchanged
  const Case cases[] = {
      {"other key", Key('b'), cred, kNow, "/m", "signature"},
      {"other method", Key('a'), cred, kNow, "/n", "signature"},
      {"forged uid", Key('a'), forged, kNow, "/m", "signature"},
      {"expired", Key('a'), cred, kNow + kCredentialTtlSeconds + 1, "/m", "expired"},
      {"from the future", Key('a'), cred, kNow - kCredentialTtlSeconds - 1, "/m", "expired"},
      {"malformed", Key('a'), "v1:x:1:2:3:4", kNow, "/m", "malformed"},
      {"empty", Key('a'), "", kNow, "/m", "malformed"},
      {"too many fields", Key('a'), cred + ":x", kNow, "/m", "malformed"},
  };
  for (const Case& c : cases) {
    Result<PeerIdentity> who = CheckCredential(c.key, c.credential, c.now, c.method);
    ASSERT_FALSE(who.ok()) << c.name;
    EXPECT_EQ(who.status().code(), StatusCode::kPermissionDenied) << c.name;
    EXPECT_NE(who.status().message().find(c.message), std::string::npos)
        << c.name << ": " << who.status().message();
  }
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
