#include "spec/spec_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/spec_files.h"

namespace gantry::spec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Messages(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const Diagnostic& x : d.items()) out.push_back(x.ToString());
  return out;
}

TEST(SpecParserTest, ReadsTheSnakeAndCamelExample) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster.json"));
  ASSERT_TRUE(parsed.diagnostics.empty()) << parsed.diagnostics.ToStatus().message();
  const ClusterSpec& spec = *parsed.spec;
  EXPECT_EQ(spec.display_name, "demo");
  ASSERT_EQ(spec.node_pools.size(), 3u);
  EXPECT_EQ(spec.node_pools[1].id, "a4");
  EXPECT_EQ(spec.node_pools[1].machine_spec.machine_type, "a4-highgpu-8g");
  EXPECT_EQ(spec.node_pools[1].machine_spec.accelerator_count, 8);
  EXPECT_EQ(spec.node_pools[1].scaling_spec.max_node_count, 4);
  EXPECT_EQ(spec.node_pools[1].boot_disk.boot_disk_size_gb, 200);
  // orchestratorSpec.slurmSpec (camelCase) holding snake_case fields.
  ASSERT_EQ(spec.slurm.partitions.size(), 3u);
  EXPECT_EQ(spec.slurm.partitions[1].id, "urgent");
  EXPECT_THAT(spec.slurm.partitions[1].config,
              ElementsAre(ConfigEntry{"PriorityTier", "10"}, ConfigEntry{"MaxTime", "1-00:00:00"}));
  EXPECT_EQ(spec.slurm.login_node_pool_id, "login");
  ASSERT_TRUE(spec.slurm.scheduling);
  EXPECT_EQ(spec.slurm.scheduling->preempt_mode, "SUSPEND,GANG");
  EXPECT_EQ(spec.slurm.scheduling->priority_weight_fairshare, 10000);
  EXPECT_EQ(spec.slurm.accounting->accounting_storage_enforce, "associations,limits,qos");
  EXPECT_FALSE(spec.slurm.config);
  EXPECT_EQ(spec.slurm.prolog_bash_scripts.size(), 2u);
}

TEST(SpecParserTest, ReadsTheConfigMapExample) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample("cluster-config-maps.json"));
  ASSERT_TRUE(parsed.diagnostics.empty()) << parsed.diagnostics.ToStatus().message();
  const ClusterSpec& spec = *parsed.spec;
  ASSERT_TRUE(spec.slurm.config);
  EXPECT_EQ(spec.slurm.config->front(),
            (ConfigEntry{"AccountingStorageEnforce", "associations,limits,qos"}));
  ASSERT_EQ(spec.slurm.node_sets.size(), 1u);
  EXPECT_EQ(spec.slurm.node_sets[0].node_pool_id, "h200");
  EXPECT_EQ(spec.node_pools[1].provisioning_model, "SPOT");
}

TEST(SpecParserTest, CamelCaseEverywhere) {
  ParsedSpec parsed = ParseClusterSpec(R"({
    "displayName": "c", "nodePools": [{"id": "p", "machineSpec": {"machineType": "n2-standard-8"},
      "scalingSpec": {"minNodeCount": "2", "maxNodeCount": 2}, "bootDisk": {"bootDiskSizeGb": 50}}],
    "orchestratorSpec": {"slurmSpec": {"loginNodePoolId": "p", "homeDirectoryStorage": "/h",
      "prologBashScripts": ["echo"], "nodeSets": [{"nodePoolId": "p", "config": {}}]}}})");
  ASSERT_TRUE(parsed.diagnostics.empty()) << parsed.diagnostics.ToStatus().message();
  EXPECT_EQ(parsed.spec->display_name, "c");
  EXPECT_EQ(parsed.spec->node_pools[0].scaling_spec.min_node_count, 2);  // int64 as string
  EXPECT_EQ(parsed.spec->node_pools[0].boot_disk.boot_disk_size_gb, 50);
  EXPECT_EQ(parsed.spec->slurm.login_node_pool_id, "p");
  EXPECT_EQ(parsed.spec->slurm.node_sets.size(), 1u);
}

struct BadCase {
  const char* name;
  const char* json;
  const char* expected;  // one diagnostic, in full
};

class SpecParserBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(SpecParserBadInputTest, ReportsPathValueAndRule) {
  ParsedSpec parsed = ParseClusterSpec(GetParam().json);
  EXPECT_THAT(Messages(parsed.diagnostics), ElementsAre(GetParam().expected));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SpecParserBadInputTest,
    ::testing::Values(
        BadCase{"unknown_top", R"({"display_nam": "x"})",
                R"(display_nam: unknown field (did you mean "display_name"?))"},
        BadCase{"unknown_camel", R"({"nodePool": []})",
                R"(nodePool: unknown field (did you mean "node_pools"?))"},
        BadCase{
            "unknown_nested", R"({"orchestrator_spec": {"slurm_spec": {"partitons": []}}})",
            R"(orchestrator_spec.slurm_spec.partitons: unknown field (did you mean "partitions"?))"},
        BadCase{"both_spellings", R"({"node_pools": [], "nodePools": []})",
                R"(node_pools: set twice, as "node_pools" and "nodePools"; keep one spelling)"},
        BadCase{"wrong_type", R"({"display_name": 5})",
                "display_name: expected a string, got number 5"},
        BadCase{
            "bad_int", R"({"node_pools": [{"scaling_spec": {"min_node_count": "four"}}]})",
            R"(node_pools[0].scaling_spec.min_node_count: expected an integer, got string "four")"},
        BadCase{"float_int", R"({"node_pools": [{"scaling_spec": {"max_node_count": 1.5}}]})",
                "node_pools[0].scaling_spec.max_node_count: expected an integer, got number 1.5"},
        BadCase{
            "config_number",
            R"({"orchestrator_spec": {"slurm_spec": {"config": {"PriorityWeightAge": 1000}}}})",
            R"(orchestrator_spec.slurm_spec.config.PriorityWeightAge: expected a string, got number 1000 (write numbers as strings: "1000"))"},
        BadCase{"list_item", R"({"node_pools": [7]})",
                "node_pools[0]: expected an object, got number 7"},
        BadCase{"not_object", R"([1, 2])", "expected the spec to be a JSON object, got a list"},
        BadCase{"syntax", "{\n  \"display_name\": \"x\",\n  }",
                "JSON syntax error at line 3, column 3: syntax error while parsing object key - "
                "unexpected '}'; expected string literal"},
        BadCase{"empty", " \n", "the spec is empty (expected a JSON object)"},
        BadCase{"binary", "\xff\x01",
                "JSON syntax error at line 1, column 1: syntax error while parsing value - "
                "invalid literal; last read: '\\xff'"},
        BadCase{"truncated", "{\"a\": [1, 2",
                "JSON syntax error at line 1, column 12: syntax error while parsing array - "
                "unexpected end of input; expected ']'"}),
    [](const ::testing::TestParamInfo<BadCase>& c) { return c.param.name; });

TEST(SpecParserTest, ReportsEveryProblemAtOnce) {
  ParsedSpec parsed = ParseClusterSpec(
      R"({"display_name": 1, "node_pools": [{"idd": "a"}, {"id": 2}], "extra": true})");
  EXPECT_EQ(parsed.diagnostics.size(), 4u);
  ASSERT_TRUE(parsed.spec);  // the shape was right, so validation can still run
}

TEST(SpecParserTest, RefusesHugeDocuments) {
  std::string big(kMaxSpecBytes + 1, ' ');
  ParsedSpec parsed = ParseClusterSpec(big);
  EXPECT_THAT(Messages(parsed.diagnostics), ElementsAre(HasSubstr("the limit is")));
}

TEST(SpellingTest, ConvertsBothWays) {
  EXPECT_EQ(CamelToSnake("orchestratorSpec"), "orchestrator_spec");
  EXPECT_EQ(CamelToSnake("node_pools"), "node_pools");
  EXPECT_EQ(SnakeToCamel("node_pools"), "nodePools");
  EXPECT_EQ(SnakeToCamel("boot_disk_size_gb"), "bootDiskSizeGb");
  EXPECT_EQ(SnakeToCamel("id"), "id");
}

}  // namespace
}  // namespace gantry::spec
