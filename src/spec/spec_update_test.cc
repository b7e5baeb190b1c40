#include "spec/spec_update.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "spec/spec_parser.h"
#include "tests/testing/spec_files.h"

namespace gantry::spec {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

ClusterSpec Demo() { return *ParseClusterSpec(testing::ReadExample("cluster.json")).spec; }
ClusterSpec Maps() {
  return *ParseClusterSpec(testing::ReadExample("cluster-config-maps.json")).spec;
}

std::vector<std::string> Lines(const std::vector<SpecChange>& changes) {
  std::vector<std::string> out;
  for (const SpecChange& c : changes) out.push_back(c.ToString());
  return out;
}

TEST(DiffSpecsTest, SameSpecHasNoChanges) { EXPECT_THAT(DiffSpecs(Demo(), Demo()), IsEmpty()); }

TEST(DiffSpecsTest, SpellingDoesNotMatter) {
  const ClusterSpec camel = *ParseClusterSpec(R"({"displayName": "demo"})").spec;
  const ClusterSpec snake = *ParseClusterSpec(R"({"display_name": "demo"})").spec;
  EXPECT_THAT(DiffSpecs(camel, snake), IsEmpty());
}

TEST(DiffSpecsTest, NodePoolScalingIsAllowed) {
  ClusterSpec after = Demo();
  after.node_pools[1].scaling_spec.min_node_count = 8;
  after.node_pools[1].scaling_spec.max_node_count = 8;
  EXPECT_THAT(Lines(DiffSpecs(Demo(), after)),
              ElementsAre("~ node_pools[a4].scaling_spec.min_node_count: 4 -> 8",
                          "~ node_pools[a4].scaling_spec.max_node_count: 4 -> 8"));
}

TEST(DiffSpecsTest, MachineChangeRecreatesNodes) {
  ClusterSpec after = Demo();
  after.node_pools[2].machine_spec.machine_type = "n2-standard-64";
  EXPECT_THAT(Lines(DiffSpecs(Demo(), after)),
              ElementsAre("~ node_pools[cpu].machine_spec.machine_type: \"n2-standard-32\" -> "
                          "\"n2-standard-64\"  (the pool's nodes are recreated)"));
}

TEST(DiffSpecsTest, PoolsAndPartitionsAddedAndRemovedByIdNotPosition) {
  ClusterSpec after = Demo();
  after.node_pools.erase(after.node_pools.begin() + 2);  // cpu
  after.slurm.partitions.erase(after.slurm.partitions.begin() + 2);
  NodePool extra = Demo().node_pools[2];
  extra.id = "cpu2";
  after.node_pools.push_back(extra);
  after.slurm.partitions.push_back({"cpu2", {"cpu2"}, {}});
  const std::vector<SpecChange> changes = DiffSpecs(Demo(), after);
  ASSERT_EQ(changes.size(), 4u) << ::testing::PrintToString(Lines(changes));
  EXPECT_EQ(changes[0].kind, SpecChange::Kind::kRemoved);
  EXPECT_EQ(changes[0].path, "node_pools[cpu]");
  EXPECT_EQ(changes[1].kind, SpecChange::Kind::kAdded);
  EXPECT_EQ(changes[1].path, "node_pools[cpu2]");
  EXPECT_EQ(changes[2].path, "orchestrator_spec.slurm_spec.partitions[cpu]");
  EXPECT_EQ(changes[3].path, "orchestrator_spec.slurm_spec.partitions[cpu2]");
  for (const SpecChange& c : changes) EXPECT_TRUE(c.allowed) << c.ToString();
}

TEST(DiffSpecsTest, PartitionReorderIsReportedBecauseTheFirstIsTheDefault) {
  ClusterSpec after = Demo();
  std::swap(after.slurm.partitions[0], after.slurm.partitions[1]);
  EXPECT_THAT(Lines(DiffSpecs(Demo(), after)),
              ElementsAre("~ orchestrator_spec.slurm_spec.partitions: "
                          "[\"a4\",\"urgent\",\"cpu\"] -> [\"urgent\",\"a4\",\"cpu\"]  "
                          "(order changed; the first one is the default)"));
}

TEST(DiffSpecsTest, ScriptsAndLoginPoolMayChange) {
  ClusterSpec after = Demo();
  after.slurm.prolog_bash_scripts.pop_back();
  after.slurm.epilog_bash_scripts.push_back("#!/bin/bash\ntrue");
  for (const SpecChange& c : DiffSpecs(Demo(), after)) EXPECT_TRUE(c.allowed) << c.ToString();
}

struct Refused {
  const char* name;
  std::function<void(ClusterSpec&)> mutate;
  const char* expected;
};

class RefusedChangeTest : public ::testing::TestWithParam<Refused> {};

TEST_P(RefusedChangeTest, NamesTheRefusedChange) {
  ClusterSpec after = Demo();
  GetParam().mutate(after);
  const std::vector<SpecChange> changes = DiffSpecs(Demo(), after);
  ASSERT_EQ(changes.size(), 1u) << ::testing::PrintToString(Lines(changes));
  EXPECT_FALSE(changes[0].allowed);
  EXPECT_EQ(changes[0].ToString(), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RefusedChangeTest,
    ::testing::Values(
        Refused{"display_name", [](ClusterSpec& s) { s.display_name = "demo2"; },
                "~ display_name: \"demo\" -> \"demo2\"  (refused: fixed at creation (it prefixes "
                "every node name))"},
        Refused{"home", [](ClusterSpec& s) { s.slurm.home_directory_storage = "/srv/home"; },
                "~ orchestrator_spec.slurm_spec.home_directory_storage: "
                "\"projects/demo-project/locations/us-central1-a/instances/demo-home\" -> "
                "\"/srv/home\"  (refused: fixed at creation (the shared /home))"},
        Refused{"weights", [](ClusterSpec& s) { s.slurm.scheduling->priority_weight_age = 5000; },
                "~ orchestrator_spec.slurm_spec.scheduling.priority_weight_age: 1000 -> 5000  "
                "(refused: Slurm parameters are fixed at creation (create a new cluster to "
                "change them))"},
        Refused{"enforce",
                [](ClusterSpec& s) { s.slurm.accounting->accounting_storage_enforce = "qos"; },
                "~ orchestrator_spec.slurm_spec.accounting.accounting_storage_enforce: "
                "\"associations,limits,qos\" -> \"qos\"  (refused: Slurm parameters are fixed at "
                "creation (create a new cluster to change them))"}),
    [](const ::testing::TestParamInfo<Refused>& c) { return c.param.name; });

TEST(DiffSpecsTest, ConfigMapsChangeOnlyWhenThePolicyAllows) {
  ClusterSpec after = Maps();
  (*after.slurm.config)[2].value = "2000";  // PriorityWeightAge
  after.slurm.node_sets[0].config[0].value = "20";
  const std::vector<SpecChange> strict = DiffSpecs(Maps(), after);
  ASSERT_EQ(strict.size(), 2u);
  EXPECT_FALSE(strict[0].allowed);
  EXPECT_FALSE(strict[1].allowed);
  EXPECT_EQ(strict[0].path, "orchestrator_spec.slurm_spec.config.PriorityWeightAge");
  EXPECT_EQ(strict[1].path, "orchestrator_spec.slurm_spec.node_sets[h200].config.Weight");
  for (const SpecChange& c : DiffSpecs(Maps(), after, {.allow_config_changes = true})) {
    EXPECT_TRUE(c.allowed) << c.ToString();
  }
}

}  // namespace
}  // namespace gantry::spec
