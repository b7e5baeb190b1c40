#include "serve/resources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "spec/validate.h"

namespace gantry::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

constexpr char kSpec[] = R"({
  "display_name": "demo",
  "node_pools": [
    {"id": "login", "machine_spec": {"machine_type": "n2-standard-2"},
     "scaling_spec": {"min_node_count": 1, "max_node_count": 1}},
    {"id": "cpu", "machine_spec": {"machine_type": "n2-standard-4"},
     "scaling_spec": {"min_node_count": 2, "max_node_count": 2}}
  ],
  "orchestrator_spec": {"slurm_spec": {
    "login_node_pool_id": "login", "home_directory_storage": "/home",
    "partitions": [{"id": "cpu", "node_pool_ids": ["cpu"], "config": {"MaxTime": "1:00:00"}}]
  }}
})";

spec::ClusterSpec Spec() {
  spec::CheckedSpec checked = spec::CheckSpecText(kSpec);
  EXPECT_TRUE(checked.ok());
  return *checked.spec;
}

TEST(SnakeCaseTest, ConvertsApiNamesAndLeavesSlurmKeys) {
  EXPECT_EQ(SnakeCase("nodePools"), "node_pools");
  EXPECT_EQ(SnakeCase("orchestratorSpec"), "orchestrator_spec");
  EXPECT_EQ(SnakeCase("node_pools"), "node_pools");
  EXPECT_EQ(SnakeCase("MaxTime"), "MaxTime");
}

TEST(ApplyUpdateMaskTest, TakesOnlyTheMaskedMembersInEitherSpelling) {
  const nlohmann::json body = nlohmann::json::parse(R"({
    "displayName": "other",
    "orchestratorSpec": {"slurmSpec": {
      "partitions": [{"id": "cpu", "node_pool_ids": ["cpu"], "config": {"MaxTime": "2:00:00"}}],
      "home_directory_storage": "/elsewhere"}}})");
  std::vector<FieldViolation> violations;
  Result<MaskedUpdate> update =
      ApplyUpdateMask(Spec(), body, "orchestratorSpec.slurmSpec.partitions", &violations);
  ASSERT_TRUE(update.ok()) << update.status().message();
  EXPECT_TRUE(violations.empty());
  EXPECT_FALSE(update->touches_config);
  const nlohmann::json merged = nlohmann::json::parse(update->spec_text);
  EXPECT_EQ(merged["display_name"], "demo");  // not masked
  EXPECT_EQ(merged["orchestrator_spec"]["slurm_spec"]["home_directory_storage"], "/home");
  EXPECT_EQ(merged["orchestrator_spec"]["slurm_spec"]["partitions"][0]["config"]["MaxTime"],
            "2:00:00");
}

TEST(ApplyUpdateMaskTest, AMaskedMemberTheBodyLacksIsRemoved) {
  std::vector<FieldViolation> violations;
  Result<MaskedUpdate> update =
      ApplyUpdateMask(Spec(), nlohmann::json::object(),
                      "orchestrator_spec.slurm_spec.prolog_bash_scripts", &violations);
  ASSERT_TRUE(update.ok());
  EXPECT_FALSE(nlohmann::json::parse(update->spec_text)["orchestrator_spec"]["slurm_spec"].contains(
      "prolog_bash_scripts"));
}

TEST(ApplyUpdateMaskTest, NamesEveryBadEntry) {
  struct Case {
    std::string mask;
    size_t violations;
  };
  for (const Case& c : {Case{"", 1}, Case{"display_name", 1},
                        Case{"display_name, network,node_pools", 2}, Case{"  ", 1}}) {
    std::vector<FieldViolation> violations;
    EXPECT_FALSE(ApplyUpdateMask(Spec(), nlohmann::json::object(), c.mask, &violations).ok())
        << c.mask;
    EXPECT_EQ(violations.size(), c.violations) << c.mask;
    for (const FieldViolation& v : violations) EXPECT_EQ(v.field, "updateMask");
  }
}

TEST(ApplyUpdateMaskTest, SlurmSettingsInTheMaskAllowConfigChanges) {
  std::vector<FieldViolation> violations;
  Result<MaskedUpdate> update = ApplyUpdateMask(Spec(), nlohmann::json::object(),
                                                "orchestrator_spec.slurm_spec.config", &violations);
  ASSERT_TRUE(update.ok());
  EXPECT_TRUE(update->touches_config);
}

TEST(ErrorBodyTest, IsGoogleRpcStatusWithBadRequestDetails) {
  const Json body = ErrorBody(400, "2 problems", {{"a.b", "is required"}, {"c", "bad"}});
  EXPECT_EQ(body["error"]["code"], 400);
  EXPECT_EQ(body["error"]["status"], "INVALID_ARGUMENT");
  EXPECT_EQ(body["error"]["details"][0]["@type"], "type.googleapis.com/google.rpc.BadRequest");
  EXPECT_EQ(body["error"]["details"][0]["fieldViolations"][1]["field"], "c");
  EXPECT_FALSE(ErrorBody(404, "gone")["error"].contains("details"));
  EXPECT_EQ(ErrorBody(404, "gone")["error"]["status"], "NOT_FOUND");
}

TEST(ViolationsOfTest, KeepsEveryPathOfAnInvalidSpec) {
  const spec::CheckedSpec checked =
      spec::CheckSpecText(R"({"display_name": "X", "node_pools": []})");
  ASSERT_FALSE(checked.ok());
  const std::vector<FieldViolation> violations = ViolationsOf(checked.diagnostics);
  EXPECT_EQ(violations.size(), checked.diagnostics.size());
  EXPECT_EQ(violations[0].field, "display_name");
}

TEST(RefusedChangesTest, ListsOnlyTheRefusedOnes) {
  spec::ClusterSpec after = Spec();
  after.display_name = "renamed";
  after.slurm.prolog_bash_scripts = {"#!/bin/bash\ntrue"};
  const std::vector<FieldViolation> refused = RefusedChanges(spec::DiffSpecs(Spec(), after));
  EXPECT_THAT(refused, ElementsAre(Field(&FieldViolation::field, "display_name")));
}

TEST(ClusterResourceTest, NamesTheClusterAndCarriesItsStatus) {
  const Json r =
      ClusterResource({"p", "l"}, "c1", Spec(), {"RUNNING", "", {{"demo-cpu-0", "cpu", "RUNNING"}}},
                      "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z");
  EXPECT_EQ(r["name"], "projects/p/locations/l/modelDevelopmentClusters/c1");
  EXPECT_EQ(r["display_name"], "demo");
  EXPECT_EQ(r["clusterStatus"]["state"], "RUNNING");
  EXPECT_EQ(r["clusterStatus"]["nodesStatus"][0]["nodePool"], "cpu");
  EXPECT_EQ(r["updateTime"], "2026-01-02T00:00:00.000Z");
}

TEST(TimeAndPagingTest, Formats) {
  EXPECT_EQ(Rfc3339(1796662711123), "2026-12-07T16:58:31.123Z");
  EXPECT_EQ(IdOfPageToken(PageTokenAfter("cluster-7")), "cluster-7");
  EXPECT_EQ(IdOfPageToken("%%"), std::nullopt);
}

TEST(RpcCodesTest, MapHttpStatuses) {
  EXPECT_EQ(RpcCodeNumber(400), 3);
  EXPECT_EQ(RpcCodeNumber(404), 5);
  EXPECT_EQ(RpcCodeNumber(503), 14);
  EXPECT_EQ(HttpStatusOf(StatusCode::kAlreadyExists), 409);
}

}  // namespace
}  // namespace gantry::serve
