#include "tls/certificates.h"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <climits>
#include <cstdio>
#include <ctime>
#include <memory>
#include <utility>
#include <vector>

namespace gantry::tls {

namespace {

constexpr int kMaxDays = 36500;
constexpr size_t kMaxNameBytes = 64;  // ub_common_name in RFC 5280
constexpr int kSerialBits = 128;
constexpr long kBackdateSeconds = 3600;  // NOLINT(google-runtime-int): OpenSSL's type

// unique_ptr deleters calling an OpenSSL free function.
template <auto kFree>
struct FreeWith {
  template <typename T>
  void operator()(T* p) const {
    kFree(p);
  }
};
struct OpensslFree {
  void operator()(unsigned char* p) const { OPENSSL_free(p); }
};

using AsnTimePtr = std::unique_ptr<ASN1_TIME, FreeWith<&ASN1_TIME_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, FreeWith<&BN_free>>;
using BioPtr = std::unique_ptr<BIO, FreeWith<&BIO_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, FreeWith<&X509_EXTENSION_free>>;
using NamePtr = std::unique_ptr<X509_NAME, FreeWith<&X509_NAME_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, FreeWith<&EVP_PKEY_CTX_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, FreeWith<&EVP_PKEY_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, FreeWith<&X509_STORE_CTX_free>>;
using StorePtr = std::unique_ptr<X509_STORE, FreeWith<&X509_STORE_free>>;
using X509Ptr = std::unique_ptr<X509, FreeWith<&X509_free>>;

// Empties the thread's OpenSSL error queue on entry and exit, so that messages carry only the
// errors of this call and no stale ones are left behind for other code on the thread.
class ErrorQueueGuard {
 public:
  ErrorQueueGuard() { ERR_clear_error(); }
  ~ErrorQueueGuard() { ERR_clear_error(); }
  ErrorQueueGuard(const ErrorQueueGuard&) = delete;
  ErrorQueueGuard& operator=(const ErrorQueueGuard&) = delete;
};

// Drains the thread's OpenSSL error queue into "error:...; error:...".
std::string OpensslErrors() {
  std::string out;
  while (const auto code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

// "<what>: <call>: <openssl errors>" with `code`.
Status Failure(StatusCode code, std::string_view what, std::string_view call) {
  return {code, std::string(what) + ": " + std::string(call) + ": " + OpensslErrors()};
}
Status InternalFailure(std::string_view what, std::string_view call) {
  return Failure(StatusCode::kInternal, what, call);
}

// `s` in double quotes, with quotes, backslashes and bytes outside printable ASCII escaped.
std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
  return out;
}

Status CheckDays(std::string_view what, int days) {
  if (days < 1 || days > kMaxDays) {
    return InvalidArgument(std::string(what) + ": days " + std::to_string(days) +
                           " out of range [1, " + std::to_string(kMaxDays) + "]");
  }
  return Status::Ok();
}

Status CheckNameLength(std::string_view kind, std::string_view name) {
  if (name.empty()) {
    return InvalidArgument(std::string(kind) + " name " + Quoted(name) + ": empty");
  }
  if (name.size() > kMaxNameBytes) {
    return InvalidArgument(std::string(kind) + " name " + Quoted(name) + ": " +
                           std::to_string(name.size()) + " bytes, longer than " +
                           std::to_string(kMaxNameBytes));
  }
  return Status::Ok();
}

bool IsHostCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-';
}

Status CheckLeafName(std::string_view name) {
  GANTRY_RETURN_IF_ERROR(CheckNameLength("certificate", name));
  for (const char c : name) {
    if (!IsHostCharacter(c)) {
      return InvalidArgument("certificate name " + Quoted(name) +
                             ": has characters other than [A-Za-z0-9.-]");
    }
  }
  return Status::Ok();
}

// A read-only memory BIO over `pem` (which must outlive it).
Result<BioPtr> ReadBio(std::string_view pem, std::string_view what) {
  if (pem.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument(std::string(what) + ": PEM of " + std::to_string(pem.size()) +
                           " bytes is too large");
  }
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return InternalFailure(what, "BIO_new_mem_buf");
  return bio;
}

Result<X509Ptr> ParseCertificate(std::string_view pem, std::string_view what) {
  GANTRY_ASSIGN_OR_RETURN(BioPtr bio, ReadBio(pem, what));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return Failure(StatusCode::kInvalidArgument, what, "not a PEM certificate");
  return cert;
}

// Refuses encrypted keys instead of letting OpenSSL prompt on the terminal.
int NoPassphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*userdata*/) { return -1; }

Result<PkeyPtr> ParseKey(std::string_view pem, std::string_view what) {
  GANTRY_ASSIGN_OR_RETURN(BioPtr bio, ReadBio(pem, what));
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, &NoPassphrase, nullptr));
  if (!key) return Failure(StatusCode::kInvalidArgument, what, "not a PEM private key");
  return key;
}

// The first common name of `cert`'s subject, as UTF-8.
Result<std::string> CommonName(const X509* cert) {
  const X509_NAME* subject = X509_get_subject_name(cert);
  const int index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (index < 0) return InvalidArgument("certificate: subject has no common name");
  const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index));
  unsigned char* utf8 = nullptr;
  const int length = ASN1_STRING_to_UTF8(&utf8, data);
  if (length < 0) {
    return Failure(StatusCode::kInvalidArgument, "certificate: common name", "ASN1_STRING_to_UTF8");
  }
  const std::unique_ptr<unsigned char, OpensslFree> owned(utf8);
  return std::string(reinterpret_cast<const char*>(utf8), static_cast<size_t>(length));
}

// For messages: the quoted common name, or "(no common name)".
std::string Describe(const X509* cert) {
  Result<std::string> name = CommonName(cert);
  return name.ok() ? Quoted(*name) : "(no common name)";
}

Result<std::string> PemOf(BIO* bio, std::string_view what, std::string_view call) {
  char* data = nullptr;
  const auto length = BIO_get_mem_data(bio, &data);
  if (length <= 0 || data == nullptr) return InternalFailure(what, call);
  return std::string(data, static_cast<size_t>(length));
}

Result<std::string> KeyPem(EVP_PKEY* key, std::string_view what) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) return InternalFailure(what, "BIO_new");
  // PKCS#8 ("BEGIN PRIVATE KEY"), unencrypted.
  if (PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return InternalFailure(what, "PEM_write_bio_PrivateKey");
  }
  return PemOf(bio.get(), what, "PEM_write_bio_PrivateKey");
}

Result<std::string> CertPem(X509* cert, std::string_view what) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) return InternalFailure(what, "BIO_new");
  if (PEM_write_bio_X509(bio.get(), cert) != 1) return InternalFailure(what, "PEM_write_bio_X509");
  return PemOf(bio.get(), what, "PEM_write_bio_X509");
}

Result<PkeyPtr> NewP256Key(std::string_view what) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!ctx) return InternalFailure(what, "EVP_PKEY_CTX_new_from_name");
  if (EVP_PKEY_keygen_init(ctx.get()) <= 0) return InternalFailure(what, "EVP_PKEY_keygen_init");
  if (EVP_PKEY_CTX_set_group_name(ctx.get(), "P-256") <= 0) {
    return InternalFailure(what, "EVP_PKEY_CTX_set_group_name");
  }
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_generate(ctx.get(), &raw) <= 0) return InternalFailure(what, "EVP_PKEY_generate");
  return PkeyPtr(raw);
}

Status SetRandomSerial(X509* cert, std::string_view what) {
  BignumPtr serial(BN_new());
  if (!serial) return InternalFailure(what, "BN_new");
  do {
    if (BN_rand(serial.get(), kSerialBits, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1) {
      return InternalFailure(what, "BN_rand");
    }
  } while (BN_is_zero(serial.get()));  // A serial must be positive.
  if (BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert)) == nullptr) {
    return InternalFailure(what, "BN_to_ASN1_INTEGER");
  }
  return Status::Ok();
}

// From now-1h for `days` days.
Status SetValidity(X509* cert, int days, std::string_view what) {
  std::time_t now = std::time(nullptr);
  if (X509_time_adj_ex(X509_getm_notBefore(cert), 0, -kBackdateSeconds, &now) == nullptr) {
    return InternalFailure(what, "X509_time_adj_ex(notBefore)");
  }
  if (X509_time_adj_ex(X509_getm_notAfter(cert), days, -kBackdateSeconds, &now) == nullptr) {
    return InternalFailure(what, "X509_time_adj_ex(notAfter)");
  }
  return Status::Ok();
}

// Sets the subject to CN=`name` (UTF-8); InvalidArgument when OpenSSL refuses the name.
Status SetSubject(X509* cert, std::string_view name, std::string_view what) {
  NamePtr subject(X509_NAME_new());
  if (!subject) return InternalFailure(what, "X509_NAME_new");
  if (X509_NAME_add_entry_by_NID(subject.get(), NID_commonName, MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(name.data()),
                                 static_cast<int>(name.size()), -1, 0) != 1) {
    return Failure(StatusCode::kInvalidArgument, what, "common name");
  }
  if (X509_set_subject_name(cert, subject.get()) != 1) {
    return InternalFailure(what, "X509_set_subject_name");
  }
  return Status::Ok();
}

struct Extension {
  int nid;
  std::string value;  // in openssl.cnf syntax
};

// A certificate for `name` with a new key, signed by `issuer_key` as `issuer_cert`, or
// self-signed when `issuer_cert` is null.
Result<KeyAndCert> BuildCertificate(std::string_view what, std::string_view name, int days,
                                    const std::vector<Extension>& extensions, X509* issuer_cert,
                                    EVP_PKEY* issuer_key) {
  GANTRY_ASSIGN_OR_RETURN(PkeyPtr key, NewP256Key(what));
  X509Ptr cert(X509_new());
  if (!cert) return InternalFailure(what, "X509_new");
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1) {
    return InternalFailure(what, "X509_set_version");
  }
  GANTRY_RETURN_IF_ERROR(SetRandomSerial(cert.get(), what));
  GANTRY_RETURN_IF_ERROR(SetValidity(cert.get(), days, what));
  GANTRY_RETURN_IF_ERROR(SetSubject(cert.get(), name, what));
  X509* const issuer = issuer_cert != nullptr ? issuer_cert : cert.get();
  EVP_PKEY* const signing_key = issuer_key != nullptr ? issuer_key : key.get();
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(issuer)) != 1) {
    return InternalFailure(what, "X509_set_issuer_name");
  }
  if (X509_set_pubkey(cert.get(), key.get()) != 1) return InternalFailure(what, "X509_set_pubkey");

  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert.get(), nullptr, nullptr, 0);
  for (const Extension& extension : extensions) {
    const std::string call = std::string("X509V3_EXT_nconf_nid(") + OBJ_nid2sn(extension.nid) +
                             ", " + extension.value + ")";
    ExtensionPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, extension.nid, extension.value.c_str()));
    if (!ext) return InternalFailure(what, call);
    if (X509_add_ext(cert.get(), ext.get(), -1) != 1) return InternalFailure(what, "X509_add_ext");
  }

  if (X509_sign(cert.get(), signing_key, EVP_sha256()) <= 0) {
    return InternalFailure(what, "X509_sign");
  }
  GANTRY_ASSIGN_OR_RETURN(std::string key_pem, KeyPem(key.get(), what));
  GANTRY_ASSIGN_OR_RETURN(std::string cert_pem, CertPem(cert.get(), what));
  return KeyAndCert{std::move(key_pem), std::move(cert_pem)};
}

Result<int64_t> UnixSeconds(const ASN1_TIME* time, std::string_view what) {
  const AsnTimePtr epoch(ASN1_TIME_set(nullptr, 0));
  if (!epoch) return InternalFailure(what, "ASN1_TIME_set");
  int days = 0;
  int seconds = 0;
  if (ASN1_TIME_diff(&days, &seconds, epoch.get(), time) != 1) {
    return Failure(StatusCode::kInvalidArgument, what, "ASN1_TIME_diff");
  }
  return int64_t{days} * 86400 + seconds;
}

}  // namespace

Result<KeyAndCert> MakeAuthority(std::string_view name, int days) {
  const ErrorQueueGuard guard;
  GANTRY_RETURN_IF_ERROR(CheckNameLength("authority", name));
  const std::string what = "authority " + Quoted(name);
  GANTRY_RETURN_IF_ERROR(CheckDays(what, days));
  const std::vector<Extension> extensions = {
      {NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
      {NID_key_usage, "critical,keyCertSign,cRLSign"},
      {NID_subject_key_identifier, "hash"},
  };
  return BuildCertificate(what, name, days, extensions, nullptr, nullptr);
}

Result<KeyAndCert> IssueCertificate(const KeyAndCert& ca, std::string_view name, int days) {
  const ErrorQueueGuard guard;
  GANTRY_RETURN_IF_ERROR(CheckLeafName(name));
  const std::string what = "certificate for " + std::string(name);
  GANTRY_RETURN_IF_ERROR(CheckDays(what, days));
  GANTRY_ASSIGN_OR_RETURN(PkeyPtr ca_key, ParseKey(ca.key_pem, what + ": CA key"));
  GANTRY_ASSIGN_OR_RETURN(X509Ptr ca_cert,
                          ParseCertificate(ca.cert_pem, what + ": CA certificate"));
  if (X509_check_private_key(ca_cert.get(), ca_key.get()) != 1) {
    return Failure(StatusCode::kInvalidArgument, what,
                   "CA key does not belong to CA certificate " + Describe(ca_cert.get()));
  }
  if (X509_check_ca(ca_cert.get()) == 0) {
    return InvalidArgument(what + ": CA certificate " + Describe(ca_cert.get()) +
                           " is not a certificate authority");
  }
  const std::vector<Extension> extensions = {
      {NID_subject_alt_name, "DNS:" + std::string(name)},
      {NID_basic_constraints, "critical,CA:FALSE"},
      {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
      {NID_ext_key_usage, "serverAuth,clientAuth"},
      // The issuer's subjectKeyIdentifier; issuer name and serial if it has none.
      {NID_authority_key_identifier, "keyid,issuer"},
  };
  return BuildCertificate(what, name, days, extensions, ca_cert.get(), ca_key.get());
}

Result<CertificateFacts> ReadCertificate(std::string_view cert_pem) {
  const ErrorQueueGuard guard;
  GANTRY_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(cert_pem, "certificate"));
  GANTRY_ASSIGN_OR_RETURN(std::string common_name, CommonName(cert.get()));
  GANTRY_ASSIGN_OR_RETURN(int64_t not_after,
                          UnixSeconds(X509_get0_notAfter(cert.get()),
                                      "certificate " + Quoted(common_name) + ": notAfter"));
  return CertificateFacts{std::move(common_name), not_after};
}

Status CheckSignedBy(std::string_view cert_pem, std::string_view ca_cert_pem, int64_t now) {
  const ErrorQueueGuard guard;
  GANTRY_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(cert_pem, "certificate"));
  GANTRY_ASSIGN_OR_RETURN(X509Ptr ca, ParseCertificate(ca_cert_pem, "CA certificate"));
  const std::string what = "certificate " + Describe(cert.get());
  StorePtr store(X509_STORE_new());
  if (!store) return InternalFailure(what, "X509_STORE_new");
  if (X509_STORE_add_cert(store.get(), ca.get()) != 1) {
    return InternalFailure(what, "X509_STORE_add_cert");
  }
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  if (!ctx) return InternalFailure(what, "X509_STORE_CTX_new");
  if (X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr) != 1) {
    return InternalFailure(what, "X509_STORE_CTX_init");
  }
  if (X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_ANY) != 1) {
    return InternalFailure(what, "X509_STORE_CTX_set_purpose");
  }
  X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx.get()), static_cast<std::time_t>(now));
  if (X509_verify_cert(ctx.get()) == 1) return Status::Ok();
  const int error = X509_STORE_CTX_get_error(ctx.get());
  if (error == X509_V_OK) return InternalFailure(what, "X509_verify_cert");
  return PermissionDenied(what + " does not verify against CA " + Describe(ca.get()) + ": " +
                          X509_verify_cert_error_string(error));
}

Status CheckKeyMatches(std::string_view key_pem, std::string_view cert_pem) {
  const ErrorQueueGuard guard;
  GANTRY_ASSIGN_OR_RETURN(PkeyPtr key, ParseKey(key_pem, "private key"));
  GANTRY_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(cert_pem, "certificate"));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return Failure(StatusCode::kInvalidArgument, "private key",
                   "X509_check_private_key: not the key of certificate " + Describe(cert.get()));
  }
  return Status::Ok();
}

}  // namespace gantry::tls
