#include "spec/effective_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "spec/render_slurm_conf.h"
#include "spec/spec_parser.h"
#include "tests/testing/spec_files.h"

namespace gantry::spec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

EffectiveConfig Build(const char* example) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample(example));
  Result<EffectiveConfig> c = BuildEffectiveConfig(*parsed.spec);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

TEST(EffectiveConfigTest, NamesNodesClusterPoolIndex) {
  const EffectiveConfig c = Build("cluster.json");
  EXPECT_EQ(c.cluster_name, "demo");
  const EffectivePool* a4 = c.FindPool("a4");
  ASSERT_NE(a4, nullptr);
  EXPECT_THAT(a4->node_names, ElementsAre("demo-a4-0", "demo-a4-1", "demo-a4-2", "demo-a4-3"));
  EXPECT_EQ(a4->hostlist, "demo-a4-[0-3]");
  EXPECT_TRUE(c.FindPool("login")->login);
  EXPECT_EQ(c.ComputeNodeCount(), 6);
}

TEST(EffectiveConfigTest, ResourcesComeFromTheMachineCatalog) {
  const EffectiveConfig c = Build("cluster.json");
  const EffectivePool* a4 = c.FindPool("a4");
  EXPECT_EQ(a4->cpus, 224);
  EXPECT_EQ(a4->real_memory_mib, 3968 * 1024);
  EXPECT_EQ(a4->gpus, 8);
  EXPECT_EQ(a4->gpu_type, "b200");
  const EffectivePool* cpu = c.FindPool("cpu");
  EXPECT_EQ(cpu->cpus, 32);
  EXPECT_EQ(cpu->real_memory_mib, 128 * 1024);
  EXPECT_EQ(cpu->gpus, 0);
}

TEST(EffectiveConfigTest, NodeResourcesOverrideTheCatalog) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster.json"));
  parsed.spec->node_pools[1].node_resources = NodeResources{4, 8192, 2, ""};
  parsed.spec->node_pools[1].machine_spec.accelerator_type.clear();
  parsed.spec->node_pools[1].machine_spec.accelerator_count.reset();
  Result<EffectiveConfig> c = BuildEffectiveConfig(*parsed.spec);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->FindPool("a4")->cpus, 4);
  EXPECT_EQ(c->FindPool("a4")->real_memory_mib, 8192);
  EXPECT_EQ(c->FindPool("a4")->gpus, 2);
  EXPECT_EQ(c->FindPool("a4")->gpu_type, "b200");  // still from the catalog
}

TEST(EffectiveConfigTest, FirstPartitionIsTheDefaultUnlessNamed) {
  EffectiveConfig c = Build("cluster.json");
  EXPECT_EQ(c.DefaultPartition()->name, "a4");
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster.json"));
  parsed.spec->slurm.default_partition_id = "cpu";
  EXPECT_EQ(BuildEffectiveConfig(*parsed.spec)->DefaultPartition()->name, "cpu");
}

TEST(EffectiveConfigTest, LegacyBlocksBecomeCanonicalSettings) {
  const EffectiveConfig c = Build("cluster.json");
  EXPECT_EQ(c.Explicit("PreemptMode"), "SUSPEND,GANG");
  EXPECT_EQ(c.Get("priority_weight_fairshare"), "10000");
  EXPECT_EQ(c.Get("AccountingStorageEnforce"), "associations,limits,qos");
  EXPECT_EQ(c.Get("PriorityMaxAge"), "7-0");  // Slurm's default
  EXPECT_FALSE(c.Explicit("PriorityMaxAge"));
}

TEST(EffectiveConfigTest, ConfigMapsUseCanonicalNames) {
  const EffectiveConfig c = Build("cluster-config-maps.json");
  EXPECT_EQ(c.Get("SchedulerParameters"), "bf_continue,bf_window=1440,bf_resolution=600");
  EXPECT_EQ(c.partitions[0].config.front(),
            (std::pair<std::string, std::string>{"MaxTime", "4-00:00:00"}));
  EXPECT_THAT(c.FindPool("h200")->node_config,
              ElementsAre(std::pair<std::string, std::string>{"Weight", "10"},
                          std::pair<std::string, std::string>{"Features", "gpu,h200"}));
}

TEST(EffectiveConfigTest, PartitionsWithoutAMemoryDefaultGetOnePerCpu) {
  const EffectiveConfig demo = Build("cluster.json");
  // a4-highgpu-8g: 4063232 MiB / 224 CPUs; n2-standard-32: 131072 / 32.
  EXPECT_EQ(demo.partitions[0].config.back(),
            (std::pair<std::string, std::string>{"DefMemPerCPU", "18139"}));
  EXPECT_EQ(demo.partitions[2].config.back(),
            (std::pair<std::string, std::string>{"DefMemPerCPU", "4096"}));
  const EffectiveConfig maps = Build("cluster-config-maps.json");
  // "train" sets DefMemPerCPU itself; nothing is added.
  EXPECT_EQ(maps.partitions[0].config.size(), 3u);
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster-config-maps.json"));
  parsed.spec->slurm.config->push_back({"DefMemPerNode", "1000"});
  const Result<EffectiveConfig> with_node_default = BuildEffectiveConfig(*parsed.spec);
  for (const auto& [k, v] : with_node_default->partitions[1].config) {
    EXPECT_NE(k, "DefMemPerCPU");  // a cluster-wide default applies instead
  }
}

TEST(EffectiveConfigTest, RefusesAnInvalidSpec) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster.json"));
  parsed.spec->slurm.partitions[0].node_pool_ids = {"nope"};
  Result<EffectiveConfig> c = BuildEffectiveConfig(*parsed.spec);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(), HasSubstr("unknown node pool \"nope\""));
}

TEST(RenderSlurmConfTest, MatchesTheGoldenFiles) {
  for (const char* name : {"cluster", "cluster-config-maps"}) {
    const EffectiveConfig c = Build((std::string(name) + ".json").c_str());
    EXPECT_EQ(RenderSlurmConf(c, SlurmConfOptions{}),
              testing::ReadGolden(std::string(name) + ".slurm.conf"))
        << name;
    EXPECT_EQ(RenderGresConf(c), testing::ReadGolden(std::string(name) + ".gres.conf")) << name;
  }
}

TEST(RenderSlurmConfTest, SpecSettingsReplaceBaseLinesInPlace) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster-config-maps.json"));
  parsed.spec->slurm.config->push_back({"select_type_parameters", "CR_CPU_Memory"});
  const std::string conf = RenderSlurmConf(*BuildEffectiveConfig(*parsed.spec), SlurmConfOptions{});
  EXPECT_THAT(conf, HasSubstr("\nSelectTypeParameters=CR_CPU_Memory\n"));
  EXPECT_THAT(conf, ::testing::Not(HasSubstr("CR_Core_Memory")));
}

}  // namespace
}  // namespace gantry::spec
