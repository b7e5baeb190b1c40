#include "rpc/call_gate.h"

#include <gtest/gtest.h>
#include <munge.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace gantry::rpc {
namespace {

const ClusterKey kKey{std::string(32, 'k')};
const CallBinding kCall{"gantry.v1.SubmitJobRequest", "c1", std::string(64, 'b')};

// gRPC's iterator has no public constructor; the gate never iterates.
struct NoProperties : grpc::AuthPropertyIterator {
  NoProperties() = default;
};

// What a handshake found: a peer certificate of the cluster's CA, or none.
class FakeAuthContext final : public grpc::AuthContext {
 public:
  explicit FakeAuthContext(bool authenticated) : authenticated_(authenticated) {}
  bool IsPeerAuthenticated() const override { return authenticated_; }
  std::vector<grpc::string_ref> GetPeerIdentity() const override { return {}; }
  std::string GetPeerIdentityPropertyName() const override { return ""; }
  std::vector<grpc::string_ref> FindPropertyValues(const std::string&) const override { return {}; }
  grpc::AuthPropertyIterator begin() const override { return NoProperties(); }
  grpc::AuthPropertyIterator end() const override { return NoProperties(); }
  void AddProperty(const std::string&, const grpc::string_ref&) override {}
  bool SetPeerIdentityPropertyName(const std::string&) override { return false; }

 private:
  bool authenticated_;
};

// The gate's answer for a call with these headers (kept alive for the string_refs).
grpc::Status Gate(std::map<std::string, std::string> headers, bool certificate = false) {
  CredentialVerifier verifier(kKey);
  CallGate gate(kKey, "c1", &verifier);
  grpc::AuthMetadataProcessor::InputMetadata metadata;
  for (const auto& [k, v] : headers) metadata.emplace(k, v);
  FakeAuthContext context(certificate);
  grpc::AuthMetadataProcessor::OutputMetadata consumed;
  grpc::AuthMetadataProcessor::OutputMetadata response;
  return gate.Process(metadata, &context, &consumed, &response);
}

std::string Signed(const CallBinding& call) {
  return SignCredential(kKey, 0, 0, std::time(nullptr), call);
}

TEST(CallGateTest, LetsThroughACredentialThatHoldsForTheCallItClaims) {
  EXPECT_TRUE(Gate({{kCredentialKey, Signed(kCall)}, {kCallKey, CallHeader(kCall)}}).ok());
}

TEST(CallGateTest, LetsThroughPeersWithACertificate) {
  EXPECT_TRUE(Gate({}, /*certificate=*/true).ok());
}

// With a munged on this host: the gate decodes a MUNGE credential made for the call it claims
// (and keeps what munged said for the handler); munged takes each credential once.
TEST(CallGateTest, DecodesAMungeCredentialOnce) {
  // The payload AttachMungeCredential puts in (rpc/credential.cc's BindingText).
  const std::string payload = kCall.method + "\n" + kCall.audience + "\n" + kCall.body_sha256;
  char* credential = nullptr;
  if (munge_encode(&credential, nullptr, payload.data(), static_cast<int>(payload.size())) !=
      EMUNGE_SUCCESS) {
    free(credential);
    GTEST_SKIP() << "no munged on this host";
  }
  const std::string text = credential;
  free(credential);
  CredentialVerifier verifier(kKey);
  const Status first = verifier.PrecheckMunge(text, kCall, std::time(nullptr));
  EXPECT_TRUE(first.ok()) << first.message();
  const Status again = verifier.PrecheckMunge(text, kCall, std::time(nullptr));
  EXPECT_EQ(again.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(again.message().rfind("munge credential refused: ", 0), 0u) << again.message();
}

TEST(CallGateTest, RefusesFromTheHeadersAlone) {
  CallBinding other = kCall;
  other.body_sha256 = std::string(64, 'c');
  CallBinding elsewhere = kCall;
  elsewhere.audience = "c2";
  const struct {
    std::map<std::string, std::string> headers;
    std::string why;
  } cases[] = {
      {{}, "no credential"},
      {{{kCredentialKey, Signed(kCall)}}, "no x-gantry-call header naming the call"},
      {{{kCredentialKey, Signed(kCall)}, {kCallKey, "gantry.v1.SubmitJobRequest short"}},
       "no x-gantry-call header naming the call"},
      {{{kCredentialKey, Signed(kCall)}, {kCallKey, CallHeader(other)}},
       "credential signature does not match"},
      {{{kCredentialKey, Signed(elsewhere)}, {kCallKey, CallHeader(kCall)}},
       "credential signature does not match"},
      {{{kCredentialKey, "v2:0:0:1:x:y"}, {kCallKey, CallHeader(kCall)}}, "malformed credential"},
      {{{kMungeKey, "MUNGE:AwQFAAD"}}, "no x-gantry-call header naming the call"},
      {{{kMungeKey, "not munge"}, {kCallKey, CallHeader(kCall)}}, "malformed munge credential"},
      // munged refuses it (or cannot be reached): either way before the request is read.
      {{{kMungeKey, "MUNGE:AwQFAAD"}, {kCallKey, CallHeader(kCall)}}, "munge credential refused: "},
  };
  for (const auto& c : cases) {
    const grpc::Status status = Gate(c.headers);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << c.why;
    EXPECT_EQ(status.error_message().rfind("refused before the request was read: " + c.why, 0), 0u)
        << status.error_message();
  }
}

TEST(CallGateTest, CallHeadersRoundTrip) {
  const std::optional<CallBinding> parsed = ParseCallHeader(CallHeader(kCall), "c1");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->method, kCall.method);
  EXPECT_EQ(parsed->body_sha256, kCall.body_sha256);
  EXPECT_EQ(parsed->audience, "c1");
  EXPECT_FALSE(ParseCallHeader("", "c1").has_value());
  EXPECT_FALSE(ParseCallHeader(" " + std::string(64, 'b'), "c1").has_value());
}

}  // namespace
}  // namespace gantry::rpc
