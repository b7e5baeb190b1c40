#include "tls/cluster_tls.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tls/testing/test_pki.h"

namespace gantry::tls {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ClusterTlsTest, NamesSeparateTheControllerFromEveryNode) {
  EXPECT_EQ(NodeCertName("a3-0"), "a3-0.node.gantry");
  EXPECT_EQ(NodeOfCertName("a3-0.node.gantry"), "a3-0");
  EXPECT_EQ(NodeOfCertName("controller.node.gantry"), "controller");
  EXPECT_EQ(NodeOfCertName(kControllerName), std::nullopt);
  EXPECT_EQ(NodeOfCertName(".node.gantry"), std::nullopt);
  EXPECT_EQ(NodeOfCertName("a3-0.node.gantry.evil"), std::nullopt);
}

TEST(ClusterTlsTest, EnsureMakesWhatIsMissingAndKeepsWhatIsGood) {
  testing::TestPki pki({"n1", "n2"});
  const TlsPaths& p = pki.paths();
  const std::string ca = Read(p.ca_cert());
  const std::string n1 = Read(p.node_cert("n1"));
  const std::string n2 = Read(p.node_cert("n2"));
  struct stat st {};
  ASSERT_EQ(stat(p.node_key("n1").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(p.ca_key().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // Again: nothing changes. A node added and a node's lost key: only those are issued.
  std::filesystem::remove(p.node_key("n2"));
  ASSERT_TRUE(EnsureClusterCertificates(p, {"n1", "n2", "n3"}).ok());
  EXPECT_EQ(Read(p.ca_cert()), ca);
  EXPECT_EQ(Read(p.node_cert("n1")), n1);
  EXPECT_NE(Read(p.node_cert("n2")), n2);
  EXPECT_TRUE(LoadIdentity(p.ca_cert(), p.node_cert("n3"), p.node_key("n3")).ok());

  // A damaged CA: a new one, and everything issued again under it.
  std::ofstream(p.ca_key()) << "not a key";
  ASSERT_TRUE(EnsureClusterCertificates(p, {"n1"}).ok());
  EXPECT_NE(Read(p.ca_cert()), ca);
  EXPECT_NE(Read(p.node_cert("n1")), n1);
  Result<Identity> controller = LoadIdentity(p.ca_cert(), p.controller_cert(), p.controller_key());
  ASSERT_TRUE(controller.ok()) << controller.status().message();
  EXPECT_EQ(controller->name, kControllerName);
}

TEST(ClusterTlsTest, LoadIdentityNamesTheFileAndTheRule) {
  testing::TestPki pki({"n1"});
  testing::TestPki other({"n1"});
  const TlsPaths& p = pki.paths();
  chmod(p.node_key("n1").c_str(), 0644);
  Result<Identity> loose = LoadIdentity(p.ca_cert(), p.node_cert("n1"), p.node_key("n1"));
  ASSERT_FALSE(loose.ok());
  EXPECT_NE(loose.status().message().find(p.node_key("n1") + " is readable by group or others"),
            std::string::npos)
      << loose.status().message();
  chmod(p.node_key("n1").c_str(), 0600);
  Result<Identity> foreign =
      LoadIdentity(p.ca_cert(), other.paths().node_cert("n1"), other.paths().node_key("n1"));
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("is not one of " + p.ca_cert() + "'s"),
            std::string::npos)
      << foreign.status().message();
  Result<Identity> mismatched = LoadIdentity(p.ca_cert(), p.node_cert("n1"), p.controller_key());
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.status().message().find("does not belong to certificate"), std::string::npos)
      << mismatched.status().message();
}

}  // namespace
}  // namespace gantry::tls
