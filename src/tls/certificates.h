// Certificates for mutual TLS between gantry daemons: a private certificate authority and the leaf
// certificates it issues, made and checked with OpenSSL 3.
//
// Contracts:
//  - Keys are EC P-256 (named curve) in PKCS#8 PEM ("BEGIN PRIVATE KEY"), certificates X.509 v3 in
//    PEM, signed with ECDSA-SHA256. Serials are random 128-bit positive integers. Validity starts
//    one hour before the current time (for clock skew) and lasts `days` days from there.
//  - `days` must be in [1, 36500] and a name must be 1..64 bytes (the X.509 limit for a common
//    name); otherwise InvalidArgument naming the value.
//  - An encrypted PEM private key is refused (no passphrase is ever asked for).
//  - Errors name what failed, e.g. "certificate for n1: X509_sign: <openssl error string>".
//    OpenSSL failures that are not caused by the input are Internal.
//
// Thread-safety: all functions are thread-safe and pure apart from randomness (keys, serials) and
// the current time read by MakeAuthority and IssueCertificate. They leave the calling thread's
// OpenSSL error queue empty.
#ifndef GANTRY_TLS_CERTIFICATES_H_
#define GANTRY_TLS_CERTIFICATES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace gantry::tls {

struct KeyAndCert {
  std::string key_pem;   // PKCS#8 PEM private key
  std::string cert_pem;  // PEM X.509 certificate
};

// A new self-signed certificate authority: an EC P-256 key, subject CN=`name`, basicConstraints
// critical CA:TRUE pathlen 0, keyUsage critical keyCertSign+cRLSign, subjectKeyIdentifier, a random
// 128-bit positive serial, valid from now-1h for `days` days, signed SHA-256. InvalidArgument when
// `name` is empty, longer than 64 bytes or not UTF-8, or `days` is out of range.
Result<KeyAndCert> MakeAuthority(std::string_view name, int days);

// A leaf certificate: new EC P-256 key, subject CN=`name`, subjectAltName DNS:`name` (the one
// name; gRPC checks the target name against it), basicConstraints critical CA:FALSE, keyUsage
// critical digitalSignature+keyEncipherment, extendedKeyUsage serverAuth+clientAuth,
// authorityKeyIdentifier, issuer = the CA's subject, random serial, valid from now-1h for `days`
// days, signed by `ca` with SHA-256. InvalidArgument when `name` is empty, longer than 64 bytes or
// has characters other than [A-Za-z0-9.-]; when `days` is out of range; when ca's key/cert do not
// parse, do not belong together or the certificate is not a CA.
Result<KeyAndCert> IssueCertificate(const KeyAndCert& ca, std::string_view name, int days);

struct CertificateFacts {
  std::string common_name;
  int64_t not_after = 0;  // unix seconds
};

// Reads a PEM certificate's subject CN (as UTF-8) and end of validity. InvalidArgument when the
// PEM does not parse or the subject has no CN.
Result<CertificateFacts> ReadCertificate(std::string_view cert_pem);

// OK when cert_pem verifies against the single trusted root ca_cert_pem at `now` (unix seconds)
// with X509_verify_cert (purpose any); PermissionDenied naming the reason
// (X509_verify_cert_error_string) otherwise; InvalidArgument when a PEM does not parse.
Status CheckSignedBy(std::string_view cert_pem, std::string_view ca_cert_pem, int64_t now);

// OK when key_pem is the private key of cert_pem (X509_check_private_key), else InvalidArgument
// (also when a PEM does not parse).
Status CheckKeyMatches(std::string_view key_pem, std::string_view cert_pem);

}  // namespace gantry::tls

#endif  // GANTRY_TLS_CERTIFICATES_H_
