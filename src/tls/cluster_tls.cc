#include "tls/cluster_tls.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "sys/files.h"
#include "tls/certificates.h"

namespace gantry::tls {
namespace {

Result<KeyAndCert> ReadPair(const std::string& key_file, const std::string& cert_file) {
  GANTRY_RETURN_IF_ERROR(sys::CheckPrivateKeyFile(key_file));
  KeyAndCert pair;
  GANTRY_ASSIGN_OR_RETURN(pair.key_pem, sys::ReadText(key_file));
  GANTRY_ASSIGN_OR_RETURN(pair.cert_pem, sys::ReadText(cert_file));
  return pair;
}

Status WritePair(const KeyAndCert& pair, const std::string& key_file,
                 const std::string& cert_file) {
  GANTRY_RETURN_IF_ERROR(sys::WriteFileAtomically(key_file, pair.key_pem, 0600));
  return sys::WriteFileAtomically(cert_file, pair.cert_pem, 0644);
}

// Whether the pair at these paths is usable for `days_left` more days under `ca`.
bool Usable(const std::string& key_file, const std::string& cert_file, const std::string& ca_pem,
            int64_t now, int days_left) {
  Result<KeyAndCert> pair = ReadPair(key_file, cert_file);
  if (!pair.ok() || !CheckKeyMatches(pair->key_pem, pair->cert_pem).ok()) return false;
  if (!CheckSignedBy(pair->cert_pem, ca_pem, now).ok()) return false;
  Result<CertificateFacts> facts = ReadCertificate(pair->cert_pem);
  return facts.ok() && facts->not_after > now + int64_t{days_left} * 86400;
}

}  // namespace

std::string NodeCertName(std::string_view node) { return std::string(node) + kNodeSuffix; }

std::optional<std::string> NodeOfCertName(std::string_view name) {
  const std::string_view suffix = kNodeSuffix;
  if (name.size() <= suffix.size() || !name.ends_with(suffix)) return std::nullopt;
  return std::string(name.substr(0, name.size() - suffix.size()));
}

std::string TlsPaths::node_cert(std::string_view node) const {
  return dir + "/node-" + std::string(node) + ".crt";
}
std::string TlsPaths::node_key(std::string_view node) const {
  return dir + "/node-" + std::string(node) + ".key";
}

Status EnsureClusterCertificates(const TlsPaths& paths, const std::vector<std::string>& nodes) {
  if (mkdir(paths.dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Unavailable("cannot make " + paths.dir + ": " + std::strerror(errno));
  }
  if (chmod(paths.dir.c_str(), 0755) != 0) {
    return Unavailable("cannot set the mode of " + paths.dir + ": " + std::strerror(errno));
  }
  const int64_t now = std::time(nullptr);
  Result<KeyAndCert> ca = ReadPair(paths.ca_key(), paths.ca_cert());
  bool new_ca = false;
  if (!ca.ok() || !CheckKeyMatches(ca->key_pem, ca->cert_pem).ok() ||
      !CheckSignedBy(ca->cert_pem, ca->cert_pem, now).ok()) {
    ca = MakeAuthority("gantry cluster CA", kAuthorityDays);
    if (!ca.ok()) return ca.status();
    GANTRY_RETURN_IF_ERROR(WritePair(*ca, paths.ca_key(), paths.ca_cert()));
    new_ca = true;
  }
  auto ensure = [&](const std::string& name, const std::string& key_file,
                    const std::string& cert_file) -> Status {
    if (!new_ca && Usable(key_file, cert_file, ca->cert_pem, now, kRenewDays)) {
      return Status::Ok();
    }
    GANTRY_ASSIGN_OR_RETURN(KeyAndCert leaf, IssueCertificate(*ca, name, kLeafDays));
    return WritePair(leaf, key_file, cert_file);
  };
  GANTRY_RETURN_IF_ERROR(ensure(kControllerName, paths.controller_key(), paths.controller_cert()));
  GANTRY_RETURN_IF_ERROR(ensure(kRestName, paths.rest_key(), paths.rest_cert()));
  for (const std::string& node : nodes) {
    GANTRY_RETURN_IF_ERROR(ensure(NodeCertName(node), paths.node_key(node), paths.node_cert(node)));
  }
  return Status::Ok();
}

Result<Identity> LoadIdentity(const std::string& ca_file, const std::string& cert_file,
                              const std::string& key_file) {
  Identity identity;
  GANTRY_ASSIGN_OR_RETURN(identity.ca_pem, LoadAuthority(ca_file));
  GANTRY_ASSIGN_OR_RETURN(KeyAndCert pair, ReadPair(key_file, cert_file));
  if (Status s = CheckSignedBy(pair.cert_pem, identity.ca_pem, std::time(nullptr)); !s.ok()) {
    return Status(s.code(),
                  "certificate " + cert_file + " is not one of " + ca_file + "'s: " + s.message());
  }
  if (Status s = CheckKeyMatches(pair.key_pem, pair.cert_pem); !s.ok()) {
    return InvalidArgument("key " + key_file + " does not belong to certificate " + cert_file +
                           ": " + s.message());
  }
  GANTRY_ASSIGN_OR_RETURN(CertificateFacts facts, ReadCertificate(pair.cert_pem));
  identity.name = facts.common_name;
  identity.cert_pem = std::move(pair.cert_pem);
  identity.key_pem = std::move(pair.key_pem);
  return identity;
}

Result<std::string> LoadAuthority(const std::string& ca_file) {
  GANTRY_ASSIGN_OR_RETURN(std::string pem, sys::ReadText(ca_file));
  if (Result<CertificateFacts> facts = ReadCertificate(pem); !facts.ok()) {
    return InvalidArgument(ca_file + ": " + facts.status().message());
  }
  return pem;
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const Identity& identity,
                                                           ClientCertificates clients) {
  grpc::SslServerCredentialsOptions options(
      clients == ClientCertificates::kRequire
          ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
          : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = identity.ca_pem;
  options.pem_key_cert_pairs.push_back({identity.key_pem, identity.cert_pem});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const std::string& ca_pem,
                                                             const Identity* client) {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ca_pem;
  if (client != nullptr) {
    options.pem_private_key = client->key_pem;
    options.pem_cert_chain = client->cert_pem;
  }
  return grpc::SslCredentials(options);
}

void ExpectServerName(grpc::ChannelArguments* args, std::string_view name) {
  args->SetSslTargetNameOverride(std::string(name));
}

std::optional<std::string> PeerName(const grpc::ServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return std::nullopt;
  const std::vector<grpc::string_ref> names = auth->FindPropertyValues("x509_common_name");
  if (names.size() != 1) return std::nullopt;
  return std::string(names[0].data(), names[0].size());
}

}  // namespace gantry::tls
