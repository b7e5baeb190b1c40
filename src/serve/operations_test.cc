#include "serve/operations.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

namespace gantry::serve {
namespace {

// The id at the end of an operation's name.
std::string IdOf(const Json& op) {
  const std::string name = op["name"];
  return name.substr(name.rfind('/') + 1);
}

class OperationStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gantry-ops-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }

  std::filesystem::path dir_;
  const Parent parent_{"p", "l"};
};

TEST_F(OperationStoreTest, RunsWorkAndKeepsItsOutcome) {
  Result<std::unique_ptr<OperationStore>> store = OperationStore::Open(dir());
  ASSERT_TRUE(store.ok());
  Result<Json> op = (*store)->Start(parent_, "c1", "CreateX", "starting",
                                    [](const Progress& progress) -> OperationOutcome {
                                      progress.Say("half way");
                                      return {Json{{"ok", true}}, std::nullopt};
                                    });
  ASSERT_TRUE(op.ok());
  EXPECT_EQ((*op)["done"], false);
  EXPECT_EQ((*op)["metadata"]["progressMessage"], "starting");
  (*store)->WaitIdle();
  const std::string id = IdOf(*op);
  std::optional<Json> done = (*store)->Get(parent_, id);
  ASSERT_TRUE(done);
  EXPECT_EQ((*done)["done"], true);
  EXPECT_EQ((*done)["response"]["ok"], true);
  EXPECT_EQ((*done)["metadata"]["progressMessage"], "half way");
  EXPECT_FALSE((*store)->Get({"other", "l"}, id));  // another project's operation is not ours
}

TEST_F(OperationStoreTest, AnErrorCarriesTheRpcCode) {
  Result<std::unique_ptr<OperationStore>> store = OperationStore::Open(dir());
  Result<Json> op = (*store)->Start(parent_, "c1", "DeleteX", "", [](const Progress&) {
    return OperationOutcome{std::nullopt, OperationError{503, "not running"}};
  });
  (*store)->WaitIdle();
  const std::string id = IdOf(*op);
  const Json done = *(*store)->Get(parent_, id);
  EXPECT_EQ(done["error"]["code"], 14);
  EXPECT_EQ(done["error"]["message"], "not running");
}

TEST_F(OperationStoreTest, OneOperationPerClusterAtATime) {
  Result<std::unique_ptr<OperationStore>> store = OperationStore::Open(dir());
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_TRUE((*store)
                  ->Start(parent_, "c1", "UpdateX", "",
                          [released](const Progress&) {
                            released.wait();
                            return OperationOutcome{Json::object(), std::nullopt};
                          })
                  .ok());
  EXPECT_EQ((*store)->RunningOn("c1"), "UpdateX");
  Result<Json> second = (*store)->Start(parent_, "c1", "DeleteX", "", [](const Progress&) {
    return OperationOutcome{Json::object(), std::nullopt};
  });
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE((*store)
                  ->Start(parent_, "c2", "DeleteX", "",
                          [](const Progress&) {
                            return OperationOutcome{Json::object(), std::nullopt};
                          })
                  .ok());
  release.set_value();
  (*store)->WaitIdle();
  EXPECT_FALSE((*store)->RunningOn("c1"));
}

TEST_F(OperationStoreTest, AReopenedStoreAnswersAndEndsWhatWasRunning) {
  std::string id;
  {
    Result<std::unique_ptr<OperationStore>> store = OperationStore::Open(dir());
    Result<Json> op = (*store)->Start(parent_, "c1", "CreateX", "", [](const Progress&) {
      return OperationOutcome{Json{{"kept", 1}}, std::nullopt};
    });
    id = IdOf(*op);
  }
  // An operation file left as running (its server died).
  {
    std::ofstream out(dir() + "/42.json");
    out << R"({"name": "projects/p/locations/l/operations/42", "done": false})";
  }
  Result<std::unique_ptr<OperationStore>> store = OperationStore::Open(dir());
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*(*store)->Get(parent_, id))["response"]["kept"], 1);
  const Json interrupted = *(*store)->Get(parent_, "42");
  EXPECT_EQ(interrupted["done"], true);
  EXPECT_EQ(interrupted["error"]["code"], 10);
}

}  // namespace
}  // namespace gantry::serve
