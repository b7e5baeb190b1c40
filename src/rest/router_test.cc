#include "rest/router.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "slurm/fake_controller_test_util.h"

namespace gantry::rest {
namespace {

using nlohmann::json;

// A router over the fake controller (the reference cluster's queue); requests come from this
// process's uid on the unix socket unless a test says otherwise.
class RouterTest : public ::testing::Test {
 protected:
  RouterTest()
      : router_(RestConfig{"anchor", controller_.dir() + "/commands.sock", getuid(), "test",
                           "login1"}) {}

  HttpResponse Get(const std::string& path, std::optional<wire::PeerIdentity> peer = Self(),
                   std::map<std::string, std::string> headers = {}) const {
    HttpRequest request;
    request.method = "GET";
    request.path = path;
    request.peer = peer;
    request.headers = std::move(headers);
    HttpResponse response = router_.Handle(request);
    for (const std::string& piece : response.pieces) response.body += piece;  // as sent
    return response;
  }
  static wire::PeerIdentity Self() { return {getuid(), getgid(), getpid()}; }

  slurm::testing::FakeController controller_;
  Router router_;
};

TEST_F(RouterTest, ListsTheControllersJobsInTheEnvelope) {
  const HttpResponse response = Get("/slurm/v0.0.42/jobs");
  ASSERT_EQ(response.status, 200) << response.body;
  const json doc = json::parse(response.body);
  ASSERT_FALSE(doc["jobs"].empty());
  EXPECT_EQ(doc["meta"]["slurm"]["cluster"], "anchor");
  EXPECT_EQ(doc["meta"]["slurm"]["release"], "24.11.0");
  EXPECT_EQ(doc["errors"], json::array());
  for (const json& job : doc["jobs"]) {
    EXPECT_TRUE(job["job_state"].is_array());
    EXPECT_EQ(job["cluster"], "anchor");
  }
}

TEST_F(RouterTest, PathsMatchWithOrWithoutTheTrailingSlash) {
  EXPECT_EQ(Get("/slurm/v0.0.42/partitions/").status, 200);
  EXPECT_EQ(Get("/slurm/v0.0.42/partitions").status, 200);
  EXPECT_EQ(Get("/slurm/v0.0.42/partition/a4/").status, 200);
  EXPECT_EQ(Get("/slurm/v0.0.42/partition/nope").status, 404);
  EXPECT_EQ(Get("/slurm/v0.0.42/nothing").status, 404);
  HttpRequest put;
  put.method = "PUT";
  put.path = "/slurm/v0.0.42/jobs";
  put.peer = Self();
  EXPECT_EQ(router_.Handle(put).status, 405);
}

TEST_F(RouterTest, WhoMayCallWithoutAToken) {
  // This process's uid on the unix socket: yes. Another uid, or TCP: 401, naming what to send.
  EXPECT_EQ(Get("/slurm/v0.0.42/ping").status, 200);
  HttpResponse other = Get("/slurm/v0.0.42/ping", wire::PeerIdentity{getuid() + 1, 0, 1});
  EXPECT_EQ(other.status, 401);
  EXPECT_NE(other.body.find("is not this daemon's user"), std::string::npos) << other.body;
  HttpResponse tcp = Get("/slurm/v0.0.42/ping", std::nullopt);
  EXPECT_EQ(tcp.status, 401);
  EXPECT_EQ(json::parse(tcp.body)["errors"][0]["error_number"], 1007);
  HttpResponse both = Get("/slurm/v0.0.42/ping", std::nullopt,
                          {{"x-slurm-user-token", "a.b.c"}, {"authorization", "Bearer a.b.c"}});
  EXPECT_EQ(both.status, 401);
  HttpResponse basic = Get("/slurm/v0.0.42/ping", std::nullopt, {{"authorization", "Basic eA=="}});
  EXPECT_EQ(basic.status, 401);
}

TEST_F(RouterTest, TheOpenapiDocumentListsTheRouteTable) {
  const json doc = json::parse(Get("/openapi.json", std::nullopt).body);
  EXPECT_EQ(doc["openapi"], "3.0.3");
  size_t operations = 0;
  for (const auto& [path, ops] : doc["paths"].items()) operations += ops.size();
  EXPECT_EQ(operations, Routes().size());
  EXPECT_EQ(doc["paths"]["/slurm/v0.0.42/job/{job_id}"]["delete"]["operationId"],
            "slurm_v0042_delete_job");
  // Every reference resolves within the document.
  for (const auto& [path, ops] : doc["paths"].items()) {
    for (const auto& [method, op] : ops.items()) {
      const std::string ref =
          op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"];
      const std::string name = ref.substr(ref.rfind('/') + 1);
      EXPECT_TRUE(doc["components"]["schemas"].contains(name)) << path << " " << method;
    }
  }
}

TEST_F(RouterTest, AnUnknownJobIs404WithSlurmsText) {
  const HttpResponse response = Get("/slurm/v0.0.42/job/424242");
  EXPECT_EQ(response.status, 404);
  const json doc = json::parse(response.body);
  EXPECT_EQ(doc["errors"][0]["error"], "Invalid job id specified");
  EXPECT_EQ(doc["errors"][0]["error_number"], 2017);
  EXPECT_EQ(doc["jobs"], json::array());
}

}  // namespace
}  // namespace gantry::rest
