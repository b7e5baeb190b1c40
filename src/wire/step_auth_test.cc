#include "wire/step_auth.h"

#include <gtest/gtest.h>

namespace gantry::wire {
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

// RFC 4231's test cases 1, 2 and 6 (a key longer than the block).
TEST(HmacSha256Test, MatchesRfc4231) {
  struct Case {
    std::string key, message, hex;
  };
  const Case cases[] = {
      {std::string(20, '\x0b'), "Hi There",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
  };
  for (const Case& c : cases) EXPECT_EQ(Hex(HmacSha256(c.key, c.message)), c.hex) << c.message;
}

TEST(StepProofTest, DependsOnEveryInput) {
  const std::string base = StepProof("k", "agent", "s", "a", "n1");
  EXPECT_TRUE(SameProof(base, StepProof("k", "agent", "s", "a", "n1")));
  EXPECT_FALSE(SameProof(base, StepProof("k2", "agent", "s", "a", "n1")));
  EXPECT_FALSE(SameProof(base, StepProof("k", "srun", "s", "a", "n1")));
  EXPECT_FALSE(SameProof(base, StepProof("k", "agent", "s2", "a", "n1")));
  EXPECT_FALSE(SameProof(base, StepProof("k", "agent", "s", "a2", "n1")));
  EXPECT_FALSE(SameProof(base, StepProof("k", "agent", "s", "a", "n2")));
  EXPECT_FALSE(SameProof(base, base.substr(1)));
}

}  // namespace
}  // namespace gantry::wire
