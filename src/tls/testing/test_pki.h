// Tests' certificates: a cluster CA with the controller's and some nodes' certificates in a
// temporary folder (removed with the object), loaded as identities.
#ifndef GANTRY_TLS_TESTING_TEST_PKI_H_
#define GANTRY_TLS_TESTING_TEST_PKI_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tls/cluster_tls.h"

namespace gantry::tls::testing {

class TestPki {
 public:
  explicit TestPki(const std::vector<std::string>& nodes = {"n1", "n2"}) {
    char pattern[] = "/tmp/gantry-pki-XXXXXX";
    if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp");
    root_ = pattern;
    paths_.dir = root_ + "/tls";
    const Status made = EnsureClusterCertificates(paths_, nodes);
    if (!made.ok()) throw std::runtime_error(made.ToString());
  }
  ~TestPki() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  TestPki(const TestPki&) = delete;
  TestPki& operator=(const TestPki&) = delete;

  const TlsPaths& paths() const { return paths_; }
  Identity Controller() const { return Load(paths_.controller_cert(), paths_.controller_key()); }
  Identity Node(const std::string& node) const {
    return Load(paths_.node_cert(node), paths_.node_key(node));
  }

 private:
  Identity Load(const std::string& cert, const std::string& key) const {
    Result<Identity> identity = LoadIdentity(paths_.ca_cert(), cert, key);
    if (!identity.ok()) throw std::runtime_error(identity.status().ToString());
    return *identity;
  }

  std::string root_;
  TlsPaths paths_;
};

}  // namespace gantry::tls::testing

#endif  // GANTRY_TLS_TESTING_TEST_PKI_H_
