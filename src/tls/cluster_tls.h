// TLS between the controller and the agents, and from remote commands to the controller, with
// certificates from the cluster's own certificate authority (decision record 0008).
//
// Names: the controller's certificate names kControllerName; a node's names NodeCertName(node)
// ("n1.node.gantry"; no node name makes "controller.gantry"). Each
// side checks the other's name, not its address: a channel expects the name of the certificate
// it dials (ExpectServerName), and a server reads the caller's verified name (PeerName).
//
// Files, under DIR/tls/ (TlsPaths): ca.crt (public), ca.key, controller.crt/.key and
// node-<node>.crt/.key (private keys mode 0600). EnsureClusterCertificates makes what is missing.
//
// Thread-safety: all functions are thread-safe.
#ifndef GANTRY_TLS_CLUSTER_TLS_H_
#define GANTRY_TLS_CLUSTER_TLS_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gantry::tls {

inline constexpr char kControllerName[] = "controller.gantry";
// gantry-restd's HTTPS certificate: clients reach the local cluster's REST daemon as localhost.
inline constexpr char kRestName[] = "localhost";
inline constexpr char kNodeSuffix[] = ".node.gantry";
// Validity of what EnsureClusterCertificates issues; leaf certificates within kRenewDays of
// their end are issued anew.
inline constexpr int kAuthorityDays = 3650;
inline constexpr int kLeafDays = 397;
inline constexpr int kRenewDays = 30;

// "n1" -> "n1.node.gantry".
std::string NodeCertName(std::string_view node);
// "n1.node.gantry" -> "n1"; nullopt for any other name.
std::optional<std::string> NodeOfCertName(std::string_view name);

struct TlsPaths {
  std::string dir;
  std::string ca_cert() const { return dir + "/ca.crt"; }
  std::string ca_key() const { return dir + "/ca.key"; }
  std::string controller_cert() const { return dir + "/controller.crt"; }
  std::string controller_key() const { return dir + "/controller.key"; }
  std::string rest_cert() const { return dir + "/rest.crt"; }
  std::string rest_key() const { return dir + "/rest.key"; }
  std::string node_cert(std::string_view node) const;
  std::string node_key(std::string_view node) const;
};

// Makes DIR/tls (0755) and, where missing, unreadable or near their end, the CA, the controller's
// certificate, gantry-restd's and one per node. Keys are written 0600 (by rename, never
// half-written). Unavailable naming the file it could not write.
Status EnsureClusterCertificates(const TlsPaths& paths, const std::vector<std::string>& nodes);

// What a daemon presents and trusts.
struct Identity {
  std::string name;      // the certificate's common name
  std::string ca_pem;    // the one authority it trusts
  std::string cert_pem;  // its certificate
  std::string key_pem;   // its private key
};
// Reads the three files and checks them: the key file readable by its owner only, the
// certificate signed by the CA and valid now, the key its own. Errors name the file and the rule.
Result<Identity> LoadIdentity(const std::string& ca_file, const std::string& cert_file,
                              const std::string& key_file);
// Reads a CA certificate (for clients that present no certificate).
Result<std::string> LoadAuthority(const std::string& ca_file);

enum class ClientCertificates {
  kRequire,          // agents: only the controller calls them
  kVerifyIfPresent,  // the controller: agents present theirs, commands do not
};
std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const Identity& identity,
                                                           ClientCertificates clients);
// Trusts only `ca_pem`; presents `client`'s certificate when not null.
std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const std::string& ca_pem,
                                                             const Identity* client);
// The name the server's certificate must carry (instead of the dialled host's).
void ExpectServerName(grpc::ChannelArguments* args, std::string_view name);
// The verified certificate name of a call's peer; nullopt when it presented none (or the call
// did not come over TLS).
std::optional<std::string> PeerName(const grpc::ServerContext& context);

}  // namespace gantry::tls

#endif  // GANTRY_TLS_CLUSTER_TLS_H_
