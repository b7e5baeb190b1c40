#include "cluster/replicas.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cluster/cluster_files.h"

namespace gantry::cluster {
namespace {

TEST(ReplicasTest, NewLocalReplicasTakeDistinctLoopbackPorts) {
  Result<Replicas> replicas = NewLocalReplicas(3);
  ASSERT_TRUE(replicas.ok()) << replicas.status().ToString();
  ASSERT_EQ(replicas->etcd.size(), 3u);
  ASSERT_EQ(replicas->controllers.size(), 3u);
  std::set<std::string> addresses;
  for (const EtcdMember& m : replicas->etcd) {
    addresses.insert(m.client);
    addresses.insert(m.peer);
  }
  for (const Replica& r : replicas->controllers) addresses.insert(r.address);
  EXPECT_EQ(addresses.size(), 9u);
  EXPECT_EQ(replicas->controllers[1].name, "c2");
  EXPECT_TRUE(replicas->etcd[0].client.starts_with("127.0.0.1:"));
}

TEST(ReplicasTest, CountsOutsideTwoToSevenAreRefused) {
  for (int count : {0, 1, 8}) {
    Result<Replicas> replicas = NewLocalReplicas(count);
    ASSERT_FALSE(replicas.ok());
    EXPECT_NE(replicas.status().message().find("--controllers " + std::to_string(count)),
              std::string::npos);
  }
}

TEST(ReplicasTest, TheFileReadsBackAsWritten) {
  Replicas replicas;
  replicas.etcd = {{"e1", "10.0.0.1:2379", "10.0.0.1:2380"},
                   {"e2", "10.0.0.2:2379", "10.0.0.2:2380"}};
  replicas.controllers = {{"c1", "10.0.0.1:6817"}, {"c2", "10.0.0.2:6817"}};
  Result<Replicas> back = ParseReplicas(RenderReplicas(replicas), "replicas.conf");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->EtcdEndpoints(), "10.0.0.1:2379,10.0.0.2:2379");
  EXPECT_EQ(back->ControllerAddresses(), "10.0.0.1:6817,10.0.0.2:6817");
}

TEST(ReplicasTest, ABadLineIsNamed) {
  Result<Replicas> bad = ParseReplicas("etcd e1 a:1 b:2\ncontroller c1\n", "/d/replicas.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "/d/replicas.conf:2: \"controller c1\": expected \"etcd NAME CLIENT PEER\" or "
            "\"controller NAME ADDRESS\"");
}

TEST(ReplicasTest, GantryConfListsEveryReplicasWayIn) {
  Replicas replicas;
  replicas.etcd = {{"e1", "127.0.0.1:1", "127.0.0.1:2"}};
  replicas.controllers = {{"c1", "127.0.0.1:11"}, {"c2", "127.0.0.1:12"}};
  const std::string conf = RenderGantryConf("demo", StateDir("/s"), &replicas);
  EXPECT_NE(conf.find("CommandSocket=/s/run/c1/commands.sock,/s/run/c2/commands.sock\n"),
            std::string::npos)
      << conf;
  EXPECT_NE(conf.find("ControllerSocket=/s/run/c1/gantryd.sock,/s/run/c2/gantryd.sock\n"),
            std::string::npos);
  EXPECT_NE(conf.find("ControllerAddress=127.0.0.1:11,127.0.0.1:12\n"), std::string::npos);
  EXPECT_EQ(conf.find("ControllerAddressFile"), std::string::npos);
}

}  // namespace
}  // namespace gantry::cluster
