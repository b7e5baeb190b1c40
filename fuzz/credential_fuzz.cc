// Fuzz target for what a TCP caller controls in gantryd's authentication: cluster-key credentials
// (rpc/credential.h) and the PEM certificates and keys that tls/certificates.h reads.
//  - The input as a credential, with a fixed key and call: refused with a message, or accepted
//    only when it is exactly a credential SignCredential prints (canonical numbers, a 32-character
//    nonce, 64 lowercase hex of MAC), signed within the age window.
//  - A real credential spliced with the input (bytes 0 and 1: where and how much to cut, the rest
//    is inserted): accepted exactly when the result is the real credential unchanged.
//  - Once: a SignCredential output is accepted for its call and refused for another body, method,
//    audience or a time outside the window.
//  - The input, as is and base64-wrapped in PEM armour (so the DER itself is fuzzed), to
//    ReadCertificate, CheckKeyMatches and CheckSignedBy: each parses or fails with a message and
//    leaves the OpenSSL error queue empty. A certificate or key the input makes up never verifies
//    against, nor matches, a CA made when the target starts (whose key the input cannot know).
#include <openssl/err.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "base/status.h"
#include "rpc/credential.h"
#include "tls/certificates.h"

namespace {

using gantry::Result;
using gantry::Status;
using gantry::rpc::CallBinding;
using gantry::rpc::CheckCredential;
using gantry::rpc::CheckedCredential;
using gantry::rpc::ClusterKey;
using gantry::rpc::kCredentialTtlSeconds;
using gantry::rpc::SignCredential;
using gantry::tls::KeyAndCert;

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

// The corpus's credentials are signed with this key for this call, around kNow.
constexpr int64_t kNow = 1767225600;  // 2026-01-01T00:00:00Z
const ClusterKey& Key() {
  static const ClusterKey key{"gantry-fuzz-cluster-key-32-bytes"};
  return key;
}
CallBinding Binding() {
  return CallBinding{"gantry.v1.SubmitJobRequest", "fuzz",
                     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"};
}

bool IsLowerHex(std::string_view s) {
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A credential `checked` came from, as SignCredential prints it, given its MAC field.
std::string Canonical(const CheckedCredential& checked, std::string_view mac) {
  return "v2:" + std::to_string(checked.who.uid) + ":" + std::to_string(checked.who.gid) + ":" +
         std::to_string(checked.signed_at) + ":" + checked.nonce + ":" + std::string(mac);
}

// Whether `credential` is accepted for Binding() at kNow; checks what an acceptance implies.
bool Accepted(std::string_view credential) {
  Result<CheckedCredential> checked = CheckCredential(Key(), credential, kNow, Binding());
  if (!checked.ok()) {
    Check(!checked.status().message().empty());
    return false;
  }
  const size_t colon = credential.rfind(':');
  Check(colon != std::string_view::npos);
  const std::string_view mac = credential.substr(colon + 1);
  Check(mac.size() == 64 && IsLowerHex(mac));
  Check(checked->nonce.size() == 32);
  Check(credential == Canonical(*checked, mac));
  Check(checked->signed_at >= kNow - kCredentialTtlSeconds);
  Check(checked->signed_at <= kNow + kCredentialTtlSeconds);
  return true;
}

// A credential SignCredential made for Binding(), with the checks a real one must pass.
const std::string& RealCredential() {
  static const std::string real = [] {
    std::string signed_text = SignCredential(Key(), 1000, 1000, kNow - 10, Binding());
    Check(Accepted(signed_text));
    const auto refused = [&](const CallBinding& call, int64_t now) {
      return !CheckCredential(Key(), signed_text, now, call).ok();
    };
    CallBinding other = Binding();
    other.body_sha256[0] = other.body_sha256[0] == '0' ? '1' : '0';
    Check(refused(other, kNow));
    other = Binding();
    other.method = "gantry.v1.CancelJobRequest";
    Check(refused(other, kNow));
    other = Binding();
    other.audience = "fuzz2";
    Check(refused(other, kNow));
    Check(refused(Binding(), kNow - 10 + kCredentialTtlSeconds + 1));
    Check(refused(Binding(), kNow - 10 - kCredentialTtlSeconds - 1));
    Check(!CheckCredential(ClusterKey{std::string(32, 'k')}, signed_text, kNow, Binding()).ok());
    return signed_text;
  }();
  return real;
}

void CheckSplice(const uint8_t* data, size_t size) {
  if (size < 2) return;
  const std::string& real = RealCredential();
  const size_t at = data[0] % (real.size() + 1);
  const size_t cut = data[1] % (real.size() - at + 1);
  const std::string spliced = real.substr(0, at) +
                              std::string(reinterpret_cast<const char*>(data) + 2, size - 2) +
                              real.substr(at + cut);
  Check(Accepted(spliced) == (spliced == real));
}

// TLS: a CA and a leaf made at start-up, with fresh keys.
struct Pki {
  KeyAndCert ca;
  KeyAndCert leaf;
  int64_t now = 0;
};

bool ErrorQueueEmpty() { return ERR_peek_error() == 0; }

const Pki& MadePki() {
  static const Pki pki = [] {
    Pki p;
    Result<KeyAndCert> ca = gantry::tls::MakeAuthority("fuzz-ca", 30);
    Check(ca.ok());
    p.ca = *ca;
    Result<KeyAndCert> leaf = gantry::tls::IssueCertificate(p.ca, "n1.fuzz", 30);
    Check(leaf.ok());
    p.leaf = *leaf;
    p.now = static_cast<int64_t>(std::time(nullptr));
    Check(gantry::tls::CheckSignedBy(p.leaf.cert_pem, p.ca.cert_pem, p.now).ok());
    Check(gantry::tls::CheckKeyMatches(p.leaf.key_pem, p.leaf.cert_pem).ok());
    Check(!gantry::tls::CheckKeyMatches(p.ca.key_pem, p.leaf.cert_pem).ok());
    Check(ErrorQueueEmpty());
    return p;
  }();
  return pki;
}

std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::string Armoured(std::string_view label, std::string_view der) {
  std::string out = "-----BEGIN " + std::string(label) + "-----\n";
  const std::string base64 = Base64(der);
  for (size_t i = 0; i < base64.size(); i += 64) out += base64.substr(i, 64) + "\n";
  return out + "-----END " + std::string(label) + "-----\n";
}

void CheckStatus(const Status& status) {
  Check(ErrorQueueEmpty());
  if (!status.ok()) Check(!status.message().empty());
}

// `cert_pem` and `key_pem` come from the input.
void CheckPem(std::string_view what, std::string_view cert_pem, std::string_view key_pem) {
  const Pki& pki = MadePki();
  Result<gantry::tls::CertificateFacts> facts = gantry::tls::ReadCertificate(cert_pem);
  CheckStatus(facts.status());
  const Status key_matches = gantry::tls::CheckKeyMatches(key_pem, cert_pem);
  CheckStatus(key_matches);
  if (std::getenv("GANTRY_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "%.*s: certificate %s; key %s\n", static_cast<int>(what.size()),
                 what.data(), facts.ok() ? facts->common_name.c_str() : "refused",
                 key_matches.ToString().c_str());
  }
  CheckStatus(gantry::tls::CheckSignedBy(cert_pem, cert_pem, pki.now));
  // Nothing made up verifies against (or is the key of) the CA, nor is a CA the leaf verifies
  // against.
  const Status signed_by_ca = gantry::tls::CheckSignedBy(cert_pem, pki.ca.cert_pem, pki.now);
  CheckStatus(signed_by_ca);
  Check(!signed_by_ca.ok());
  const Status leaf_by_input = gantry::tls::CheckSignedBy(pki.leaf.cert_pem, cert_pem, pki.now);
  CheckStatus(leaf_by_input);
  Check(!leaf_by_input.ok());
  const Status key_of_ca = gantry::tls::CheckKeyMatches(key_pem, pki.ca.cert_pem);
  CheckStatus(key_of_ca);
  Check(!key_of_ca.ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool accepted = Accepted(text);
  if (std::getenv("GANTRY_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "credential %s\n", accepted ? "accepted" : "refused");
  }
  CheckSplice(data, size);
  CheckPem("pem", text, text);
  CheckPem("der", Armoured("CERTIFICATE", text), Armoured("PRIVATE KEY", text));
  return 0;
}
