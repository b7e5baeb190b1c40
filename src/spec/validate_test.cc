#include "spec/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "spec/spec_parser.h"
#include "tests/testing/spec_files.h"

namespace gantry::spec {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ClusterSpec Example(const char* name) {
  ParsedSpec parsed = ParseClusterSpec(testing::ReadExample(name));
  EXPECT_TRUE(parsed.diagnostics.empty()) << parsed.diagnostics.ToStatus().message();
  return *parsed.spec;
}

std::vector<std::string> Problems(const ClusterSpec& spec) {
  const Diagnostics problems = ValidateClusterSpec(spec);
  std::vector<std::string> out;
  for (const Diagnostic& d : problems.items()) out.push_back(d.ToString());
  return out;
}

SlurmSpec& Slurm(ClusterSpec& s) { return s.slurm; }

TEST(ValidateTest, BothExamplesAreValid) {
  EXPECT_THAT(Problems(Example("cluster.json")), IsEmpty());
  EXPECT_THAT(Problems(Example("cluster-config-maps.json")), IsEmpty());
}

struct Case {
  const char* name;
  const char* example;
  std::function<void(ClusterSpec&)> mutate;
  const char* expected;  // a substring of exactly one reported problem
};

class ValidateRuleTest : public ::testing::TestWithParam<Case> {};

TEST_P(ValidateRuleTest, ReportsThePathValueAndRule) {
  ClusterSpec spec = Example(GetParam().example);
  GetParam().mutate(spec);
  const std::vector<std::string> problems = Problems(spec);
  EXPECT_THAT(problems, Contains(HasSubstr(GetParam().expected)))
      << ::testing::PrintToString(problems);
}

const char* kMaps = "cluster-config-maps.json";
const char* kLegacy = "cluster.json";

void SetConfig(ClusterSpec& s, const std::string& key, const std::string& value) {
  for (ConfigEntry& e : *s.slurm.config) {
    if (e.key == key) {
      e.value = value;
      return;
    }
  }
  s.slurm.config->push_back({key, value});
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ValidateRuleTest,
    ::testing::Values(
        Case{"unknown_pool_in_partition", kLegacy,
             [](ClusterSpec& s) { Slurm(s).partitions[1].node_pool_ids[0] = "a5"; },
             "orchestrator_spec.slurm_spec.partitions[1].node_pool_ids[0]: unknown node pool "
             "\"a5\" (known: login, a4, cpu)"},
        Case{"duplicate_pool", kLegacy, [](ClusterSpec& s) { s.node_pools[2].id = "a4"; },
             "node_pools[2].id: duplicate node pool id \"a4\" (also node_pools[1])"},
        Case{"bad_pool_id", kLegacy, [](ClusterSpec& s) { s.node_pools[2].id = "CPU_pool"; },
             "node_pools[2].id: \"CPU_pool\" is not a valid id"},
        Case{"long_id", kLegacy, [](ClusterSpec& s) { s.node_pools[2].id = std::string(64, 'c'); },
             "is not a valid id (lower-case letters, digits and '-', starting with a letter, not "
             "ending with '-', at most 63 characters)"},
        Case{"duplicate_partition", kLegacy,
             [](ClusterSpec& s) { Slurm(s).partitions[2].id = "a4"; },
             "partitions[2].id: duplicate partition id \"a4\" (also partitions[0])"},
        Case{"login_in_partition", kLegacy,
             [](ClusterSpec& s) { Slurm(s).partitions[2].node_pool_ids.push_back("login"); },
             "partitions[2].node_pool_ids[1]: the login pool \"login\" cannot be in a partition"},
        Case{"login_unknown", kLegacy, [](ClusterSpec& s) { Slurm(s).login_node_pool_id = "lg"; },
             "login_node_pool_id: unknown node pool \"lg\" (known: login, a4, cpu)"},
        Case{"login_missing", kLegacy, [](ClusterSpec& s) { Slurm(s).login_node_pool_id = ""; },
             "orchestrator_spec.slurm_spec.login_node_pool_id: is required"},
        Case{"not_static", kLegacy,
             [](ClusterSpec& s) { s.node_pools[1].scaling_spec.min_node_count = 2; },
             "node_pools[1].scaling_spec: min_node_count 2 and max_node_count 4 differ; node pools "
             "are static (min_node_count == max_node_count)"},
        Case{"empty_pool", kLegacy,
             [](ClusterSpec& s) {
               s.node_pools[2].scaling_spec.min_node_count = 0;
               s.node_pools[2].scaling_spec.max_node_count = 0;
             },
             "node_pools[2].scaling_spec.max_node_count: 0 must be at least 1 (a static pool)"},
        Case{"unknown_machine", kLegacy,
             [](ClusterSpec& s) { s.node_pools[1].machine_spec.machine_type = "a4-highgpu-9g"; },
             "node_pools[1].machine_spec.machine_type: unknown machine type \"a4-highgpu-9g\" (did "
             "you mean \"a4-highgpu-8g\"?)"},
        Case{"accelerator_mismatch", kLegacy,
             [](ClusterSpec& s) {
               s.node_pools[1].machine_spec.accelerator_type = "NVIDIA_H200_141GB";
             },
             "node_pools[1].machine_spec.accelerator_type: \"NVIDIA_H200_141GB\" does not match "
             "machine type \"a4-highgpu-8g\", which has NVIDIA_B200"},
        Case{"accelerator_count", kLegacy,
             [](ClusterSpec& s) { s.node_pools[1].machine_spec.accelerator_count = 4; },
             "node_pools[1].machine_spec.accelerator_count: 4 does not match machine type "
             "\"a4-highgpu-8g\", which has 8"},
        Case{"provisioning", kLegacy,
             [](ClusterSpec& s) { s.node_pools[2].provisioning_model = "STANDARD"; },
             "node_pools[2].provisioning_model: \"STANDARD\" is not one of ON_DEMAND, SPOT, "
             "RESERVATION, FLEX_START"},
        Case{"display_name", kLegacy, [](ClusterSpec& s) { s.display_name = "Demo_Cluster"; },
             "display_name: \"Demo_Cluster\" must be 1 to 10 lower-case letters or digits"},
        Case{"home_missing", kLegacy, [](ClusterSpec& s) { Slurm(s).home_directory_storage = ""; },
             "home_directory_storage: is required"},
        Case{"home_malformed", kLegacy,
             [](ClusterSpec& s) { Slurm(s).home_directory_storage = "filestore-1"; },
             "home_directory_storage: \"filestore-1\" must be a Filestore instance"},
        Case{"preempt_type", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->preempt_type = "preempt/partition"; },
             "orchestrator_spec.slurm_spec.scheduling.preempt_type: "},
        Case{"suspend_without_gang", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->preempt_mode = "SUSPEND"; },
             "scheduling.preempt_mode: \"SUSPEND\": SUSPEND needs GANG under "
             "preempt/partition_prio (write SUSPEND,GANG)"},
        Case{"mode_needs_type", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->preempt_type = "preempt/none"; },
             "scheduling.preempt_mode: \"SUSPEND,GANG\" needs PreemptType preempt/partition_prio "
             "or preempt/qos"},
        Case{"type_needs_mode", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->preempt_mode = "OFF"; },
             "scheduling.preempt_type: \"preempt/partition_prio\" needs PreemptMode CANCEL, "
             "REQUEUE or SUSPEND,GANG"},
        Case{"two_modes", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->preempt_mode = "REQUEUE,CANCEL"; },
             "choose one of CANCEL, REQUEUE or SUSPEND"},
        Case{"negative_weight", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->priority_weight_age = -5; },
             "scheduling.priority_weight_age: "},
        Case{"tres_weights", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->priority_weight_tres = "cpu=abc"; },
             "scheduling.priority_weight_tres: "},
        Case{"exempt_time", kLegacy,
             [](ClusterSpec& s) { Slurm(s).scheduling->preempt_exempt_time = "ten minutes"; },
             "scheduling.preempt_exempt_time: "},
        Case{"enforce_words", kLegacy,
             [](ClusterSpec& s) { Slurm(s).accounting->accounting_storage_enforce = "assoc,qos"; },
             "accounting.accounting_storage_enforce: "},
        Case{"config_and_legacy", kLegacy,
             [](ClusterSpec& s) {
               Slurm(s).config = ConfigMap{{"KillWait", "30"}};
             },
             "orchestrator_spec.slurm_spec.config: cannot be combined with the legacy "
             "\"scheduling\" block"},
        Case{"refused_prolog", kMaps, [](ClusterSpec& s) { SetConfig(s, "Prolog", "/x.sh"); },
             "orchestrator_spec.slurm_spec.config.Prolog: "},
        Case{"health_program_relative", kMaps,
             [](ClusterSpec& s) { SetConfig(s, "HealthCheckProgram", "check.sh"); },
             "config.HealthCheckProgram: \"check.sh\" is not an absolute path"},
        Case{"health_node_state", kMaps,
             [](ClusterSpec& s) { SetConfig(s, "HealthCheckNodeState", "IDLE,BUSY"); },
             "config.HealthCheckNodeState: "},
        Case{"refused_requeue_exit", kMaps,
             [](ClusterSpec& s) { SetConfig(s, "RequeueExit", "1"); }, "config.RequeueExit: "},
        Case{"refused_dbd", kMaps, [](ClusterSpec& s) { SetConfig(s, "PurgeJobAfter", "12"); },
             "config.PurgeJobAfter: "},
        Case{"unknown_key", kMaps, [](ClusterSpec& s) { SetConfig(s, "PriorityWeightAges", "10"); },
             "config.PriorityWeightAges: unknown slurm.conf parameter \"PriorityWeightAges\" (did "
             "you mean \"PriorityWeightAge\""},
        Case{"partition_key_in_cluster", kMaps,
             [](ClusterSpec& s) { SetConfig(s, "PriorityTier", "5"); }, "config.PriorityTier: "},
        Case{"duplicate_spelling", kMaps,
             [](ClusterSpec& s) { SetConfig(s, "priority_weight_age", "5"); },
             "config.priority_weight_age: \"priority_weight_age\" is also set as "
             "\"PriorityWeightAge\""},
        Case{"partition_default", kMaps,
             [](ClusterSpec& s) { Slurm(s).partitions[1].config.push_back({"Default", "YES"}); },
             "partitions[1].config.Default: "},
        Case{"partition_max_time", kMaps,
             [](ClusterSpec& s) { Slurm(s).partitions[1].config[0].value = "two hours"; },
             "partitions[1].config.MaxTime: "},
        Case{"partition_gang", kMaps,
             [](ClusterSpec&
                    s) { Slurm(s).partitions[1].config.push_back({"PreemptMode", "GANG"}); },
             "partitions[1].config.PreemptMode: \"GANG\": GANG is a cluster-wide mode"},
        Case{"default_time", kMaps,
             [](ClusterSpec&
                    s) { Slurm(s).partitions[1].config.push_back({"DefaultTime", "03:00:00"}); },
             "partitions[1].config.DefaultTime: DefaultTime \"03:00:00\" exceeds the partition's "
             "MaxTime \"02:00:00\""},
        Case{"node_set_twice", kMaps,
             [](ClusterSpec& s) { Slurm(s).node_sets.push_back({"h200", {}}); },
             "node_sets[1].node_pool_id: node pool \"h200\" already has node_sets[0] (at most one "
             "per pool)"},
        Case{"node_set_login", kMaps,
             [](ClusterSpec& s) { Slurm(s).node_sets[0].node_pool_id = "login"; },
             "node_sets[0].node_pool_id: node sets configure compute pools"},
        Case{"node_set_key", kMaps,
             [](ClusterSpec& s) { Slurm(s).node_sets[0].config.push_back({"MaxTime", "1"}); },
             "node_sets[0].config.MaxTime: "},
        Case{"no_partitions", kMaps, [](ClusterSpec& s) { Slurm(s).partitions.clear(); },
             "orchestrator_spec.slurm_spec.partitions: at least one partition is required"},
        Case{"empty_script", kMaps,
             [](ClusterSpec& s) { Slurm(s).prolog_bash_scripts.push_back("  \n"); },
             "prolog_bash_scripts[1]: script is empty"},
        Case{"default_partition", kMaps,
             [](ClusterSpec& s) { Slurm(s).default_partition_id = "gpu"; },
             "default_partition_id: unknown partition \"gpu\" (known: train, eval)"}),
    [](const ::testing::TestParamInfo<Case>& c) { return c.param.name; });

TEST(ValidateTest, ReportsEveryProblemAtOnce) {
  ClusterSpec spec = Example(kLegacy);
  spec.display_name = "";
  spec.node_pools[1].provisioning_model = "CHEAP";
  spec.slurm.partitions[0].node_pool_ids[0] = "nope";
  spec.slurm.scheduling->preempt_mode = "SUSPEND";
  EXPECT_EQ(Problems(spec).size(), 4u) << ::testing::PrintToString(Problems(spec));
}

TEST(ValidateTest, UnknownMachineTypeWithExplicitResourcesIsFine) {
  ClusterSpec spec = Example(kLegacy);
  spec.node_pools[2].machine_spec.machine_type = "e2-custom-4-8192";
  spec.node_pools[2].node_resources = NodeResources{4, 8192, 0, ""};
  EXPECT_THAT(Problems(spec), IsEmpty());
}

TEST(IdTest, FollowsRfc1034) {
  EXPECT_TRUE(IsValidId("a4"));
  EXPECT_TRUE(IsValidId("a-b-1"));
  EXPECT_FALSE(IsValidId(""));
  EXPECT_FALSE(IsValidId("4a"));
  EXPECT_FALSE(IsValidId("a-"));
  EXPECT_FALSE(IsValidId("A"));
  EXPECT_FALSE(IsValidId("a_b"));
  EXPECT_TRUE(IsValidId(std::string(63, 'a')));
  EXPECT_FALSE(IsValidId(std::string(64, 'a')));
}

TEST(CheckSpecTextTest, CombinesParseAndValidation) {
  const CheckedSpec c = CheckSpecText(R"({"display_name": "x", "node_pool": []})");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.diagnostics.items()[0].ToString(),
            "node_pool: unknown field (did you mean \"node_pools\"?)");
}

TEST(CheckSpecTextTest, AWrongTypeIsNotAlsoReportedAsMissing) {
  const CheckedSpec c = CheckSpecText(R"({"display_name": 7})");
  ASSERT_FALSE(c.diagnostics.empty());
  EXPECT_EQ(c.diagnostics.items()[0].ToString(), "display_name: expected a string, got number 7");
  for (size_t i = 1; i < c.diagnostics.size(); ++i) {
    EXPECT_NE(c.diagnostics.items()[i].path, "display_name");
  }
}

}  // namespace
}  // namespace gantry::spec
