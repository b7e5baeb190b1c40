#include "slurm/failover_transport.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "model/standby.h"
#include "slurm/slurm_errors.h"

namespace gantry::slurm {
namespace {

using std::chrono::milliseconds;

// A controller that answers each call with the next of its scripted answers (the last one
// repeats), and counts the calls.
struct Script {
  std::deque<Result<std::string>> answers;
  bool unsent = false;  // the failures are calls that never left
  int calls = 0;
};

class ScriptedTransport final : public ControllerTransport {
 public:
  explicit ScriptedTransport(Script* script) : script_(script) {}
  Result<std::string> Call(wire::Method, const std::string&, int) override {
    ++script_->calls;
    Result<std::string> answer = script_->answers.front();
    if (script_->answers.size() > 1) script_->answers.pop_front();
    return answer;
  }
  bool last_call_unsent() const override { return script_->unsent; }

 private:
  Script* script_;
};

Status Standby(const std::string& leader) {
  return Unavailable(model::StandbyRefusal("c2", leader));
}

FailoverTransport Over(std::vector<Script>& scripts, std::vector<std::string> targets = {}) {
  return FailoverTransport(
      scripts.size(),
      [&scripts](size_t i) -> Result<std::unique_ptr<ControllerTransport>> {
        return std::unique_ptr<ControllerTransport>(
            std::make_unique<ScriptedTransport>(&scripts[i]));
      },
      std::move(targets), milliseconds(300), milliseconds(10));
}

TEST(FailoverTransportTest, ACallRefusedByAStandbyGoesToTheNextController) {
  std::vector<Script> scripts(3);
  scripts[0].answers = {Standby("")};
  scripts[1].answers = {Standby("")};
  scripts[2].answers = {std::string("reply")};
  FailoverTransport transport = Over(scripts);
  Result<std::string> reply = transport.Call(wire::Method::kPing, "", 5);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(*reply, "reply");
  EXPECT_EQ(transport.current(), 2u);
  // The next call starts at the controller that answered.
  ASSERT_TRUE(transport.Call(wire::Method::kPing, "", 5).ok());
  EXPECT_EQ(scripts[0].calls, 1);
  EXPECT_EQ(scripts[2].calls, 2);
}

TEST(FailoverTransportTest, ARefusalNamingTheLeaderSendsTheCallThere) {
  std::vector<Script> scripts(3);
  scripts[0].answers = {Standby("c3 10.0.0.3:6817")};
  scripts[1].answers = {Standby("c3 10.0.0.3:6817")};
  scripts[2].answers = {std::string("reply")};
  FailoverTransport transport = Over(scripts, {"10.0.0.1:6817", "10.0.0.2:6817", "10.0.0.3:6817"});
  ASSERT_TRUE(transport.Call(wire::Method::kPing, "", 5).ok());
  EXPECT_EQ(scripts[1].calls, 0);  // skipped: the first refusal named c3
  EXPECT_EQ(scripts[2].calls, 1);
}

TEST(FailoverTransportTest, ACallThatNeverLeftIsMadeElsewhere) {
  std::vector<Script> scripts(2);
  scripts[0].answers = {Unavailable(kConnectFailure)};
  scripts[0].unsent = true;
  scripts[1].answers = {std::string("reply")};
  FailoverTransport transport = Over(scripts);
  ASSERT_TRUE(transport.Call(wire::Method::kSubmitJob, "", 5).ok());
}

TEST(FailoverTransportTest, ACallLostOnTheWayIsNotMadeTwice) {
  // The connection broke after the request left: it may have been done; the caller hears it.
  std::vector<Script> scripts(2);
  scripts[0].answers = {Unavailable(kConnectFailure)};
  scripts[1].answers = {std::string("reply")};
  FailoverTransport transport = Over(scripts);
  Result<std::string> reply = transport.Call(wire::Method::kSubmitJob, "", 5);
  EXPECT_EQ(reply.status().message(), kConnectFailure);
  EXPECT_EQ(scripts[1].calls, 0);
}

TEST(FailoverTransportTest, TheControllersOwnErrorsAreTheCallers) {
  std::vector<Script> scripts(2);
  scripts[0].answers = {InvalidArgument("Invalid job id specified")};
  scripts[1].answers = {std::string("reply")};
  FailoverTransport transport = Over(scripts);
  EXPECT_EQ(transport.Call(wire::Method::kSignalJob, "", 5).status().message(),
            "Invalid job id specified");
  EXPECT_EQ(scripts[1].calls, 0);
}

TEST(FailoverTransportTest, WithNoLeaderTheRoundsEndAfterTheWindow) {
  std::vector<Script> scripts(2);
  scripts[0].answers = {Standby("")};
  scripts[1].answers = {Standby("")};
  FailoverTransport transport = Over(scripts);
  const auto start = std::chrono::steady_clock::now();
  Result<std::string> reply = transport.Call(wire::Method::kGetJobs, "", 5);
  EXPECT_TRUE(model::IsStandbyRefusal(reply.status().message())) << reply.status().ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(250));
  EXPECT_GT(scripts[0].calls, 2);  // tried again each round
}

}  // namespace
}  // namespace gantry::slurm
