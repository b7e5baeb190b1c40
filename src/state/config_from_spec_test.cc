#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/node_state.h"
#include "spec/effective_config.h"
#include "spec/validate.h"
#include "state/cluster_state.h"
#include "state/testing.h"

namespace gantry::state {
namespace {

spec::EffectiveConfig LoadExample(const std::string& file) {
  std::ifstream in(std::string(GANTRY_SOURCE_DIR) + "/examples/" + file);
  std::stringstream text;
  text << in.rdbuf();
  const spec::CheckedSpec checked = spec::CheckSpecText(text.str());
  EXPECT_TRUE(checked.ok()) << file;
  auto config = spec::BuildEffectiveConfig(*checked.spec);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return *config;
}

std::vector<std::string> Names(const google::protobuf::RepeatedPtrField<std::string>& names) {
  return std::vector<std::string>(names.begin(), names.end());
}

TEST(ConfigFromSpecTest, ClusterExample) {
  const spec::EffectiveConfig config = LoadExample("cluster.json");
  const v1::ConfigLoaded loaded = ConfigFromSpec(config);

  ASSERT_EQ(loaded.nodes_size(), 6);  // 4 a4 + 2 cpu; the login node is not a compute node
  const v1::Node& a4 = loaded.nodes(0);
  EXPECT_EQ(a4.name(), "demo-a4-0");
  EXPECT_EQ(a4.pool(), "a4");
  EXPECT_EQ(a4.cpus(), 224u);
  EXPECT_EQ(a4.real_memory_mb(), 3968u * 1024);
  EXPECT_EQ(a4.gres(), "gpu:b200:8");
  EXPECT_EQ(Names(a4.partitions()), (std::vector<std::string>{"a4", "urgent"}));
  EXPECT_EQ(a4.state(), 0u);  // UNKNOWN: Apply decides
  const v1::Node& cpu = loaded.nodes(5);
  EXPECT_EQ(cpu.name(), "demo-cpu-1");
  EXPECT_EQ(cpu.cpus(), 32u);
  EXPECT_EQ(cpu.real_memory_mb(), 131072u);
  EXPECT_EQ(cpu.gres(), "");
  EXPECT_EQ(Names(cpu.partitions()), std::vector<std::string>{"cpu"});

  ASSERT_EQ(loaded.partitions_size(), 3);
  const v1::Partition& p_a4 = loaded.partitions(0);
  EXPECT_EQ(p_a4.name(), "a4");
  EXPECT_TRUE(p_a4.is_default());
  EXPECT_EQ(Names(p_a4.nodes()),
            (std::vector<std::string>{"demo-a4-0", "demo-a4-1", "demo-a4-2", "demo-a4-3"}));
  EXPECT_EQ(p_a4.state(), "UP");
  EXPECT_EQ(p_a4.priority_tier(), 1u);
  EXPECT_EQ(p_a4.max_time_min(), kUnlimited);
  EXPECT_EQ(p_a4.default_time_min(), 0u);
  EXPECT_EQ(p_a4.max_nodes(), kUnlimited);
  EXPECT_EQ(p_a4.oversubscribe(), "NO");
  EXPECT_EQ(p_a4.preempt_mode(), "SUSPEND,GANG");            // the cluster's
  EXPECT_EQ(p_a4.def_mem_per_cpu_mb(), 3968u * 1024 / 224);  // the managed service's default
  EXPECT_TRUE(p_a4.extra().empty());
  const v1::Partition& urgent = loaded.partitions(1);
  EXPECT_FALSE(urgent.is_default());
  EXPECT_EQ(urgent.priority_tier(), 10u);
  EXPECT_EQ(urgent.max_time_min(), 24u * 60);
  const v1::Partition& p_cpu = loaded.partitions(2);
  EXPECT_EQ(p_cpu.def_mem_per_cpu_mb(), 4096u);
  EXPECT_EQ(Names(p_cpu.nodes()), (std::vector<std::string>{"demo-cpu-0", "demo-cpu-1"}));

  EXPECT_EQ(ReturnToServiceFromConfig(config), 2);
}

TEST(ConfigFromSpecTest, ConfigMapsExample) {
  const spec::EffectiveConfig config = LoadExample("cluster-config-maps.json");
  const v1::ConfigLoaded loaded = ConfigFromSpec(config);
  ASSERT_EQ(loaded.nodes_size(), 8);
  EXPECT_EQ(loaded.nodes(0).features(), "gpu,h200");  // node_sets Features
  EXPECT_EQ(loaded.nodes(0).gres(), "gpu:h200:8");
  ASSERT_EQ(loaded.partitions_size(), 2);
  EXPECT_EQ(loaded.partitions(0).max_time_min(), 4u * 24 * 60);
  EXPECT_EQ(loaded.partitions(0).def_mem_per_cpu_mb(), 4096u);
  EXPECT_EQ(loaded.partitions(1).max_time_min(), 120u);
  EXPECT_EQ(loaded.partitions(1).priority_tier(), 20u);
  EXPECT_EQ(loaded.partitions(1).preempt_mode(), "REQUEUE");
}

TEST(ConfigFromSpecTest, LoadedIntoStateNodesStartUnknownNotResponding) {
  const v1::ConfigLoaded loaded = ConfigFromSpec(LoadExample("cluster.json"));
  ClusterState s;
  v1::Event e;
  e.set_time(testing::kNow);
  *e.mutable_config_loaded() = loaded;
  ASSERT_TRUE(Apply(&s, e).ok());
  ASSERT_EQ(s.nodes.size(), 6u);
  EXPECT_EQ(model::NodeStateComplete(NodeStateOf(s.nodes[0])), "UNKNOWN+NOT_RESPONDING");
  EXPECT_EQ(s.DefaultPartition()->name(), "a4");
  EXPECT_EQ(s.partition_nodes[2], (std::vector<uint32_t>{4, 5}));
}

}  // namespace
}  // namespace gantry::state
