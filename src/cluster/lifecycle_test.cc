#include "cluster/lifecycle.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster/controller_client.h"
#include "cluster/process.h"
#include "cluster/testing/fake_daemons.h"
#include "cluster/testing/specs.h"
#include "spec/validate.h"

namespace gantry::cluster {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

spec::ClusterSpec ParseSpec(const std::string& text) {
  spec::CheckedSpec c = spec::CheckSpecText(text);
  EXPECT_TRUE(c.ok());
  return *c.spec;
}

void WaitUntilDead(pid_t pid) {
  for (int i = 0; i < 500 && ProcessAlive(pid); ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_FALSE(ProcessAlive(pid)) << pid;
}

// Up must succeed; on failure the test stops with Up's message.
#define ASSERT_UP_OK()                                    \
  do {                                                    \
    const Status up_status_ = RunUp();                    \
    ASSERT_TRUE(up_status_.ok()) << up_status_.message(); \
  } while (false)

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gantry-life-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = NormalizePath(pattern);
    testing::WriteFakeDaemons(root_ + "/bin");
    env_.gantry_bin_dir = root_ + "/bin";
    env_.path = "/usr/bin:/bin";
    options_.start_timeout = std::chrono::seconds(10);
    options_.stop_timeout = std::chrono::seconds(5);
    options_.poll = milliseconds(20);
    options_.agent_settle = milliseconds(300);
  }
  void TearDown() override {
    if (cluster_) {
      std::ostringstream ignored;
      (void)Down(cluster_->dir, options_, ignored);
    }
    controller_.reset();
    testing::KillProcessesMentioning(root_);
    fs::remove_all(root_);
  }

  // Creates cluster "t" with `nodes` compute nodes and serves the fake controller on its socket.
  void MakeCluster(int nodes, bool nodes_unimplemented = false) {
    Result<Cluster> c =
        CreateClusterFiles(ParseSpec(testing::SmallSpecText(nodes)), StateDir(root_ + "/t"));
    ASSERT_TRUE(c.ok()) << c.status().message();
    cluster_ = std::move(c).value();
    controller_ =
        std::make_unique<testing::FakeController>(cluster_->dir.dir(), nodes_unimplemented);
    ASSERT_TRUE(controller_->ok());
  }

  Status RunUp(std::string* output = nullptr) {
    std::ostringstream out;
    Status s = Up(*cluster_, env_, options_, out);
    if (output) *output = out.str();
    return s;
  }

  std::map<std::string, pid_t> AgentPids() {
    std::map<std::string, pid_t> pids;
    for (const std::string& node : ComputeNodes(cluster_->config)) {
      pids[node] = LiveAgent(cluster_->dir, node).value_or(0);
    }
    return pids;
  }

  void Touch(const std::string& name) { std::ofstream(cluster_->dir.dir() + "/" + name) << ""; }

  std::string root_;
  Environment env_;
  LifecycleOptions options_;
  std::optional<Cluster> cluster_;
  std::unique_ptr<testing::FakeController> controller_;
};

TEST_F(LifecycleTest, UpStartsGantrydAndOneAgentPerComputeNode) {
  MakeCluster(3);
  std::string out;
  ASSERT_TRUE(RunUp(&out).ok()) << out;
  const StateDir& d = cluster_->dir;
  const std::optional<pid_t> gantryd = LiveGantryd(d);
  ASSERT_TRUE(gantryd.has_value());
  EXPECT_EQ(ReadPidFile(d.gantryd_pid()), gantryd);
  std::ifstream addr_in(d.addr_file());
  std::string addr;
  std::getline(addr_in, addr);
  EXPECT_TRUE(
      out.starts_with("gantryd  started  pid " + std::to_string(*gantryd) + "  " + addr + "\n"))
      << out;
  for (const auto& [node, pid] : AgentPids()) {
    ASSERT_GT(pid, 0) << node;
    const std::vector<std::string> argv = ProcessArgv(pid);
    EXPECT_EQ(std::vector<std::string>(argv.begin() + 2, argv.end()),
              (std::vector<std::string>{
                  "--node", node, "--controller", addr, "--ca-file", d.tls() + "/ca.crt",
                  "--cert-file", d.tls() + "/node-" + node + ".crt", "--cert-key-file",
                  d.tls() + "/node-" + node + ".key", "--spool", d.agent_spool(node), "--metrics",
                  "127.0.0.1:0", "--home", d.home(), "--emulated"}));
    EXPECT_NE(out.find("agent " + node + "  started  pid " + std::to_string(pid) + "\n"),
              std::string::npos)
        << out;
    EXPECT_TRUE(fs::is_directory(d.agent_spool(node)));
  }
  // The login node gets no agent.
  EXPECT_FALSE(fs::exists(d.agent_pid("t-login-0")));
  const std::vector<std::string> gantryd_argv = ProcessArgv(*gantryd);
  EXPECT_EQ(std::vector<std::string>(gantryd_argv.begin() + 2, gantryd_argv.end()),
            (std::vector<std::string>{"--state-dir", d.dir(), "--listen", "127.0.0.1:0"}));
  EXPECT_NE(TailOfFile(d.gantryd_log(), 5).find("fake gantryd starting"), std::string::npos);

  const ClusterStatus status = InspectCluster(*cluster_, true, milliseconds(2000));
  EXPECT_TRUE(status.AllRunning());
  EXPECT_TRUE(status.ping.ok()) << status.ping.message();
  EXPECT_EQ(status.gantryd_address, addr);
  ASSERT_EQ(status.agents.size(), 3u);
  EXPECT_EQ(status.agents[0].controller_state, "IDLE");
}

TEST_F(LifecycleTest, SecondUpStartsNothingAndKilledAgentIsRestartedAlone) {
  MakeCluster(3);
  ASSERT_UP_OK();
  const pid_t gantryd = LiveGantryd(cluster_->dir).value_or(0);
  const std::map<std::string, pid_t> before = AgentPids();

  std::string out;
  ASSERT_TRUE(RunUp(&out).ok()) << out;
  EXPECT_EQ(LiveGantryd(cluster_->dir), gantryd);
  EXPECT_EQ(AgentPids(), before);
  EXPECT_EQ(out.find("started"), std::string::npos) << out;
  EXPECT_NE(out.find("gantryd  running  pid " + std::to_string(gantryd)), std::string::npos);

  ASSERT_GT(before.at("t-cpu-1"), 0);
  kill(before.at("t-cpu-1"), SIGKILL);
  WaitUntilDead(before.at("t-cpu-1"));
  ASSERT_TRUE(RunUp(&out).ok()) << out;
  const std::map<std::string, pid_t> after = AgentPids();
  EXPECT_EQ(after.at("t-cpu-0"), before.at("t-cpu-0"));
  EXPECT_EQ(after.at("t-cpu-2"), before.at("t-cpu-2"));
  EXPECT_GT(after.at("t-cpu-1"), 0);
  EXPECT_NE(after.at("t-cpu-1"), before.at("t-cpu-1"));
  EXPECT_EQ(LiveGantryd(cluster_->dir), gantryd);
  EXPECT_NE(out.find("agent t-cpu-1  started"), std::string::npos) << out;
}

TEST_F(LifecycleTest, PidFileOfAnotherProgramCountsAsDead) {
  MakeCluster(1);
  // A live process that is not gantryd holds gantryd's pid file.
  Result<pid_t> sleeper =
      SpawnDetached({"/bin/sleep", {"30"}, cluster_->dir.logs() + "/sleep.log", ""});
  ASSERT_TRUE(sleeper.ok());
  ASSERT_TRUE(WritePidFile(cluster_->dir.gantryd_pid(), *sleeper).ok());
  EXPECT_EQ(LiveGantryd(cluster_->dir), std::nullopt);
  ASSERT_UP_OK();
  const std::optional<pid_t> gantryd = LiveGantryd(cluster_->dir);
  ASSERT_TRUE(gantryd.has_value());
  EXPECT_NE(*gantryd, *sleeper);
  EXPECT_TRUE(ProcessAlive(*sleeper));  // not ours: left alone
  kill(*sleeper, SIGKILL);
}

TEST_F(LifecycleTest, GantrydExitingDuringStartupFailsWithItsLog) {
  MakeCluster(1);
  std::ofstream(cluster_->dir.gantryd_log()) << "an old run's line\n";
  Touch("fake-gantryd-fails");
  std::string out;
  Status s = RunUp(&out);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.message().starts_with("gantryd (pid ")) << s.message();
  EXPECT_TRUE(s.message().ends_with(
      " exited during startup; last lines of " + cluster_->dir.gantryd_log() +
      ":\nfake gantryd starting: " + "--state-dir " + cluster_->dir.dir() +
      " --listen 127.0.0.1:0\nfatal: cannot open " + cluster_->dir.dir() + "/state.db"))
      << s.message();
  EXPECT_FALSE(fs::exists(cluster_->dir.gantryd_pid()));
  EXPECT_TRUE(cluster_->dir.NodesWithPidFiles().empty());
}

TEST_F(LifecycleTest, AgentExitingDuringStartupFailsWithItsLog) {
  MakeCluster(2);
  Touch("fake-agent-t-cpu-1-fails");
  Status s = RunUp();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("agent t-cpu-1 (pid "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("exited during startup; last lines of " +
                             cluster_->dir.agent_log("t-cpu-1") +
                             ":\nfake agent starting: --node t-cpu-1"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(s.message().ends_with("\nfatal: cannot register t-cpu-1")) << s.message();
  EXPECT_TRUE(LiveAgent(cluster_->dir, "t-cpu-0").has_value());
  EXPECT_FALSE(fs::exists(cluster_->dir.agent_pid("t-cpu-1")));

  // Fixed: the next up starts only the missing agent.
  fs::remove(cluster_->dir.dir() + "/fake-agent-t-cpu-1-fails");
  const pid_t first = LiveAgent(cluster_->dir, "t-cpu-0").value_or(0);
  ASSERT_UP_OK();
  EXPECT_EQ(LiveAgent(cluster_->dir, "t-cpu-0"), first);
  EXPECT_TRUE(LiveAgent(cluster_->dir, "t-cpu-1").has_value());
}

TEST_F(LifecycleTest, WithoutGetNodesAgentsOnlyNeedToStayAlive) {
  MakeCluster(2, /*nodes_unimplemented=*/true);
  std::string out;
  ASSERT_TRUE(RunUp(&out).ok()) << out;
  EXPECT_NE(out.find("note: cannot confirm that the agents registered"), std::string::npos);
  EXPECT_EQ(AgentPids().size(), 2u);
  const ClusterStatus status = InspectCluster(*cluster_, true, milliseconds(2000));
  EXPECT_TRUE(status.AllRunning());
  EXPECT_FALSE(status.nodes.ok());
  EXPECT_TRUE(IsUnimplemented(status.nodes)) << status.nodes.message();
}

TEST_F(LifecycleTest, DownStopsEverythingAndKeepsTheState) {
  MakeCluster(2);
  ASSERT_UP_OK();
  const pid_t gantryd = LiveGantryd(cluster_->dir).value_or(0);
  const pid_t restd = LiveRestd(cluster_->dir).value_or(0);
  const std::map<std::string, pid_t> agents = AgentPids();
  std::ostringstream out;
  ASSERT_TRUE(Down(cluster_->dir, options_, out).ok());
  EXPECT_EQ(out.str(), "gantry-restd  stopped  pid " + std::to_string(restd) +
                           "\nagent t-cpu-0  stopped  pid " + std::to_string(agents.at("t-cpu-0")) +
                           "\nagent t-cpu-1  stopped  pid " + std::to_string(agents.at("t-cpu-1")) +
                           "\ngantryd  stopped  pid " + std::to_string(gantryd) + "\n");
  EXPECT_FALSE(ProcessAlive(gantryd));
  EXPECT_FALSE(ProcessAlive(restd));
  EXPECT_FALSE(std::filesystem::exists(cluster_->dir.restd_url_file()));
  for (const auto& [node, pid] : agents) EXPECT_FALSE(ProcessAlive(pid)) << node;
  EXPECT_TRUE(cluster_->dir.NodesWithPidFiles().empty());
  EXPECT_FALSE(fs::exists(cluster_->dir.gantryd_pid()));
  EXPECT_FALSE(fs::exists(cluster_->dir.addr_file()));
  EXPECT_TRUE(cluster_->dir.HoldsCluster());
  EXPECT_TRUE(fs::exists(cluster_->dir.key()));
  EXPECT_TRUE(InspectCluster(*cluster_, false, milliseconds(100)).NoneRunning());

  std::ostringstream again;
  ASSERT_TRUE(Down(cluster_->dir, options_, again).ok());
  EXPECT_EQ(again.str(), "");
}

TEST_F(LifecycleTest, RestartedGantrydKeepsTheAddressTheAgentsKnow) {
  MakeCluster(2);
  ASSERT_UP_OK();
  const pid_t gantryd = LiveGantryd(cluster_->dir).value_or(0);
  const std::map<std::string, pid_t> agents = AgentPids();
  std::ifstream in(cluster_->dir.addr_file());
  std::string addr;
  std::getline(in, addr);

  ASSERT_GT(gantryd, 0);
  kill(gantryd, SIGKILL);
  WaitUntilDead(gantryd);
  std::string out;
  ASSERT_TRUE(RunUp(&out).ok()) << out;
  const std::optional<pid_t> restarted = LiveGantryd(cluster_->dir);
  ASSERT_TRUE(restarted.has_value());
  EXPECT_NE(*restarted, gantryd);
  EXPECT_EQ(ArgvFlagValue(ProcessArgv(*restarted), "--listen"), addr);
  EXPECT_EQ(AgentPids(), agents);  // they reconnect; not restarted
}

TEST_F(LifecycleTest, AgentsAreRestartedWhenGantrydCannotKeepItsAddress) {
  MakeCluster(1);
  ASSERT_UP_OK();
  const pid_t gantryd = LiveGantryd(cluster_->dir).value_or(0);
  const pid_t agent = LiveAgent(cluster_->dir, "t-cpu-0").value_or(0);
  ASSERT_GT(gantryd, 0);
  kill(gantryd, SIGKILL);
  WaitUntilDead(gantryd);
  Touch("fake-gantryd-no-fixed-port");
  std::string out;
  ASSERT_TRUE(RunUp(&out).ok()) << out;
  EXPECT_NE(out.find("starting it on a new port"), std::string::npos) << out;
  EXPECT_NE(out.find("agent t-cpu-0 (pid " + std::to_string(agent) + ") talks to "),
            std::string::npos)
      << out;
  const std::optional<pid_t> new_agent = LiveAgent(cluster_->dir, "t-cpu-0");
  ASSERT_TRUE(new_agent.has_value());
  EXPECT_NE(*new_agent, agent);
  EXPECT_FALSE(ProcessAlive(agent));
}

TEST_F(LifecycleTest, UpdateRestartsGantrydAndStartsAndStopsChangedAgents) {
  MakeCluster(3);
  ASSERT_UP_OK();
  const pid_t gantryd = LiveGantryd(cluster_->dir).value_or(0);
  const std::map<std::string, pid_t> before = AgentPids();

  // 3 -> 2 nodes: t-cpu-2 goes; the others stay.
  Result<spec::EffectiveConfig> config2 =
      spec::BuildEffectiveConfig(ParseSpec(testing::SmallSpecText(2)));
  ASSERT_TRUE(config2.ok());
  const Cluster two{cluster_->dir, ParseSpec(testing::SmallSpecText(2)), *config2};
  ASSERT_TRUE(WriteSpecFile(two.dir, two.spec).ok());
  std::ostringstream out;
  ASSERT_TRUE(RestartForUpdate(*cluster_, two, env_, options_, out).ok()) << out.str();
  EXPECT_FALSE(ProcessAlive(before.at("t-cpu-2")));
  EXPECT_FALSE(fs::exists(cluster_->dir.agent_pid("t-cpu-2")));
  EXPECT_EQ(LiveAgent(cluster_->dir, "t-cpu-0"), before.at("t-cpu-0"));
  EXPECT_EQ(LiveAgent(cluster_->dir, "t-cpu-1"), before.at("t-cpu-1"));
  const std::optional<pid_t> gantryd2 = LiveGantryd(cluster_->dir);
  ASSERT_TRUE(gantryd2.has_value());
  EXPECT_NE(*gantryd2, gantryd);
  EXPECT_FALSE(ProcessAlive(gantryd));

  // Another machine type: every agent is recreated.
  Result<spec::EffectiveConfig> config3 =
      spec::BuildEffectiveConfig(ParseSpec(testing::SmallSpecText(2, "t", "n2-standard-8")));
  ASSERT_TRUE(config3.ok());
  const Cluster bigger{cluster_->dir, ParseSpec(testing::SmallSpecText(2, "t", "n2-standard-8")),
                       *config3};
  std::ostringstream out2;
  ASSERT_TRUE(RestartForUpdate(two, bigger, env_, options_, out2).ok()) << out2.str();
  EXPECT_FALSE(ProcessAlive(before.at("t-cpu-0")));
  EXPECT_TRUE(LiveAgent(cluster_->dir, "t-cpu-0").has_value());
  EXPECT_TRUE(LiveAgent(cluster_->dir, "t-cpu-1").has_value());
}

TEST_F(LifecycleTest, UpdateOfAStoppedClusterStartsNothing) {
  MakeCluster(1);
  std::ostringstream out;
  ASSERT_TRUE(RestartForUpdate(*cluster_, *cluster_, env_, options_, out).ok());
  EXPECT_EQ(out.str(), "gantryd is not running: the new spec takes effect at the next gantry up\n");
  EXPECT_TRUE(InspectCluster(*cluster_, false, milliseconds(100)).NoneRunning());
}

TEST_F(LifecycleTest, DeleteStopsAndRemovesTheFolder) {
  MakeCluster(1);
  ASSERT_UP_OK();
  const pid_t gantryd = LiveGantryd(cluster_->dir).value_or(0);
  std::ostringstream out;
  ASSERT_TRUE(DeleteCluster(cluster_->dir, options_, out).ok());
  EXPECT_FALSE(ProcessAlive(gantryd));
  EXPECT_FALSE(fs::exists(cluster_->dir.dir()));
  const StateDir not_cluster(root_ + "/bin");
  Status s = DeleteCluster(not_cluster, options_, out);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(fs::exists(root_ + "/bin/gantryd"));
  cluster_.reset();
}

TEST_F(LifecycleTest, MissingDaemonBinaryIsAClearError) {
  MakeCluster(1);
  env_.gantry_bin_dir = root_ + "/nowhere";
  env_.path = root_ + "/nowhere";
  Status s = RunUp();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "gantryd not found (looked in $GANTRY_BIN_DIR (" + root_ + "/nowhere), PATH)");
}

}  // namespace
}  // namespace gantry::cluster
