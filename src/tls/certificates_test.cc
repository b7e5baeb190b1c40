#include "tls/certificates.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace gantry::tls {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 24 * kHour;

int64_t Now() { return static_cast<int64_t>(std::time(nullptr)); }

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

// Parses a PEM certificate with OpenSSL directly, to check what the module wrote.
X509Ptr Parse(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// Three authorities and a leaf, made once for the suite.
class CertificatesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<KeyAndCert> ca = MakeAuthority("gantry test CA", 30);
    ASSERT_TRUE(ca.ok()) << ca.status().ToString();
    ca_ = new KeyAndCert(*ca);
    Result<KeyAndCert> other = MakeAuthority("other CA", 30);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    other_ca_ = new KeyAndCert(*other);
    // Same subject as ca_, different key (the leaf's authorityKeyIdentifier does not match it).
    Result<KeyAndCert> impostor = MakeAuthority("gantry test CA", 30);
    ASSERT_TRUE(impostor.ok()) << impostor.status().ToString();
    impostor_ca_ = new KeyAndCert(*impostor);
    Result<KeyAndCert> leaf = IssueCertificate(*ca_, "n1.cluster-a", 10);
    ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();
    leaf_ = new KeyAndCert(*leaf);
  }
  static void TearDownTestSuite() {
    delete ca_;
    delete other_ca_;
    delete impostor_ca_;
    delete leaf_;
  }

  static KeyAndCert* ca_;
  static KeyAndCert* other_ca_;
  static KeyAndCert* impostor_ca_;
  static KeyAndCert* leaf_;
};

KeyAndCert* CertificatesTest::ca_ = nullptr;
KeyAndCert* CertificatesTest::other_ca_ = nullptr;
KeyAndCert* CertificatesTest::impostor_ca_ = nullptr;
KeyAndCert* CertificatesTest::leaf_ = nullptr;

TEST_F(CertificatesTest, PemShapes) {
  for (const KeyAndCert* kc : {ca_, leaf_}) {
    EXPECT_EQ(kc->key_pem.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u) << kc->key_pem;
    EXPECT_EQ(kc->cert_pem.rfind("-----BEGIN CERTIFICATE-----\n", 0), 0u) << kc->cert_pem;
  }
}

TEST_F(CertificatesTest, ExtensionsAreWhatGrpcNeeds) {
  const X509Ptr ca = Parse(ca_->cert_pem);
  const X509Ptr leaf = Parse(leaf_->cert_pem);
  ASSERT_NE(ca, nullptr);
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_EQ(X509_check_ca(leaf.get()), 0);
  EXPECT_EQ(X509_check_host(leaf.get(), "n1.cluster-a", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(leaf.get(), "n2.cluster-a", 0, 0, nullptr), 0);
  EXPECT_EQ(X509_check_purpose(leaf.get(), X509_PURPOSE_SSL_SERVER, 0), 1);
  EXPECT_EQ(X509_check_purpose(leaf.get(), X509_PURPOSE_SSL_CLIENT, 0), 1);
  EXPECT_EQ(X509_check_issued(ca.get(), leaf.get()), X509_V_OK);
  EXPECT_EQ(X509_get_version(leaf.get()), X509_VERSION_3);
  EXPECT_EQ(X509_get_signature_nid(leaf.get()), NID_ecdsa_with_SHA256);
  // Serials are random: two leaves for the same name differ.
  Result<KeyAndCert> again = IssueCertificate(*ca_, "n1.cluster-a", 10);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  const X509Ptr second = Parse(again->cert_pem);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(
      ASN1_INTEGER_cmp(X509_get0_serialNumber(leaf.get()), X509_get0_serialNumber(second.get())),
      0);
}

TEST_F(CertificatesTest, ReadsCommonNameAndEndOfValidity) {
  struct Case {
    const KeyAndCert* kc;
    std::string common_name;
    int days;
  };
  const std::vector<Case> cases = {
      {ca_, "gantry test CA", 30},
      {leaf_, "n1.cluster-a", 10},
  };
  const int64_t now = Now();
  for (const Case& c : cases) {
    Result<CertificateFacts> facts = ReadCertificate(c.kc->cert_pem);
    ASSERT_TRUE(facts.ok()) << facts.status().ToString();
    EXPECT_EQ(facts->common_name, c.common_name);
    // Valid from now-1h for `days` days; allow for the time the suite has been running.
    const int64_t expected = now - kHour + c.days * kDay;
    EXPECT_GE(facts->not_after, expected - 600) << c.common_name;
    EXPECT_LE(facts->not_after, expected + 5) << c.common_name;
  }
}

TEST_F(CertificatesTest, Verification) {
  struct Case {
    std::string label;
    const std::string* cert;
    const std::string* ca;
    int64_t now;
    StatusCode code;
    std::string message_part;
  };
  const int64_t now = Now();
  const std::string garbage = "garbage";
  const std::string empty;
  const std::vector<Case> cases = {
      {"leaf against its CA", &leaf_->cert_pem, &ca_->cert_pem, now, StatusCode::kOk, ""},
      {"CA against itself", &ca_->cert_pem, &ca_->cert_pem, now, StatusCode::kOk, ""},
      {"backdated an hour", &leaf_->cert_pem, &ca_->cert_pem, now - 1800, StatusCode::kOk, ""},
      {"another CA", &leaf_->cert_pem, &other_ca_->cert_pem, now, StatusCode::kPermissionDenied,
       "unable to get local issuer certificate"},
      {"CA with the same name", &leaf_->cert_pem, &impostor_ca_->cert_pem, now,
       StatusCode::kPermissionDenied, "unable to get local issuer certificate"},
      {"expired", &leaf_->cert_pem, &ca_->cert_pem, now + 11 * kDay, StatusCode::kPermissionDenied,
       "certificate has expired"},
      {"far future", &leaf_->cert_pem, &ca_->cert_pem, now + 1000 * kDay,
       StatusCode::kPermissionDenied, "expired"},
      {"not yet valid", &leaf_->cert_pem, &ca_->cert_pem, now - 2 * kHour,
       StatusCode::kPermissionDenied, "certificate is not yet valid"},
      {"garbage certificate", &garbage, &ca_->cert_pem, now, StatusCode::kInvalidArgument,
       "certificate: not a PEM certificate"},
      {"garbage CA", &leaf_->cert_pem, &empty, now, StatusCode::kInvalidArgument,
       "CA certificate: not a PEM certificate"},
  };
  for (const Case& c : cases) {
    const Status status = CheckSignedBy(*c.cert, *c.ca, c.now);
    EXPECT_EQ(status.code(), c.code) << c.label << ": " << status.ToString();
    EXPECT_NE(status.message().find(c.message_part), std::string::npos)
        << c.label << ": " << status.ToString();
    if (c.code == StatusCode::kPermissionDenied) {
      EXPECT_NE(status.message().find("\"n1.cluster-a\""), std::string::npos) << status.ToString();
    }
  }
}

TEST_F(CertificatesTest, KeyMatches) {
  EXPECT_TRUE(CheckKeyMatches(leaf_->key_pem, leaf_->cert_pem).ok());
  EXPECT_TRUE(CheckKeyMatches(ca_->key_pem, ca_->cert_pem).ok());
  const Status other = CheckKeyMatches(ca_->key_pem, leaf_->cert_pem);
  EXPECT_EQ(other.code(), StatusCode::kInvalidArgument) << other.ToString();
  EXPECT_NE(other.message().find("\"n1.cluster-a\""), std::string::npos) << other.ToString();
  EXPECT_EQ(CheckKeyMatches("garbage", leaf_->cert_pem).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckKeyMatches(leaf_->key_pem, "garbage").code(), StatusCode::kInvalidArgument);
  // A certificate is not a key, nor the other way round.
  EXPECT_EQ(CheckKeyMatches(leaf_->cert_pem, leaf_->key_pem).code(), StatusCode::kInvalidArgument);
}

TEST_F(CertificatesTest, BadNamesAreRefusedNamingTheName) {
  const std::vector<std::string> names = {
      "",
      std::string(65, 'a'),
      "n1 x",
      "n1_x",
      "n1/../x",
      "*.cluster",
      "n1,DNS:evil.example",
      "n\xc3\xa9",
      std::string("n1\0x", 4),
  };
  for (const std::string& name : names) {
    Result<KeyAndCert> issued = IssueCertificate(*ca_, name, 10);
    ASSERT_FALSE(issued.ok()) << name;
    EXPECT_EQ(issued.status().code(), StatusCode::kInvalidArgument) << issued.status().ToString();
    EXPECT_NE(issued.status().message().find("certificate name \""), std::string::npos)
        << issued.status().ToString();
  }
  // Printable names appear verbatim.
  EXPECT_NE(IssueCertificate(*ca_, "n1_x", 10).status().message().find("\"n1_x\""),
            std::string::npos);
  // The longest allowed name is fine.
  EXPECT_TRUE(IssueCertificate(*ca_, std::string(64, 'a'), 10).ok());
  EXPECT_EQ(MakeAuthority("", 10).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeAuthority(std::string(65, 'a'), 10).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeAuthority("bad \xff utf-8", 10).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(CertificatesTest, BadDaysAreRefused) {
  for (const int days : {0, -1, 36501}) {
    EXPECT_EQ(MakeAuthority("ca", days).status().code(), StatusCode::kInvalidArgument) << days;
    const Status status = IssueCertificate(*ca_, "n1", days).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << days;
    EXPECT_NE(status.message().find("certificate for n1: days " + std::to_string(days)),
              std::string::npos)
        << status.ToString();
  }
}

TEST_F(CertificatesTest, BadAuthorityIsRefused) {
  struct Case {
    std::string label;
    KeyAndCert ca;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"garbage key",
       {"garbage", ca_->cert_pem},
       "certificate for n1: CA key: not a PEM private key"},
      {"garbage certificate",
       {ca_->key_pem, "garbage"},
       "certificate for n1: CA certificate: not a PEM certificate"},
      {"key of another CA",
       {other_ca_->key_pem, ca_->cert_pem},
       "certificate for n1: CA key does not belong to CA certificate \"gantry test CA\""},
      {"leaf as CA", *leaf_, "is not a certificate authority"},
  };
  for (const Case& c : cases) {
    const Status status = IssueCertificate(c.ca, "n1", 10).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.label << ": " << status.ToString();
    EXPECT_NE(status.message().find(c.message_part), std::string::npos)
        << c.label << ": " << status.ToString();
  }
}

TEST_F(CertificatesTest, ReadCertificateRefusesGarbage) {
  for (const std::string& pem :
       {std::string(), std::string("garbage"), leaf_->key_pem,
        std::string("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")}) {
    const Status status = ReadCertificate(pem).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
    EXPECT_NE(status.message().find("certificate: not a PEM certificate: "), std::string::npos)
        << status.ToString();
  }
}

}  // namespace
}  // namespace gantry::tls
